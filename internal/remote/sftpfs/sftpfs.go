// Package sftpfs is an afero.Fs over a directory of an SSH server, spoken
// to with SFTP (github.com/pkg/sftp over golang.org/x/crypto/ssh).
//
// The server's host key is checked against known_hosts files; only
// Config.InsecureIgnoreHostKey, which a user must ask for by name, skips
// the check. The client asks the server for a key of the types known_hosts
// holds for it, so that a server with several keys shows the one known.
// Users log in with keys: those of a running ssh-agent, asked at each login,
// and private key files without a passphrase.
//
// Rename is the posix-rename@openssh.com extension, which replaces its
// target atomically as rename(2) does, so fsx's writes through a temporary
// file and a rename are atomic on the server too. A connection that stops
// answering keep-alives for the timeout is closed, which fails the calls
// waiting on it rather than leaving them hanging.
//
// A connection that is gone (the network failed, the server restarted) is
// made again by the next call, with the same checks, one reconnection at a
// time and with a backoff after failed ones. Calls that only read, and
// reads of files open only for reading, are made once more on the new
// connection; a file open for writing fails with ErrConnectionLost.
package sftpfs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"sync"
	"syscall"
	"time"

	"github.com/pkg/sftp"
	"github.com/spf13/afero"
	"golang.org/x/crypto/ssh"

	"github.com/b14fs/b14fs/internal/fsutil/umask"
	"github.com/b14fs/b14fs/internal/remote/listing"
)

// Config says how to reach and log in to the server.
type Config struct {
	// Addr is the server's host:port.
	Addr string
	// User is the user to log in as.
	User string
	// KeyFiles are private key files to log in with; empty means the
	// default ones of ~/.ssh that exist (id_ed25519, id_ecdsa, id_rsa).
	// The keys of the ssh-agent at $SSH_AUTH_SOCK (as it was at Dial) are
	// tried first, asked for at each login, the reconnections' too.
	KeyFiles []string
	// KnownHosts are the known_hosts files the server's key must be in;
	// empty means ~/.ssh/known_hosts.
	KnownHosts []string
	// InsecureIgnoreHostKey accepts any host key: anyone between this
	// machine and the server can then read and change the files.
	InsecureIgnoreHostKey bool
	// Timeout bounds connecting and logging in (again, after the
	// connection was lost), and how long the connection may leave
	// keep-alives unanswered; zero means DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout is the timeout unless Config.Timeout says otherwise.
const DefaultTimeout = 30 * time.Second

// ErrConnectionLost is the error of the calls on a file that was open for
// writing when the connection to the server was lost: what was written
// to it may not all be on the server. (fsx writes a new file's content to
// a temporary file renamed over it at Close, so the file keeps its old
// content.)
var ErrConnectionLost = errors.New("the connection to the server was lost while the file was open for writing: what was written may not all be stored")

// ErrChanged is the error of a read of a file whose connection was lost
// and that, opened again, is no longer the file it was (another size or
// modification time).
var ErrChanged = errors.New("the file changed on the server while the connection was lost")

// Fs is the afero.Fs of a directory on an SFTP server. Close it to close
// the connection.
type Fs struct {
	cfg    Config            // with the timeout set
	login  *ssh.ClientConfig // how to log in, each time, but the keys
	keys   *keys
	root   string
	ctx    context.Context // done once closed
	cancel context.CancelFunc
	wg     sync.WaitGroup // the goroutines watching the connections

	mu       sync.Mutex
	cur      *session // the connection, perhaps gone
	redial   *redial  // the reconnection under way, if any
	failures int      // reconnections that failed in a row
	retryAt  time.Time
	lastErr  error // of the last reconnection, while it failed
	closed   bool

	nameMaxOnce sync.Once
	maxName     int // nameMax's answer
}

var _ afero.Fs = (*Fs)(nil)

// Dial connects to the server, logs in and returns the filesystem of the
// directory root there (relative to the user's login directory unless it
// starts with a slash).
func Dial(cfg Config, root string) (*Fs, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	hostKey, algorithms, err := hostKeys(cfg)
	if err != nil {
		return nil, err
	}
	keys, err := loadKeys(cfg.KeyFiles)
	if err != nil {
		return nil, err
	}
	if root == "" {
		root = "."
	}
	f := &Fs{cfg: cfg, root: path.Clean(root), keys: keys, login: &ssh.ClientConfig{
		User:              cfg.User,
		HostKeyCallback:   hostKey,
		HostKeyAlgorithms: algorithms,
		Timeout:           cfg.Timeout,
	}}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	s, err := f.dial()
	if err == nil {
		f.mu.Lock()
		err = f.adopt(s)
		f.mu.Unlock()
	}
	if err != nil {
		f.cancel()
		return nil, err
	}
	return f, nil
}

// Close closes the connection, and waits for what watched it to end.
func (f *Fs) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	s := f.cur
	f.mu.Unlock()
	f.cancel()
	s.kill()
	f.wg.Wait()
	return nil
}

