//go:build linux

package mount

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRoundTripsSFTP counts the round trips to the server of what people
// do through a mount over SFTP, over a link with 40 ms round trips (long
// enough that requests sent together are counted together even on a busy
// machine): each is a wait. The bounds leave room for a lookup or two
// more, which a slow run (-race) makes where the kernel's cached names
// expire. Before fsx and sftpfs saved them (one Stat of the stored file
// per store, no reopening after a chmod or a touch, a name's two lookups
// at once,
// closes of read-only files not waited for, no Stat before an exclusive
// create, no directory flush over SFTP) and the mount looked a listing's
// entries up at once, these took 8, 8, 51, 32, 34 and 308 round trips;
// now 4, 4, 28, 19, 11 and 35.
func TestRoundTripsSFTP(t *testing.T) {
	fuseAvailable(t)
	tm, proxy := mountSFTPProxy(t, Options{Writable: true})
	src := t.TempDir()
	for _, name := range []string{"a", "b", "c", "d"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte("small "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The first store in a directory removes what crashed processes left
	// there: a listing more.
	run(t, "", "cp", "-a", filepath.Join(src, "a"), filepath.Join(tm.mnt, "a"))
	run(t, "", "cp", "-a", filepath.Join(src, "b"), filepath.Join(tm.mnt, "b"))
	many := filepath.Join(tm.mnt, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprint(i)), []byte("small\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var missing, dirs []string
	for _, n := range []string{"1", "2", "3", "4"} {
		missing = append(missing, filepath.Join(tm.mnt, "missing"+n))
		dirs = append(dirs, filepath.Join(tm.mnt, "dir"+n))
		if err := os.Mkdir(filepath.Join(tm.back, "dir"+n), 0o755); err != nil { // made underneath
			t.Fatal(err)
		}
	}
	proxy.SetDelay(20 * time.Millisecond)
	for _, tc := range []struct {
		cmd  string
		most int64
	}{
		{"stat " + strings.Join(missing, " "), 6},
		{"stat " + strings.Join(dirs, " "), 6},
		{"cp -a " + filepath.Join(src, "c") + " " + filepath.Join(tm.mnt, "c"), 32},
		{"cp " + filepath.Join(src, "d") + " " + filepath.Join(tm.mnt, "d"), 22},
		{"ls -l " + tm.mnt, 16},
		{"ls -l " + many, 40},
	} {
		args := strings.Fields(tc.cmd)
		before := proxy.Flights()
		out, err := runErr("", args[0], args[1:]...)
		flights := proxy.Flights() - before
		if err != nil && !strings.Contains(tc.cmd, "missing") {
			t.Fatalf("%s: %v\n%s", tc.cmd, err, out)
		}
		if flights > tc.most {
			t.Errorf("%s: %d round trips, want at most %d", tc.cmd, flights, tc.most)
		}
	}
	proxy.SetDelay(0)
	if got, err := os.ReadFile(filepath.Join(tm.mnt, "c")); err != nil || string(got) != "small c\n" {
		t.Errorf("c reads %q, %v", got, err)
	}
}
