//go:build linux

package mount

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/internal/testing/difftest"
	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestMain lets a test run this binary as a mount process of its own
// (B14FS_MOUNT_HELPER=DIR, B14FS_MOUNT_POINT=MOUNTPOINT), so that what the
// mount alone takes can be measured; or as the second process of a
// differential test (see startDiffChild).
func TestMain(m *testing.M) {
	if dir := os.Getenv("B14FS_MOUNT_HELPER"); dir != "" {
		os.Exit(mountHelper(dir, os.Getenv("B14FS_MOUNT_POINT")))
	}
	if dir := os.Getenv(childDirEnv); dir != "" {
		if err := difftest.Serve(os.Stdin, os.Stdout, difftest.Dir(dir)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mountHelper mounts dir (base16384, writable) at mountpoint, says "ready"
// on standard output, and unmounts on SIGTERM or SIGINT.
func mountHelper(dir, mountpoint string) int {
	base, err := rootfs.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	fsys, err := fsx.New(base, base16384.NewCodec())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv, err := Mount(fsys, mountpoint, Options{Dir: dir, Writable: true,
		Log: func(err error) { fmt.Fprintln(os.Stderr, err) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	select {
	case <-sig:
		if _, err := srv.Unmount(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			srv.Detach()
			return 1
		}
	case <-srv.Done():
	}
	return 0
}

// startHelper runs a mount process over back and returns its mountpoint and
// process ID; the test's end unmounts it.
func startHelper(t *testing.T, back string) (string, int) {
	fuseAvailable(t)
	mnt := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "B14FS_MOUNT_HELPER="+back, "B14FS_MOUNT_POINT="+mnt)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line == "ready\n"
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mount process: %v", err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			exec.Command("umount", "-l", mnt).Run()
			t.Errorf("the mount process did not end")
		}
	})
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the mount process did not mount")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the mount process did not start")
	}
	return mnt, cmd.Process.Pid
}

// procStatus returns a field of /proc/PID/status in bytes (VmRSS, VmHWM).
func procStatus(t *testing.T, pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestMemoryBounded writes 1 byte into the middle of a 1 GiB file through
// the mount, and a few bytes more, truncates it and reads it back: the
// mount process's resident memory, at its peak, stays under 64 MiB (it held
// the whole file in memory: 225 MB for a 1-byte write into 200 MB). The
// write rewrites two blocks of the stored file in place.
func TestMemoryBounded(t *testing.T) {
	longtest.Skip(t, "writes a 1 GiB file")
	fuseAvailable(t)
	back := t.TempDir()
	base, err := rootfs.Open(back)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	const size = 1 << 30
	f, err := mustFsx(t, base, base16384.NewCodec()).Create("big")
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	for range size / len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	stored := filepath.Join(back, "big.b14")
	before, err := os.Stat(stored)
	if err != nil {
		t.Fatal(err)
	}

	mnt, pid := startHelper(t, back)
	start := time.Now()
	g, err := os.OpenFile(filepath.Join(mnt, "big"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.WriteAt([]byte("X"), size/2+3); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	hwm := procStatus(t, pid, "VmHWM")
	t.Logf("1-byte write into a 1 GiB file: %v; mount process peak RSS %.1f MiB", took, float64(hwm)/(1<<20))
	if hwm > 64<<20 {
		t.Errorf("the mount process's peak RSS is %.1f MiB after a 1-byte write into a 1 GiB file, want under 64 MiB", float64(hwm)/(1<<20))
	}
	after, err := os.Stat(stored)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || after.Size() != before.Size() {
		t.Errorf("the stored file was replaced or resized: the write was not in place")
	}

	// More: writes across the file, a truncation, a read back.
	g, err = os.OpenFile(filepath.Join(mnt, "big"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 16; i++ {
		if _, err := g.WriteAt([]byte("YY"), i*(size/16)+5); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Truncate(size - 1000); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(filepath.Join(mnt, "big"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := make([]byte, 4)
	// At size/2: "0123..." with X at 3 and YY at 5 (the 9th of the 16).
	if _, err := r.ReadAt(p, size/2+2); err != nil || string(p) != "2X4Y" {
		t.Errorf("read back %q, %v", p, err)
	}
	if fi, err := r.Stat(); err != nil || fi.Size() != size-1000 {
		t.Errorf("size %v, %v", fi, err)
	}
	if hwm := procStatus(t, pid, "VmHWM"); hwm > 64<<20 {
		t.Errorf("the mount process's peak RSS is %.1f MiB after writes across a 1 GiB file, want under 64 MiB", float64(hwm)/(1<<20))
	}
}
