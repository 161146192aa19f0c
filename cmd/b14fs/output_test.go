package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputKeepsAttrs checks that a file -o replaces keeps its mode, and
// as root its owner.
func TestOutputKeepsAttrs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	root := os.Geteuid() == 0
	if root {
		if err := os.Chown(path, 4321, 4322); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(path, 0o640|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	out, err := openOutput(stdio{}, path)
	if err != nil {
		t.Fatal(err)
	}
	out.w.Write([]byte("new"))
	if err := out.finish(nil); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o640|os.ModeSetgid {
		t.Errorf("mode %v, want %v", fi.Mode(), 0o640|os.ModeSetgid)
	}
	if st := fi.Sys().(*syscall.Stat_t); root && (st.Uid != 4321 || st.Gid != 4322) {
		t.Errorf("as root: owner %d:%d, want 4321:4322", st.Uid, st.Gid)
	}
}
