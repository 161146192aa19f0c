package mount

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestKilledServerEnds kills the mount's process (SIGKILL) at once after its
// mount appears, over and over: each time the process ends, leaving a dead
// mount that fusermount3 -u takes away. Now and then one used to hang for
// good instead, unkillable in its own mount: go-fuse's WaitMount opens a
// file on the mount from the serving process, and a process killed with it
// open waits, as it exits, for itself to answer the flush of that file.
func TestKilledServerEnds(t *testing.T) {
	if spec := os.Getenv("B14FS_TEST_MOUNT"); spec != "" {
		back, mnt, _ := strings.Cut(spec, string(os.PathListSeparator))
		fsys := mustFsx(t, afero.NewBasePathFs(afero.NewOsFs(), back), base16384.NewCodec())
		if _, err := Mount(fsys, mnt, Options{Dir: back}); err != nil {
			t.Fatal(err)
		}
		select {} // until killed
	}
	fuseAvailable(t)
	back := t.TempDir()
	for i := range 30 {
		mnt := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledServerEnds$")
		cmd.Env = append(os.Environ(), "B14FS_TEST_MOUNT="+back+string(os.PathListSeparator)+mnt)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); !mounted(mnt); time.Sleep(50 * time.Microsecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("run %d: the mount did not appear", i)
			}
		}
		var st syscall.Stat_t
		if err := syscall.Stat(mnt, &st); err != nil {
			t.Fatal(err)
		}
		cmd.Process.Kill()
		ended := make(chan error, 1)
		go func() { ended <- cmd.Wait() }()
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			abortConnection(st.Dev)
			<-ended
			syscall.Unmount(mnt, syscall.MNT_DETACH)
			t.Fatalf("run %d: the killed mount process did not end within 10 s", i)
		}
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			t.Fatalf("run %d: unmount: %v", i, err)
		}
	}
}

// mounted reports whether a file system is mounted at dir.
func mounted(dir string) bool {
	data, err := os.ReadFile("/proc/self/mounts")
	return err == nil && strings.Contains(string(data), " "+dir+" ")
}

// abortConnection aborts the FUSE connection of the mount of device dev
// (through fusectl), which ends what waits on it.
func abortConnection(dev uint64) {
	conns := "/sys/fs/fuse/connections"
	if entries, _ := os.ReadDir(conns); len(entries) == 0 {
		syscall.Mount("none", conns, "fusectl", 0, "")
	}
	minor := (dev & 0xff) | ((dev >> 12) & 0xfff00)
	os.WriteFile(fmt.Sprintf("%s/%d/abort", conns, minor), []byte("1"), 0)
}
