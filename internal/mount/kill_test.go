//go:build linux

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
	serveIfChild(t)
	fuseAvailable(t)
	back := t.TempDir()
	for i := range 30 {
		mnt := t.TempDir()
		cmd := startChild(t, back, mnt, false)
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

// envChildMount has a test process started by startChild serve a mount:
// "w" or "r", the directory and the mountpoint, separated by the path list
// separator.
const envChildMount = "B14FS_TEST_MOUNT"

// serveIfChild serves the mount envChildMount asks for, until the process
// is killed, if it asks for one. A test that mounts in a process of its
// own and works on the mount from the test process cannot deadlock with
// itself (as a process that serves and uses a mount can: the runtime
// stopping the world while one of its threads waits in the kernel for an
// answer the others would give).
func serveIfChild(t *testing.T) {
	spec := os.Getenv(envChildMount)
	if spec == "" {
		return
	}
	parts := strings.Split(spec, string(os.PathListSeparator))
	back, mnt := parts[1], parts[2]
	fsys := mustFsx(t, afero.NewBasePathFs(afero.NewOsFs(), back), base16384.NewCodec())
	if _, err := Mount(fsys, mnt, Options{Dir: back, Writable: parts[0] == "w"}); err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}

// startChild starts the running test again in a process of its own that
// mounts back (base16384) on mnt, and returns once the mount is there.
func startChild(t *testing.T, back, mnt string, writable bool) *exec.Cmd {
	t.Helper()
	mode := "r"
	if writable {
		mode = "w"
	}
	sep := string(os.PathListSeparator)
	cmd := exec.Command(os.Args[0], "-test.run=^"+strings.Split(t.Name(), "/")[0]+"$")
	cmd.Env = append(os.Environ(), envChildMount+"="+mode+sep+back+sep+mnt)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !mounted(mnt); time.Sleep(50 * time.Microsecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the mount did not appear")
		}
	}
	return cmd
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
