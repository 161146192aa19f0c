//go:build unix

package unixmode

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFileModeAsOs checks FileMode against the os package's modes of real
// files of each type, with special bits, and Type and Perm back.
func TestFileModeAsOs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o755|os.ModeSetuid|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	sticky := filepath.Join(dir, "sticky")
	if err := os.Mkdir(sticky, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sticky, 0o1777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		defer l.Close()
	}
	names := []string{file, sticky, filepath.Join(dir, "link"), filepath.Join(dir, "fifo"), filepath.Join(dir, "sock"), "/dev/null"}
	if _, err := os.Lstat("/dev/loop0"); err == nil {
		names = append(names, "/dev/loop0")
	}
	for _, name := range names {
		info, err := os.Lstat(name)
		if err != nil {
			continue // no socket here
		}
		st := info.Sys().(*syscall.Stat_t)
		if got := FileMode(uint32(st.Mode)); got != info.Mode() {
			t.Errorf("FileMode(%#o) of %s = %v, os says %v", st.Mode, name, got, info.Mode())
		}
		if got := Type(info.Mode()); got != uint32(st.Mode)&syscall.S_IFMT {
			t.Errorf("Type(%v) of %s = %#o, stat says %#o", info.Mode(), name, got, uint32(st.Mode)&syscall.S_IFMT)
		}
		if got := Perm(info.Mode()); got != uint32(st.Mode)&^syscall.S_IFMT {
			t.Errorf("Perm(%v) of %s = %#o, stat says %#o", info.Mode(), name, got, uint32(st.Mode)&^syscall.S_IFMT)
		}
	}
}
