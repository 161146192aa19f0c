package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A Mknoder is a filesystem that makes special files (internal/fsutil/rootfs as a
// base; an Fs over such a base is one too).
type Mknoder interface {
	// Mknod makes a FIFO, a socket or a device of the type and
	// permissions mode gives, a device numbered dev.
	Mknod(name string, mode os.FileMode, dev uint64) error
}

// A Lchtimeser is a filesystem that changes the times of a link itself
// (internal/fsutil/rootfs as a base; an Fs over such a base is one too).
type Lchtimeser interface {
	// Lchtimes changes the times of the named file or link, not
	// following a link.
	Lchtimes(name string, atime, mtime time.Time) error
}

// A HardLinker is a filesystem with hard links (internal/fsutil/rootfs as a base;
// an Fs over such a base is one too).
type HardLinker interface {
	// Link makes newname another name of the file oldname names.
	Link(oldname, newname string) error
}

// Link makes newname another name of the file, link or special file
// oldname names, stored under the mapped form of newname: both names show
// one file, whose writes through either are seen through both (fsx stores
// a file with several names in place). It fails with
// errors.ErrUnsupported when the base is no HardLinker, with
// syscall.EPERM for a directory, and with fs.ErrExist when newname shows
// anything already.
func (f *Fs) Link(oldname, newname string) error {
	oldname, newname = filepath.Clean(oldname), filepath.Clean(newname)
	if err := f.hardLink(oldname, newname); err != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: unwrapPath(err)}
	}
	return nil
}

func (f *Fs) hardLink(oldname, newname string) error {
	hl, ok := f.base.(HardLinker)
	if !ok {
		return errors.ErrUnsupported
	}
	from, err := f.existing(oldname)
	if err != nil {
		return err
	}
	if from.info.IsDir() {
		return syscall.EPERM
	}
	to, err := f.newName(from, newname)
	if err != nil {
		return err
	}
	if t, err := f.resolve(newname); err == nil && t.info != nil {
		return fs.ErrExist
	}
	return f.changeStored(from.stored, true, func(stored string) error { return hl.Link(stored, to) })
}

// Mknod makes a special file (a FIFO, a socket or a device: see Mknoder),
// stored as itself under the mapped form of name, and shown as it is. It
// fails with errors.ErrUnsupported when the base is no Mknoder, and with
// fs.ErrExist when name shows anything already.
func (f *Fs) Mknod(name string, mode os.FileMode, dev uint64) error {
	name = filepath.Clean(name)
	if err := f.mknod(name, mode, dev); err != nil {
		return pathError("mknod", name, err)
	}
	return nil
}

func (f *Fs) mknod(name string, mode os.FileMode, dev uint64) error {
	mk, ok := f.base.(Mknoder)
	if !ok {
		return errors.ErrUnsupported
	}
	stored, err := f.newEntryPath(name)
	if err != nil {
		return err
	}
	return mk.Mknod(stored, mode, dev)
}

// newEntryPath returns the base path a new link or special file named name
// is stored at, or fs.ErrExist when name shows anything already.
func (f *Fs) newEntryPath(name string) (string, error) {
	if isRoot(name) {
		return "", fs.ErrExist
	}
	dir, base := filepath.Split(name)
	stored, mapped := f.names.storedName(base)
	switch {
	case mapped:
		stored = dir + stored
	case f.showsUnmapped(base):
		stored = name
	default:
		return "", ErrNotMapped
	}
	if _, _, err := f.LstatIfPossible(name); err == nil {
		return "", fs.ErrExist
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return stored, nil
}

// Lchtimes changes the access and modification times of the named file,
// or of the named link itself. It fails with errors.ErrUnsupported for a
// link when the base is no Lchtimeser.
func (f *Fs) Lchtimes(name string, atime, mtime time.Time) error {
	name = filepath.Clean(name)
	l, isLink, err := f.link(name)
	if err != nil {
		return pathError("lchtimes", name, err)
	}
	if !isLink {
		return f.Chtimes(name, atime, mtime)
	}
	lc, ok := f.base.(Lchtimeser)
	if !ok {
		return pathError("lchtimes", name, errors.ErrUnsupported)
	}
	if err := lc.Lchtimes(l.stored, atime, mtime); err != nil {
		return pathError("lchtimes", name, err)
	}
	return nil
}
