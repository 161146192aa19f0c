// Package rootfs is an afero.Fs over a directory that no name can leave:
// every operation goes through an os.Root, or on Linux through openat2
// with RESOLVE_BENEATH (one call where os.Root makes one for each directory
// on the way), so that neither ".." nor a symbolic link, even one swapped
// in while the program runs, leads out of the directory. `b14fs mount` and
// `b14fs serve` store their files in one.
package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/afero"
)

// Fs is an afero.Fs over a directory, through an os.Root. Names are
// slash-separated paths from the directory, with or without a leading
// slash. Open follows a link only to a file inside the directory, and an
// operation that a link would take out of it fails with fs.ErrPermission.
// Links keep their targets as given. Its Stat is Lstat (it describes a
// link, never what it points at) unless the Fs comes from FollowLinks.
type Fs struct {
	root   *os.Root
	fast   *beneath // nil where openat2 is not there
	follow bool     // Stat follows links (inside the directory)
}

var (
	_ afero.Fs        = (*Fs)(nil)
	_ afero.Symlinker = (*Fs)(nil)
)

// Open opens dir.
func Open(dir string) (*Fs, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Fs{root: r, fast: openBeneath(r)}, nil
}

// FollowLinks returns the same directory with a Stat that follows links
// inside it, as a file server wants: a link out of the directory then
// fails to Stat. Closing either closes both.
func (f *Fs) FollowLinks() *Fs { return &Fs{root: f.root, fast: f.fast, follow: true} }

// Close closes the directory.
func (f *Fs) Close() error {
	f.fast.close()
	return f.root.Close()
}

// rel turns a name into a path for the os.Root.
func rel(name string) string {
	p := strings.TrimPrefix(filepath.Clean("/"+name), "/")
	if p == "" {
		return "."
	}
	return p
}

// fix reports an escape from the directory as a permission error, keeping
// the *fs.PathError or *os.LinkError around it.
func fix(err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes from parent") {
		return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: fs.ErrPermission}
	}
	var le *os.LinkError
	if errors.As(err, &le) && strings.Contains(le.Err.Error(), "escapes from parent") {
		return &os.LinkError{Op: le.Op, Old: le.Old, New: le.New, Err: fs.ErrPermission}
	}
	return err
}

// Name returns "rootfs".
func (f *Fs) Name() string { return "rootfs" }

func (f *Fs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (f *Fs) Open(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile opens the named file; one opened for reading only is read from
// start to end, so the kernel is asked for a larger readahead.
func (f *Fs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	p := rel(name)
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		// A FIFO opened for reading would wait for a writer: a listing
		// (webdav opens what it lists) or a GET hung on one.
		flag |= noWait
	}
	file, ok, err := f.fast.openFile(p, flag, perm, filepath.Join(f.root.Name(), p))
	if !ok {
		file, err = f.root.OpenFile(p, flag, perm)
	}
	if err != nil {
		return nil, fix(err)
	}
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		adviseSequential(file)
	}
	return file, nil
}

// SyncDir flushes the entries of the directory dir to stable storage (see
// atomicfile.DirSyncer, which takes a file system that cannot for one that
// need not).
func (f *Fs) SyncDir(dir string) error {
	p := rel(dir)
	ok, err := f.fast.syncDir(p)
	switch {
	case !ok:
		var d *os.File
		if d, err = f.root.Open(p); err == nil {
			err = d.Sync()
			d.Close()
		}
	case err != nil:
		err = &fs.PathError{Op: "sync", Path: p, Err: err}
	}
	return fix(err)
}

func (f *Fs) Mkdir(name string, perm os.FileMode) error {
	p := rel(name)
	if perm&^(os.ModePerm|os.ModeSetuid|os.ModeSetgid|os.ModeSticky) == 0 {
		if ok, err := f.fast.mkdir(p, perm); ok {
			return fix(err)
		}
	}
	return fix(f.root.Mkdir(p, perm))
}

func (f *Fs) MkdirAll(name string, perm os.FileMode) error {
	return fix(f.root.MkdirAll(rel(name), perm))
}

func (f *Fs) Remove(name string) error {
	p := rel(name)
	if ok, err := f.fast.remove(p); ok {
		return fix(err)
	}
	return fix(f.root.Remove(p))
}

// RemoveAll removes name and what it holds; never the directory itself.
func (f *Fs) RemoveAll(name string) error {
	if rel(name) == "." {
		return &fs.PathError{Op: "removeall", Path: name, Err: fs.ErrPermission}
	}
	return fix(f.root.RemoveAll(rel(name)))
}

// Stat describes the named file, directory or link; it follows a link only
// for an Fs from FollowLinks.
func (f *Fs) Stat(name string) (os.FileInfo, error) {
	return f.stat(name, f.follow)
}

func (f *Fs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	info, err := f.stat(name, false)
	return info, true, err
}

// stat describes the named file, following a last link when follow is set.
func (f *Fs) stat(name string, follow bool) (os.FileInfo, error) {
	p := rel(name)
	fi, ok, err := f.fast.stat(p, follow)
	switch {
	case ok:
	case follow:
		fi, err = f.root.Stat(p)
	default:
		fi, err = f.root.Lstat(p)
	}
	return fi, fix(err)
}

func (f *Fs) Chmod(name string, mode os.FileMode) error {
	p := rel(name)
	if ok, err := f.fast.chmod(p, mode); ok {
		return fix(err)
	}
	return fix(f.root.Chmod(p, mode))
}

// Chown changes the owner and group of the named file or link, not
// following a link.
func (f *Fs) Chown(name string, uid, gid int) error {
	p := rel(name)
	if ok, err := f.fast.lchown(p, uid, gid); ok {
		return fix(err)
	}
	return fix(f.root.Lchown(p, uid, gid))
}

func (f *Fs) Chtimes(name string, atime, mtime time.Time) error {
	p := rel(name)
	if ok, err := f.fast.chtimes(p, atime, mtime); ok {
		return fix(err)
	}
	return fix(f.root.Chtimes(p, atime, mtime))
}

func (f *Fs) SymlinkIfPossible(oldname, newname string) error {
	p := rel(newname)
	if ok, err := f.fast.symlink(oldname, p); ok {
		if err != nil {
			return fix(&os.LinkError{Op: "symlinkat", Old: oldname, New: p, Err: err})
		}
		return nil
	}
	return fix(f.root.Symlink(oldname, p))
}

func (f *Fs) ReadlinkIfPossible(name string) (string, error) {
	p := rel(name)
	if target, ok, err := f.fast.readlink(p); ok {
		return target, fix(err)
	}
	target, err := f.root.Readlink(p)
	return target, fix(err)
}