// Name returns "sftp".
func (f *Fs) Name() string { return "sftp" }

// HighLatency reports that each call waits for a round trip to the server
// (fsx.HighLatency).
func (f *Fs) HighLatency() bool { return true }

// CheapLookups reports that a lookup costs the server an lstat, where
// something is or not (fsx.CheapLookups).
func (f *Fs) CheapLookups() bool { return true }

// remote returns the server's path of name, which stays inside the root.
func (f *Fs) remote(name string) string {
	return path.Join(f.root, path.Clean("/"+name))
}

// asPathError returns err as a *fs.PathError naming name.
func asPathError(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// pathError returns err, the server's answer for name, as a
// *fs.PathError naming name (see tooLong).
func (f *Fs) pathError(op, name string, err error) error {
	return asPathError(op, name, f.tooLong(err, name))
}

// StatVFS returns what the server tells of the file system the root is in
// (statvfs@openssh.com): its size, free space and longest name. It fails
// with errors.ErrUnsupported where the server has no such extension.
func (f *Fs) StatVFS() (*sftp.StatVFS, error) {
	var st *sftp.StatVFS
	err := f.call(true, func(s *session) (err error) {
		st, err = statVFS(s.client, f.root)
		return err
	})
	if err != nil {
		return nil, asPathError("statvfs", ".", err)
	}
	return st, nil
}

// Create creates or truncates the named file.
func (f *Fs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Open opens the named file or directory for reading.
func (f *Fs) Open(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile opens the named file with the flags of os.OpenFile; a file it
// creates gets the mode perm.
func (f *Fs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	p := f.remote(name)
	writable := flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0
	var info os.FileInfo
	var opened *file // a file open for reading, opened with the Stat
	err := f.call(true, func(s *session) (err error) {
		if exclusive(flag) {
			// No Stat first: the open fails where anything is there.
			return fs.ErrNotExist
		}
		if writable {
			info, err = s.client.Stat(p)
			return err
		}
		// One round trip: the open goes with the Stat. A directory opened
		// so is closed without waiting.
		stat := make(chan error, 1)
		go func() {
			var err error
			info, err = s.client.Stat(p)
			stat <- err
		}()
		sf, openErr := s.client.Open(p)
		err = <-stat
		if openErr == nil && (err != nil || info.IsDir()) {
			go sf.Close()
		}
		if err == nil && !info.IsDir() {
			if openErr != nil {
				return openErr
			}
			opened = &file{fs: f, name: name, path: p, opened: info, s: s, sf: sf}
		}
		return err
	})
	switch {
	case opened != nil:
		return opened, nil
	case !writable && errors.Is(err, fs.ErrNotExist):
		return nil, f.pathError("open", name, err)
	case err == nil && info.IsDir():
		if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
			return nil, asPathError("open", name, syscall.EISDIR)
		}
		return listing.NewDir(name, info, func() ([]os.FileInfo, error) {
			var entries []os.FileInfo
			err := f.call(true, func(s *session) (err error) {
				entries, err = s.client.ReadDir(p)
				return err
			})
			if err != nil {
				return nil, f.pathError("readdir", name, err)
			}
			return entries, nil
		}), nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, f.pathError("open", name, err)
	case err == nil && exclusive(flag):
		return nil, asPathError("open", name, fs.ErrExist)
	}
	created := err != nil && flag&os.O_CREATE != 0
	file := &file{fs: f, name: name, path: p, opened: info, writable: writable}
	err = f.call(!file.writable, func(s *session) error {
		sf, err := s.client.OpenFile(p, flag)
		if err != nil {
			if exclusive(flag) {
				// Another client created it since the Stat.
				err = existed(s.client, err, p)
			}
			return refused(s.client, err, p)
		}
		if created {
			// The server makes the file with its own umask; the mode is
			// perm less this process's, as os.OpenFile's.
			if err := sf.Chmod(umask.Apply(perm.Perm())); err != nil {
				sf.Close()
				return err
			}
		}
		file.s, file.sf = s, sf
		return nil
	})
	if err != nil {
		return nil, f.pathError("open", name, err)
	}
	return file, nil
}

// exclusive reports whether flag asks to create a file that must not exist.
func exclusive(flag int) bool { return flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL }

// Mkdir makes a directory with the mode perm.
func (f *Fs) Mkdir(name string, perm os.FileMode) error {
	p := f.remote(name)
	return f.pathError("mkdir", name, f.call(false, func(s *session) error {
		if err := s.client.Mkdir(p); err != nil {
			return refused(s.client, existed(s.client, err, p), p)
		}
		return s.client.Chmod(p, umask.Apply(perm.Perm())) // as os.Mkdir's
	}))
}

// MkdirAll makes a directory and the missing ones above it.
func (f *Fs) MkdirAll(name string, perm os.FileMode) error {
	return f.pathError("mkdir", name, f.call(true, func(s *session) error {
		return s.client.MkdirAll(f.remote(name))
	}))
}

// Remove removes a file or an empty directory.
func (f *Fs) Remove(name string) error {
	p := f.remote(name)
	if p == f.root {
		return asPathError("remove", name, fs.ErrPermission)
	}
	return f.pathError("remove", name, f.call(false, func(s *session) error {
		err := s.client.Remove(p)
		if plainFailure(err) && nonEmptyDir(s.client, p) {
			return syscall.ENOTEMPTY
		}
		return refused(s.client, err, p)
	}))
}

// RemoveAll removes name and everything under it; never the root.
func (f *Fs) RemoveAll(name string) error {
	p := f.remote(name)
	if p == f.root {
		return asPathError("removeall", name, fs.ErrPermission)
	}
	return f.pathError("removeall", name, f.call(true, func(s *session) error {
		if _, err := s.client.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return s.client.RemoveAll(p)
	}))
}

// SyncDir does nothing, at once: the server's directories are not flushed
// (atomicfile.DirSyncer). A rename is as durable as the server's
// filesystem makes it without a flush, which leaves the old file or the
// new one after a crash of the server, never a part of either.
func (f *Fs) SyncDir(dir string) error { return nil }

// Rename renames oldname to newname, replacing newname atomically if it
// exists (posix-rename@openssh.com).
func (f *Fs) Rename(oldname, newname string) error {
	err := f.call(false, func(s *session) error {
		from, to := f.remote(oldname), f.remote(newname)
		err := s.client.PosixRename(from, to)
		if plainFailure(err) || errors.Is(err, fs.ErrNotExist) {
			return renameFailure(s.client, err, from, to)
		}
		return err
	})
	return linkError("rename", oldname, newname, f.tooLong(err, oldname, newname))
}

// linkError returns err as an *os.LinkError naming both names.
func linkError(op, oldname, newname string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &os.LinkError{Op: op, Old: oldname, New: newname, Err: err}
}

// Stat returns the FileInfo of the named file, following links.
func (f *Fs) Stat(name string) (os.FileInfo, error) {
	var info os.FileInfo
	err := f.call(true, func(s *session) (err error) {
		info, err = s.client.Stat(f.remote(name))
		return err
	})
	if err != nil {
		return nil, f.pathError("stat", name, err)
	}
	return info, nil
}
