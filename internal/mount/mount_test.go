package mount

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/spf13/afero"
)

// mountForTest mounts fsys on a temporary directory, or skips the test when
// this machine cannot mount FUSE file systems.
func mountForTest(t *testing.T, fsys afero.Fs) string {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse: FUSE is not available here")
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		if _, err := exec.LookPath("fusermount"); err != nil {
			t.Skip("fusermount3 not installed (Debian package fuse3)")
		}
	}
	dir := t.TempDir()
	srv, err := Mount(fsys, dir, "test")
	if err != nil {
		t.Skipf("cannot mount FUSE here: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Unmount(); err != nil {
			t.Errorf("Unmount: %v", err)
		}
	})
	return dir
}

func TestMountReadOnly(t *testing.T) {
	mem := afero.NewMemMapFs()
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000)
	afero.WriteFile(mem, "/a.txt", []byte("hello\n"), 0o644)
	afero.WriteFile(mem, "/sub/big.bin", big, 0o640)
	dir := mountForTest(t, mem)

	got, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	if err != nil || string(got) != "hello\n" {
		t.Errorf("ReadFile(a.txt) = %q, %v", got, err)
	}
	got, err = os.ReadFile(filepath.Join(dir, "sub", "big.bin"))
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("ReadFile(sub/big.bin): %d bytes, %v; want %d bytes", len(got), err, len(big))
	}
	f, err := os.Open(filepath.Join(dir, "sub", "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	if n, err := f.ReadAt(buf, 200003); err != nil || !bytes.Equal(buf[:n], big[200003:200103]) {
		t.Errorf("ReadAt: %d, %v", n, err)
	}
	f.Close()

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a.txt", "sub"}) || !entries[1].IsDir() {
		t.Errorf("ReadDir = %v", names)
	}
	fi, err := os.Stat(filepath.Join(dir, "sub", "big.bin"))
	if err != nil || fi.Size() != int64(len(big)) || fi.Mode().Perm() != 0o440 {
		t.Errorf("Stat = %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(missing) = %v, want ErrNotExist", err)
	}
	err = os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	if !errors.Is(err, syscall.EROFS) && !errors.Is(err, os.ErrPermission) {
		t.Errorf("writing through a read-only mount: %v, want EROFS", err)
	}
}

func TestErrno(t *testing.T) {
	tests := []struct {
		err  error
		want syscall.Errno
	}{
		{nil, 0},
		{os.ErrNotExist, syscall.ENOENT},
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrExist}, syscall.EEXIST},
		{os.ErrPermission, syscall.EACCES},
		{syscall.ENOSPC, syscall.ENOSPC},
		{errors.New("corrupt"), syscall.EIO},
	}
	for _, tt := range tests {
		if got := errno(tt.err); got != tt.want {
			t.Errorf("errno(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
