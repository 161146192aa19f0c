package sftpfs

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/afero"
)

// Symbolic links.
//
// Links are made and read as they are stored: a target is the server's
// text, followed (when a program follows it through a mount) by the
// client's kernel, so that an absolute target names a client's path. Stat
// and OpenFile follow a link on the server, as its stat and open do;
// Remove and Rename act on a link itself, and so does the Stat of
// NoFollow. SFTP (version 3, with the extensions of OpenSSH that
// github.com/pkg/sftp speaks) has no call that changes a link itself:
// Chmod, Chown and Chtimes of a link fail with errors.ErrUnsupported
// rather than change what it points at, on the server, perhaps outside
// the root.

var _ afero.Symlinker = (*Fs)(nil)

// NoFollow returns the same filesystem with a Stat that describes a link
// itself, not what it points at, as a FUSE mount wants (the kernel
// follows links). Closing either closes both.
func (f *Fs) NoFollow() afero.Fs { return noFollow{f} }

// noFollow is an Fs whose Stat is its LstatIfPossible.
type noFollow struct{ *Fs }

func (n noFollow) Stat(name string) (os.FileInfo, error) {
	info, _, err := n.LstatIfPossible(name)
	return info, err
}

// LstatIfPossible returns the FileInfo of the named file, not following
// a link (but the root, when it is one); it always can.
func (f *Fs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	var info os.FileInfo
	err := f.call(true, func(s *session) (err error) {
		info, err = f.lstat(s, f.remote(name))
		return err
	})
	if err != nil {
		return nil, true, f.pathError("lstat", name, err)
	}
	return info, true, nil
}

// SymlinkIfPossible makes newname a link to oldname, as it is.
func (f *Fs) SymlinkIfPossible(oldname, newname string) error {
	p := f.remote(newname)
	err := f.call(false, func(s *session) error {
		return refused(s.client, existed(s.client, s.client.Symlink(oldname, p), p), p)
	})
	return linkError("symlink", oldname, newname, f.tooLong(err, newname))
}

// ReadlinkIfPossible returns the target of the named link.
func (f *Fs) ReadlinkIfPossible(name string) (string, error) {
	var target string
	err := f.call(true, func(s *session) (err error) {
		target, err = s.client.ReadLink(f.remote(name))
		return err
	})
	if err != nil {
		return "", f.pathError("readlink", name, err)
	}
	return target, nil
}

// Chmod changes the named file's mode; not a link's (errors.ErrUnsupported).
func (f *Fs) Chmod(name string, mode os.FileMode) error {
	return f.setstat("chmod", name, func(s *session, p string) error {
		return s.client.Chmod(p, mode)
	})
}

// Chown changes the named file's owner and group; not a link's
// (errors.ErrUnsupported).
func (f *Fs) Chown(name string, uid, gid int) error {
	return f.setstat("chown", name, func(s *session, p string) error {
		return s.client.Chown(p, uid, gid)
	})
}

// Chtimes changes the named file's access and modification times; not a
// link's (errors.ErrUnsupported).
func (f *Fs) Chtimes(name string, atime, mtime time.Time) error {
	return f.setstat("chtimes", name, func(s *session, p string) error {
		return s.client.Chtimes(p, atime, mtime)
	})
}

// lstat is the server's lstat of p, or its stat of the root: a root that
// is a link stands for the directory it points at.
func (f *Fs) lstat(s *session, p string) (os.FileInfo, error) {
	if p == f.root {
		return s.client.Stat(p)
	}
	return s.client.Lstat(p)
}

// setstat runs set, a setstat of the server's path, unless the named file
// is a link, which the server would follow. A link made in its place
// between the two round trips is followed.
func (f *Fs) setstat(op, name string, set func(s *session, p string) error) error {
	p := f.remote(name)
	return f.pathError(op, name, f.call(true, func(s *session) error {
		info, err := f.lstat(s, p)
		if err != nil {
			return err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			return errors.ErrUnsupported
		}
		return refused(s.client, set(s, p), p)
	}))
}
