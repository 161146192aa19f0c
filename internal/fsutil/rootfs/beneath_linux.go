package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"sync"
	"syscall"
	"time"

	"github.com/b14fs/b14fs/internal/fsutil/unixmode"
	"golang.org/x/sys/unix"
)

// beneath resolves names in the directory with one openat2 call
// (RESOLVE_BENEATH: the kernel refuses any step out of it, by "..", a link
// or a link swapped in underneath, with EXDEV), where os.Root opens every
// directory on the way, one call and one close each, and sets up a poller
// for each file it opens. Linux 5.6 and later; where openat2 is missing or
// refused (old kernels, seccomp filters), Open finds it so and every
// operation goes through the os.Root.
type beneath struct {
	mu sync.RWMutex // held shared while fd is in use, so Close waits
	fd int          // an O_PATH descriptor of the directory; -1 once closed
}

const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

// openBeneath returns the fast path over the directory r has open, or nil
// where openat2 cannot serve it.
func openBeneath(r *os.Root) *beneath {
	fd, err := unix.Openat2(unix.AT_FDCWD, r.Name(), &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC})
	if err != nil {
		return nil
	}
	// The same directory as the os.Root's, not another one renamed to its
	// name meanwhile.
	var st unix.Stat_t
	if info, err := r.Stat("."); err == nil && unix.Fstat(fd, &st) == nil {
		if rst, ok := info.Sys().(*syscall.Stat_t); ok && st.Dev == rst.Dev && st.Ino == rst.Ino {
			return &beneath{fd: fd}
		}
	}
	unix.Close(fd)
	return nil
}

// close closes the descriptor, once the calls using it have returned.
func (b *beneath) close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fd >= 0 {
		unix.Close(b.fd)
		b.fd = -1
	}
}

// open opens p, a path from rel, with openat2 beneath the directory. ok is
// false when the fast path is not there (or closed): the caller then goes
// through the os.Root, which reports a closed directory its way.
func (b *beneath) open(p string, flags int, mode uint32) (fd int, ok bool, err error) {
	if b == nil || len(p) >= unix.PathMax {
		// A path too long for one call is left to the os.Root, which
		// takes it a directory at a time.
		return -1, false, nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.fd < 0 {
		return -1, false, nil
	}
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolve}
	if flags&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
		how.Mode = uint64(mode)
	}
	for range 16 {
		fd, err = unix.Openat2(b.fd, p, &how)
		switch err {
		case unix.ENAMETOOLONG:
			return -1, false, nil // a name too long: the os.Root says so its way
		case unix.EINTR, unix.EAGAIN:
			// EAGAIN: a rename raced with a ".." in the path; try again.
		default:
			return fd, true, beneathErr(err)
		}
	}
	return -1, false, nil // raced 16 times: left to the os.Root
}

// beneathErr reports a step out of the directory as os.Root does (fix makes
// it a permission error).
func beneathErr(err error) error {
	if err == unix.EXDEV {
		return errEscapes
	}
	return err
}

var errEscapes = errors.New("path escapes from parent")

// stat describes p, following a last link (inside the directory) when
// follow is set. ok is false when the fast path is not there.
func (b *beneath) stat(p string, follow bool) (fi os.FileInfo, ok bool, err error) {
	if p == "." {
		return nil, false, nil // the os.Root names the directory its way
	}
	flags := unix.O_PATH
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, ok, err := b.open(p, flags, 0)
	if !ok {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, &fs.PathError{Op: "statat", Path: p, Err: err}
	}
	defer unix.Close(fd)
	info := &fileInfo{name: path.Base(p)}
	if err := syscall.Fstat(fd, &info.st); err != nil {
		return nil, true, &fs.PathError{Op: "statat", Path: p, Err: err}
	}
	return info, true, nil
}

// openFile opens p as os.Root.OpenFile does. A directory opened for
// reading is left to the os.Root (ok false): its ReadDir then describes the
// entries from the directory's descriptor, where a file from os.NewFile
// would look them up by path.
func (b *beneath) openFile(p string, flag int, perm os.FileMode, name string) (f *os.File, ok bool, err error) {
	if flag&unix.O_DIRECTORY != 0 || p == "." {
		return nil, false, nil
	}
	fd, ok, err := b.open(p, flag, unixmode.Perm(perm))
	if !ok {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, &fs.PathError{Op: "openat", Path: p, Err: err}
	}
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE) == 0 {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT == unix.S_IFDIR {
			unix.Close(fd)
			return nil, false, nil
		}
	}
	return os.NewFile(uintptr(fd), name), true, nil
}

// syncDir flushes the directory p to stable storage. ok is false when the
// fast path is not there.
func (b *beneath) syncDir(p string) (ok bool, err error) {
	fd, ok, err := b.open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if !ok || err != nil {
		return ok, err
	}
	defer unix.Close(fd)
	return true, unix.Fsync(fd)
}

// parent opens the directory holding p, for the *at calls; the caller
// closes it. ok is false when the fast path is not there.
func (b *beneath) parent(p string) (dirfd int, ok bool, err error) {
	return b.open(path.Dir(p), unix.O_PATH|unix.O_DIRECTORY, 0)
}

