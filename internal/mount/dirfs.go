package mount

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/afero"
)

// DirFs is an afero.Fs over a directory that no name it is given can leave:
// every operation goes through an os.Root, so that neither ".." nor a
// symbolic link, even one swapped in while the mount runs, leads out of the
// directory. Its Stat is Lstat (it describes a link, never what it points
// at); Open follows a link only to a file inside the directory. Names are
// slash-separated paths from the directory, with or without a leading
// slash. Links keep their targets as given.
//
// It is what `b14fs mount` serves fsx over: the mount shows links as links
// and lets the kernel follow them, so it never needs to follow one itself.
type DirFs struct {
	root *os.Root
}

var (
	_ afero.Fs        = (*DirFs)(nil)
	_ afero.Symlinker = (*DirFs)(nil)
)

// NewDirFs opens dir.
func NewDirFs(dir string) (*DirFs, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &DirFs{root: r}, nil
}

// Close closes the directory.
func (d *DirFs) Close() error { return d.root.Close() }

// rel turns a name into a path for the os.Root.
func rel(name string) string {
	p := strings.TrimPrefix(filepath.Clean("/"+name), "/")
	if p == "" {
		return "."
	}
	return p
}

// Name returns "DirFs".
func (d *DirFs) Name() string { return "DirFs" }

func (d *DirFs) Create(name string) (afero.File, error) {
	return d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (d *DirFs) Open(name string) (afero.File, error) {
	return d.OpenFile(name, os.O_RDONLY, 0)
}

func (d *DirFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := d.root.OpenFile(rel(name), flag, perm)
	if err != nil {
		return nil, err
	}
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		adviseSequential(f)
	}
	return f, nil
}

func (d *DirFs) Mkdir(name string, perm os.FileMode) error { return d.root.Mkdir(rel(name), perm) }

func (d *DirFs) MkdirAll(name string, perm os.FileMode) error {
	return d.root.MkdirAll(rel(name), perm)
}

func (d *DirFs) Remove(name string) error { return d.root.Remove(rel(name)) }

func (d *DirFs) RemoveAll(name string) error { return d.root.RemoveAll(rel(name)) }

func (d *DirFs) Rename(oldname, newname string) error {
	return d.root.Rename(rel(oldname), rel(newname))
}

// Stat describes the named file, directory or link; it does not follow a
// link.
func (d *DirFs) Stat(name string) (os.FileInfo, error) { return d.root.Lstat(rel(name)) }

func (d *DirFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	info, err := d.root.Lstat(rel(name))
	return info, true, err
}

func (d *DirFs) Chmod(name string, mode os.FileMode) error { return d.root.Chmod(rel(name), mode) }

func (d *DirFs) Chown(name string, uid, gid int) error { return d.root.Lchown(rel(name), uid, gid) }

func (d *DirFs) Chtimes(name string, atime, mtime time.Time) error {
	return d.root.Chtimes(rel(name), atime, mtime)
}

func (d *DirFs) SymlinkIfPossible(oldname, newname string) error {
	return d.root.Symlink(oldname, rel(newname))
}

func (d *DirFs) ReadlinkIfPossible(name string) (string, error) {
	return d.root.Readlink(rel(name))
}
