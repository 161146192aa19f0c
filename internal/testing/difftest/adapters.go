//go:build unix

package difftest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/afero"
)

// Dir returns the FS of the files in the directory dir, a local directory
// or a mountpoint, reached through the system calls os makes.
func Dir(dir string) FS { return dirFS(dir) }

type dirFS string

func (d dirFS) path(name string) string { return filepath.Join(string(d), filepath.FromSlash(name)) }

func (d dirFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := os.OpenFile(d.path(name), flag, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (d dirFS) Truncate(name string, size int64) error { return os.Truncate(d.path(name), size) }
func (d dirFS) Rename(oldname, newname string) error {
	return os.Rename(d.path(oldname), d.path(newname))
}
func (d dirFS) Remove(name string) error             { return os.Remove(d.path(name)) }
func (d dirFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(d.path(name)) }

func (d dirFS) Stat(name string) (int64, error) {
	fi, err := os.Stat(d.path(name))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (d dirFS) Link(oldname, newname string) error { return os.Link(d.path(oldname), d.path(newname)) }

func (d dirFS) Links(name string) (int64, error) {
	fi, err := os.Stat(d.path(name))
	if err != nil {
		return 0, err
	}
	return linkCount(fi)
}

// linkCount returns the number of names of the file fi describes.
func linkCount(fi os.FileInfo) (int64, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("difftest: no link count for %s: %w", fi.Name(), errors.ErrUnsupported)
	}
	return int64(st.Nlink), nil
}

type osFile struct{ *os.File }

func (f osFile) Stat() (int64, error) {
	fi, err := f.File.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Afero returns the FS of fsys, a Linker when fsys has a method
// Link(oldname, newname string) error. Truncate by name opens the file
// os.O_WRONLY, truncates and closes it. When mapErr is not nil, every
// error an operation returns, io.EOF included, is replaced by
// mapErr(err), so that errors Class does not know can be mapped to those
// it does: mapErr should return the others unchanged.
func Afero(fsys afero.Fs, mapErr func(error) error) FS {
	if mapErr == nil {
		mapErr = func(err error) error { return err }
	}
	a := aferoFS{fsys, mapErr}
	if _, ok := fsys.(hardLinker); ok {
		return aferoLinker{a}
	}
	return a
}

// hardLinker is an afero.Fs with hard links.
type hardLinker interface {
	Link(oldname, newname string) error
}

// aferoLinker is the FS of an afero.Fs with hard links.
type aferoLinker struct{ aferoFS }

func (a aferoLinker) Link(oldname, newname string) error {
	return a.err(a.fs.(hardLinker).Link(oldname, newname))
}

func (a aferoLinker) Links(name string) (int64, error) {
	fi, err := a.fs.Stat(name)
	if err != nil {
		return 0, a.err(err)
	}
	return linkCount(fi)
}

type aferoFS struct {
	fs     afero.Fs
	mapErr func(error) error
}

func (a aferoFS) err(err error) error {
	if err == nil {
		return nil
	}
	return a.mapErr(err)
}

func (a aferoFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := a.fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, a.err(err)
	}
	return aferoFile{f, a}, nil
}

func (a aferoFS) Truncate(name string, size int64) error {
	f, err := a.fs.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return a.err(err)
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return a.err(err)
}

func (a aferoFS) Rename(oldname, newname string) error { return a.err(a.fs.Rename(oldname, newname)) }
func (a aferoFS) Remove(name string) error             { return a.err(a.fs.Remove(name)) }

func (a aferoFS) Stat(name string) (int64, error) {
	fi, err := a.fs.Stat(name)
	if err != nil {
		return 0, a.err(err)
	}
	return fi.Size(), nil
}

func (a aferoFS) ReadFile(name string) ([]byte, error) {
	data, err := afero.ReadFile(a.fs, name)
	return data, a.err(err)
}

type aferoFile struct {
	f afero.File
	a aferoFS
}

func (f aferoFile) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	return n, f.a.err(err)
}

func (f aferoFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(p, off)
	return n, f.a.err(err)
}

func (f aferoFile) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	return n, f.a.err(err)
}

func (f aferoFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.f.WriteAt(p, off)
	return n, f.a.err(err)
}

func (f aferoFile) Seek(off int64, whence int) (int64, error) {
	n, err := f.f.Seek(off, whence)
	return n, f.a.err(err)
}

func (f aferoFile) Truncate(size int64) error { return f.a.err(f.f.Truncate(size)) }
func (f aferoFile) Sync() error               { return f.a.err(f.f.Sync()) }
func (f aferoFile) Close() error              { return f.a.err(f.f.Close()) }

func (f aferoFile) Stat() (int64, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return 0, f.a.err(err)
	}
	return fi.Size(), nil
}
