package torrent

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

var (
	// ErrNotRegular is the error of a file that Create or Verify will not
	// read because it is not a regular file: a FIFO, a socket, a device.
	ErrNotRegular = errors.New("not a regular file")
	// ErrOutside is the error of a symbolic link of a RootFS that leads
	// out of its directory (or is absolute).
	ErrOutside = errors.New("a symbolic link that leads out of the directory")
	// ErrLinkLoop is the error of a symbolic link to a directory that
	// holds it, which Create would list for ever.
	ErrLinkLoop = errors.New("a symbolic link to a directory that holds it")
)

// RootFS returns the directory of r as a file system for Create and
// Verify, in which no name leads out of it: a symbolic link may lead to a
// file or directory inside it, and one that leads out of it, or is
// absolute, is an error (ErrOutside), as os.Root makes it. Stat follows
// links; ReadDir lists a link as a link.
//
// Open looks at the type of what it opens first, and opens only regular
// files and directories, without waiting (O_NONBLOCK): a FIFO, a socket
// or a device is ErrNotRegular at once, never waited on, even one put in
// a file's place between the look and the open.
func RootFS(r *os.Root) fs.FS { return rootFS{r} }

type rootFS struct{ r *os.Root }

var (
	_ fs.StatFS    = rootFS{}
	_ fs.ReadDirFS = rootFS{}
)

func (f rootFS) Open(name string) (fs.File, error) {
	if !validPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fi, err := f.Stat(name)
	if err == nil && !openable(fi) {
		err = &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	if err != nil {
		return nil, err
	}
	file, err := f.r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, outside(err)
	}
	if fi, err = file.Stat(); err == nil && !openable(fi) {
		err = &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	if err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

// validPath reports whether name is a path a RootFS takes: fs.ValidPath's
// rules, but for UTF-8 (and NUL refused). A file name on Unix is any bytes
// but '/' and NUL, and torrents made by others (mktorrent, libtorrent) hold
// names that are not UTF-8: io/fs's rule left them out of Create and
// missing to Verify.
func validPath(name string) bool {
	if name == "." {
		return true
	}
	for {
		elem, rest, more := strings.Cut(name, "/")
		if elem == "" || elem == "." || elem == ".." || strings.IndexByte(elem, 0) >= 0 {
			return false
		}
		if !more {
			return true
		}
		name = rest
	}
}

// openable reports whether Open opens what fi describes.
func openable(fi fs.FileInfo) bool { return fi.Mode().IsRegular() || fi.IsDir() }

func (f rootFS) Stat(name string) (fs.FileInfo, error) {
	if !validPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	fi, err := f.r.Stat(name)
	return fi, outside(err)
}

func (f rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	d, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.(*os.File).ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// outside returns err with ErrOutside in place of os.Root's error for a
// name that leads out of its directory, which the os package does not
// export.
func outside(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent" {
		return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: ErrOutside}
	}
	return err
}
