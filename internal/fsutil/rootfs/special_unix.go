//go:build unix

package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/b14fs/b14fs/internal/fsutil/unixmode"
	"golang.org/x/sys/unix"
)

// atParent runs do with a descriptor of the directory holding name, opened
// beneath the directory or through the os.Root (so never outside it), and
// name's last element.
func (f *Fs) atParent(op, name string, do func(dirfd int, base string) error) error {
	p := rel(name)
	if p == "." {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	dirfd, ok, err := f.fast.parent(p)
	switch {
	case !ok:
		d, err := f.root.Open(path.Dir(p))
		if err != nil {
			return fix(err)
		}
		defer d.Close()
		dirfd = int(d.Fd())
	case err != nil:
		return fix(&fs.PathError{Op: "openat", Path: path.Dir(p), Err: err})
	default:
		defer unix.Close(dirfd)
	}
	if err := do(dirfd, path.Base(p)); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

// Mknod makes a special file: a FIFO, a socket, or (as root) a device, of
// the type and permissions mode gives, and for a device the number dev.
func (f *Fs) Mknod(name string, mode os.FileMode, dev uint64) error {
	if mode&(os.ModeNamedPipe|os.ModeSocket|os.ModeDevice) == 0 {
		return &fs.PathError{Op: "mknod", Path: name, Err: fs.ErrInvalid}
	}
	m := unixmode.Type(mode) | unixmode.Perm(mode)
	return f.atParent("mknod", name, func(dirfd int, base string) error {
		return mknodat(dirfd, base, m, dev)
	})
}

// Lchtimes changes the access and modification times of the named file or
// link, not following a link.
func (f *Fs) Lchtimes(name string, atime, mtime time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	return f.atParent("lchtimes", name, func(dirfd int, base string) error {
		return unix.UtimesNanoAt(dirfd, base, ts, unix.AT_SYMLINK_NOFOLLOW)
	})
}

// Link makes newname another name of the file oldname names.
func (f *Fs) Link(oldname, newname string) error {
	oldp, newp := rel(oldname), rel(newname)
	if ok, err := f.fast.link(oldp, newp); ok {
		if err != nil {
			return fix(&os.LinkError{Op: "linkat", Old: oldp, New: newp, Err: err})
		}
		return nil
	}
	return fix(f.root.Link(oldp, newp))
}

// Rename renames oldname to newname, replacing what newname names as
// rename(2) does: a file, or an empty directory by a directory (which
// os.Root.Rename refuses).
func (f *Fs) Rename(oldname, newname string) error {
	err := f.atParent("rename", oldname, func(olddir int, oldbase string) error {
		return f.atParent("rename", newname, func(newdir int, newbase string) error {
			return unix.Renameat(olddir, oldbase, newdir, newbase)
		})
	})
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if inner, ok := pe.Err.(*fs.PathError); ok {
			pe = inner // the error of the inner call, about newname
		}
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: pe.Err}
	}
	return err
}

// noWait is the flag that keeps an open for reading from waiting: that of
// a FIFO waits for a writer (for ever, when none comes), where a regular
// file or a directory opens at once, as the flag changes nothing for them.
const noWait = unix.O_NONBLOCK
