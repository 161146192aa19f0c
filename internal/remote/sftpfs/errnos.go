package sftpfs

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/pkg/sftp"
)

// The errnos of what the server refuses.
//
// OpenSSH answers most errnos with SFTP's plain failure (SSH_FX_FAILURE),
// and a name too long or an invalid argument with SSH_FX_BAD_MESSAGE,
// which would all show as EIO through a mount. Where the names, or the
// server's statvfs@openssh.com, tell why, these give the errno a local
// file system gives.

// tooLong returns syscall.ENAMETOOLONG for err, the server's refusal of a
// call naming names, when one of their elements is longer than the server
// takes (OpenSSH answers that with SSH_FX_BAD_MESSAGE, which would show
// as EIO); else err.
func (f *Fs) tooLong(err error, names ...string) error {
	var se *sftp.StatusError
	if !errors.As(err, &se) || se.FxCode() != sftp.ErrSSHFxFailure && se.FxCode() != sftp.ErrSSHFxBadMessage {
		return err
	}
	for _, name := range names {
		for e := range strings.SplitSeq(name, "/") {
			if len(e) > f.nameMax() {
				return syscall.ENAMETOOLONG
			}
		}
	}
	return err
}

// nameMax returns the longest name the server takes in the root's file
// system, as its statvfs@openssh.com says, asked once; else 255, the
// common NAME_MAX.
func (f *Fs) nameMax() int {
	f.nameMaxOnce.Do(func() {
		f.maxName = 255
		if st, err := f.StatVFS(); err == nil && st.Namemax > 0 {
			f.maxName = int(st.Namemax)
		}
	})
	return f.maxName
}

// statVFSFlagReadOnly is the ST_RDONLY bit of the flags of
// statvfs@openssh.com.
const statVFSFlagReadOnly = 0x1

// statVFS returns the server's statvfs@openssh.com of p, or
// errors.ErrUnsupported where it has no such extension.
func statVFS(c *sftp.Client, p string) (*sftp.StatVFS, error) {
	if _, ok := c.HasExtension("statvfs@openssh.com"); !ok {
		return nil, errors.ErrUnsupported
	}
	return c.StatVFS(p)
}

// existed returns fs.ErrExist for err, the server's plain failure to make
// p, where p exists: OpenSSH's answer for EEXIST.
func existed(c *sftp.Client, err error, p string) error {
	if plainFailure(err) {
		if _, lerr := c.Lstat(p); lerr == nil {
			return fs.ErrExist
		}
	}
	return err
}

// refused returns the errno a local file system gives for a change at p
// that the server refused with a plain failure, OpenSSH's answer for most
// errnos, where the statvfs of p's directory tells why: EROFS on a
// read-only file system, ENOSPC on one with less than 1 MiB free for
// unprivileged users; else err (a quota: EIO through a mount).
func refused(c *sftp.Client, err error, p string) error {
	if !plainFailure(err) {
		return err
	}
	st, serr := statVFS(c, path.Dir(p))
	switch {
	case serr != nil:
	case st.Flag&statVFSFlagReadOnly != 0:
		return syscall.EROFS
	case st.Bavail*st.Frsize < 1<<20:
		return syscall.ENOSPC
	}
	return err
}

// plainFailure reports whether err is SFTP's plain failure
// (SSH_FX_FAILURE), which a server (OpenSSH) answers for most errnos, so
// that a removal or rename that a local file system fails with ENOTEMPTY,
// EISDIR or ENOTDIR would show as EIO.
func plainFailure(err error) bool {
	var se *sftp.StatusError
	return errors.As(err, &se) && se.FxCode() == sftp.ErrSSHFxFailure
}

// nonEmptyDir reports whether p is a directory with entries.
func nonEmptyDir(c *sftp.Client, p string) bool {
	if info, err := c.Lstat(p); err != nil || !info.IsDir() {
		return false
	}
	entries, err := c.ReadDir(p)
	return err == nil && len(entries) > 0
}

// renameFailure returns the errno a local file system gives for renaming
// from over to where the server said no more than plainFailure, or that a
// file does not exist (OpenSSH's answer for ENOTDIR): EXDEV between two
// file systems, EISDIR, ENOTDIR or ENOTEMPTY when the two names say why,
// else what refused finds, else err.
func renameFailure(c *sftp.Client, err error, from, to string) error {
	if plainFailure(err) {
		// Two file systems (their IDs differ): EXDEV, on which mv copies.
		fst, ferr := statVFS(c, path.Dir(from))
		tst, terr := statVFS(c, path.Dir(to))
		if ferr == nil && terr == nil && fst.Fsid != 0 && tst.Fsid != 0 && fst.Fsid != tst.Fsid {
			return syscall.EXDEV
		}
	}
	fi, ferr := c.Lstat(from)
	ti, terr := c.Lstat(to)
	switch {
	case ferr != nil || terr != nil:
	case ti.IsDir() && !fi.IsDir():
		return syscall.EISDIR
	case fi.IsDir() && !ti.IsDir():
		return syscall.ENOTDIR
	case fi.IsDir() && nonEmptyDir(c, to):
		return syscall.ENOTEMPTY
	}
	return refused(c, err, to)
}