// at runs do on the directory holding p, opened beneath the directory,
// and p's last element, as the os.Root's operation op would, reporting
// do's error as a *fs.PathError of op. With follow, a last element that is
// a link is left to the os.Root (ok false), which follows it inside the
// directory; do then acts on the name itself, not following a link that
// another program puts there meanwhile (as the os.Root does). ok is false
// when the fast path is not there.
func (b *beneath) at(op, p string, follow bool, do func(dirfd int, base string) error) (ok bool, err error) {
	if p == "." {
		return false, nil
	}
	dirfd, ok, err := b.parent(p)
	if !ok {
		return false, nil
	}
	if err == nil {
		defer unix.Close(dirfd)
		base := path.Base(p)
		var st unix.Stat_t
		if follow && unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return false, nil
		}
		err = do(dirfd, base)
	}
	if err != nil {
		return true, &fs.PathError{Op: op, Path: p, Err: beneathErr(err)}
	}
	return true, nil
}

// remove removes p, a file or an empty directory, as os.Root.Remove does.
func (b *beneath) remove(p string) (ok bool, err error) {
	return b.at("removeat", p, false, func(dirfd int, base string) error {
		err := unix.Unlinkat(dirfd, base, 0)
		if err == nil {
			return nil
		}
		derr := unix.Unlinkat(dirfd, base, unix.AT_REMOVEDIR)
		switch {
		case derr == nil:
			return nil
		case derr != unix.ENOTDIR:
			return derr // a directory: why it cannot go
		}
		return err
	})
}

// mkdir makes the directory p.
func (b *beneath) mkdir(p string, perm os.FileMode) (ok bool, err error) {
	return b.at("mkdirat", p, false, func(dirfd int, base string) error {
		return unix.Mkdirat(dirfd, base, unixmode.Perm(perm))
	})
}

// chmod sets the mode of the file p names, following a last link.
// Without fchmodat2 (Linux 6.6), the os.Root does it.
func (b *beneath) chmod(p string, mode os.FileMode) (ok bool, err error) {
	ok, err = b.at("chmodat", p, true, func(dirfd int, base string) error {
		return unix.Fchmodat(dirfd, base, unixmode.Perm(mode), unix.AT_SYMLINK_NOFOLLOW)
	})
	if errors.Is(err, unix.EOPNOTSUPP) {
		return false, nil
	}
	return ok, err
}

// lchown sets the owner and group of p, not following a link.
func (b *beneath) lchown(p string, uid, gid int) (ok bool, err error) {
	return b.at("lchownat", p, false, func(dirfd int, base string) error {
		return unix.Fchownat(dirfd, base, uid, gid, unix.AT_SYMLINK_NOFOLLOW)
	})
}

// chtimes sets the access and modification times of the file p names,
// following a last link; a zero time leaves that time as it is.
func (b *beneath) chtimes(p string, atime, mtime time.Time) (ok bool, err error) {
	ts := []unix.Timespec{timespec(atime), timespec(mtime)}
	return b.at("chtimesat", p, true, func(dirfd int, base string) error {
		return unix.UtimesNanoAt(dirfd, base, ts, unix.AT_SYMLINK_NOFOLLOW)
	})
}

// readlink returns the target of the link p.
func (b *beneath) readlink(p string) (target string, ok bool, err error) {
	ok, err = b.at("readlinkat", p, false, func(dirfd int, base string) error {
		for size := 128; ; size *= 2 {
			buf := make([]byte, size)
			n, err := unix.Readlinkat(dirfd, base, buf)
			if err != nil {
				return err
			}
			if n < size {
				target = string(buf[:n])
				return nil
			}
		}
	})
	return target, ok, err
}

// symlink makes p a link to target, which it takes as it is. Its error is
// the system call's, for an *os.LinkError.
func (b *beneath) symlink(target, p string) (ok bool, err error) {
	if p == "." {
		return false, nil
	}
	dirfd, ok, err := b.parent(p)
	if ok && err == nil {
		err = unix.Symlinkat(target, dirfd, path.Base(p))
		unix.Close(dirfd)
	}
	return ok, beneathErr(err)
}

// link makes newp another name of the file oldp names, not following a
// link at oldp. Its error is the system call's, for an *os.LinkError.
func (b *beneath) link(oldp, newp string) (ok bool, err error) {
	if oldp == "." || newp == "." {
		return false, nil
	}
	olddir, ok, err := b.parent(oldp)
	if !ok || err != nil {
		return ok, err
	}
	defer unix.Close(olddir)
	newdir, ok, err := b.parent(newp)
	if !ok || err != nil {
		return ok, err
	}
	defer unix.Close(newdir)
	return true, beneathErr(unix.Linkat(olddir, path.Base(oldp), newdir, path.Base(newp), 0))
}

// timespec returns t for utimensat, the zero time as UTIME_OMIT.
func timespec(t time.Time) unix.Timespec {
	if t.IsZero() {
		return unix.Timespec{Sec: unix.UTIME_OMIT, Nsec: unix.UTIME_OMIT}
	}
	return unix.NsecToTimespec(t.UnixNano())
}

// fileInfo is an os.FileInfo made from a stat(2), as the os package makes
// them: Sys returns the *syscall.Stat_t.
type fileInfo struct {
	name string
	st   syscall.Stat_t
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.st.Size }
func (fi *fileInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *fileInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi *fileInfo) Sys() any           { return &fi.st }

func (fi *fileInfo) Mode() os.FileMode { return unixmode.FileMode(fi.st.Mode) }
