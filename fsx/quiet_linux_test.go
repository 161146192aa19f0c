package fsx_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestStatKeepsAccessTime checks that Stat, which reads a stored file's ends
// to learn its decoded size, leaves the file's access time as it was over a
// base that can (a QuietOpener: rootfs): an
// access time before the modification time is one that relatime changes
// at the next read, so a Stat that counted as a read would change it.
func TestStatKeepsAccessTime(t *testing.T) {
	dir := t.TempDir()
	base, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	var _ fsx.QuietOpener = base
	fsys := newFs(t, base, base16384.NewCodec())
	mustWrite(t, fsys, "f", []byte("some bytes to decode"))
	stored := filepath.Join(dir, "f.b14")
	atime := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(stored, atime, time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if info, err := fsys.Stat("f"); err != nil || info.Size() != 20 {
			t.Fatalf("Stat: %v, %v", info, err)
		}
		if _, err := afero.ReadDir(fsys, "."); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(stored)
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Unix(fi.Sys().(*syscall.Stat_t).Atim.Unix()); !got.Equal(atime) {
		t.Errorf("the stored file's access time after Stat: %v, want %v", got, atime)
	}
}
