package rootfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStaysInside checks that Fs refuses every path that a link
// would lead out of the directory, so that nothing can be made to
// write outside it even by a link swapped in underneath.
func TestStaysInside(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(dir, "out"))
	os.Symlink("../../..", filepath.Join(dir, "up"))
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, name := range []string{"out/x", "/out/x", "up/etc/passwd", "../x", "/../../x"} {
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		if err == nil {
			f.Close()
			if _, serr := os.Stat(filepath.Join(dir, "x")); name != "../x" && name != "/../../x" || serr != nil {
				t.Errorf("OpenFile(%q) succeeded", name)
			}
		}
		if err := d.Mkdir(name+"d", 0o755); err == nil && strings.HasPrefix(name, "out") {
			t.Errorf("Mkdir(%qd) succeeded", name)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("Fs wrote outside: %v", entries)
	}
	if err := d.SyncDir("out"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("SyncDir of a link out of the directory: %v, want fs.ErrPermission", err)
	}
	if err := d.SyncDir("/"); err != nil {
		t.Errorf("SyncDir of the directory: %v", err)
	}
	if err := d.SyncDir("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SyncDir of nothing: %v, want fs.ErrNotExist", err)
	}
	if info, err := d.Stat("out"); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("Stat of a link: %v, %v; want the link", info, err)
	}
}

// TestFollowLinks checks that FollowLinks' Stat follows a link inside the
// directory and refuses one out of it, and that RemoveAll never removes
// the directory itself.
func TestFollowLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
	os.Symlink("file", filepath.Join(dir, "in"))
	os.Symlink(outside, filepath.Join(dir, "out"))
	links, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer links.Close()
	f := links.FollowLinks()
	if fi, err := f.Stat("in"); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Stat of a link inside: %v, %v; want the file", fi, err)
	}
	if _, err := f.Stat("out"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Stat of a link out of the directory: %v, want fs.ErrPermission", err)
	}
	if fi, err := links.Stat("in"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("Stat without FollowLinks: %v, %v; want the link", fi, err)
	}
	for _, name := range []string{"/", ".", ""} {
		if err := f.RemoveAll(name); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("RemoveAll(%q) = %v, want fs.ErrPermission", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "file")); err != nil {
		t.Errorf("the directory lost its file: %v", err)
	}
}

// TestSwappedLinks checks that no name leads out of the directory while
// a directory on its way is swapped for a link out of it and back, over
// and over: the files made all land inside.
func TestSwappedLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		names := [2]string{filepath.Join(dir, "real"), filepath.Join(dir, "link")}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// "d" is the directory, then the link out, then the directory.
			os.Rename(names[i%2], filepath.Join(dir, "d"))
			os.Rename(filepath.Join(dir, "d"), names[i%2])
		}
	}()
	for i := range 2000 {
		name := fmt.Sprintf("d/f%d", i%10)
		if f, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			f.Close()
		}
		d.Stat(name)
		d.Mkdir(name+"d", 0o755)
		d.Rename("real/x", name)
	}
	close(stop)
	<-done
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files made outside the directory: %v", entries)
	}
}
