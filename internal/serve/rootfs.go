package serve

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/spf13/afero"
)

// RootFs is an afero.Fs confined to one directory by an os.Root: no name,
// whether through "..", an absolute path or a symbolic link, reaches
// outside it. A name that would is an error wrapping fs.ErrPermission.
type RootFs struct {
	root *os.Root
}

var _ afero.Fs = (*RootFs)(nil)

// OpenRoot returns the RootFs of dir. Close it when done.
func OpenRoot(dir string) (*RootFs, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &RootFs{root: r}, nil
}

// Close closes the root.
func (r *RootFs) Close() error { return r.root.Close() }

// rel turns an afero name ("/a/b", "a/b", "/") into one relative to the
// root ("a/b", ".").
func rel(name string) string {
	name = strings.TrimLeft(path.Clean("/"+name), "/")
	if name == "" {
		return "."
	}
	return name
}

// fix reports an escape from the root as a permission error, keeping the
// *fs.PathError around it.
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

func (r *RootFs) Name() string { return "RootFs" }

func (r *RootFs) Create(name string) (afero.File, error) {
	return r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (r *RootFs) Open(name string) (afero.File, error) {
	return r.OpenFile(name, os.O_RDONLY, 0)
}

func (r *RootFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := r.root.OpenFile(rel(name), flag, perm)
	if err != nil {
		return nil, fix(err)
	}
	return f, nil
}

func (r *RootFs) Mkdir(name string, perm os.FileMode) error {
	return fix(r.root.Mkdir(rel(name), perm))
}

func (r *RootFs) MkdirAll(name string, perm os.FileMode) error {
	return fix(r.root.MkdirAll(rel(name), perm))
}

func (r *RootFs) Remove(name string) error { return fix(r.root.Remove(rel(name))) }

func (r *RootFs) RemoveAll(name string) error {
	if rel(name) == "." {
		return &fs.PathError{Op: "removeall", Path: name, Err: fs.ErrPermission}
	}
	return fix(r.root.RemoveAll(rel(name)))
}

func (r *RootFs) Rename(oldname, newname string) error {
	return fix(r.root.Rename(rel(oldname), rel(newname)))
}

func (r *RootFs) Stat(name string) (os.FileInfo, error) {
	fi, err := r.root.Stat(rel(name))
	return fi, fix(err)
}

func (r *RootFs) Chmod(name string, mode os.FileMode) error {
	return fix(r.root.Chmod(rel(name), mode))
}

func (r *RootFs) Chown(name string, uid, gid int) error {
	return fix(r.root.Chown(rel(name), uid, gid))
}

func (r *RootFs) Chtimes(name string, atime, mtime time.Time) error {
	return fix(r.root.Chtimes(rel(name), atime, mtime))
}
