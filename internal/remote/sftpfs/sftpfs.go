// Package sftpfs is an afero.Fs over a directory of an SSH server, spoken
// to with SFTP (github.com/pkg/sftp over golang.org/x/crypto/ssh).
//
// The server's host key is checked against known_hosts files; only
// Config.InsecureIgnoreHostKey, which a user must ask for by name, skips
// the check. Users log in with keys: those of a running ssh-agent and
// private key files without a passphrase.
//
// Rename is the posix-rename@openssh.com extension, which replaces its
// target atomically as rename(2) does, so fsx's writes through a temporary
// file and a rename are atomic on the server too. A connection that stops
// answering keep-alives for the timeout is closed, which fails the calls
// waiting on it rather than leaving them hanging.
package sftpfs

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"

	"github.com/pkg/sftp"
	"github.com/spf13/afero"
	"golang.org/x/crypto/ssh"

	"github.com/b14fs/b14fs/internal/remote/listing"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Config says how to reach and log in to the server.
type Config struct {
	// Addr is the server's host:port.
	Addr string
	// User is the user to log in as.
	User string
	// KeyFiles are private key files to log in with; empty means the
	// default ones of ~/.ssh that exist (id_ed25519, id_ecdsa, id_rsa).
	// The keys of the ssh-agent at $SSH_AUTH_SOCK are tried too.
	KeyFiles []string
	// KnownHosts are the known_hosts files the server's key must be in;
	// empty means ~/.ssh/known_hosts.
	KnownHosts []string
	// InsecureIgnoreHostKey accepts any host key: anyone between this
	// machine and the server can then read and change the files.
	InsecureIgnoreHostKey bool
	// Timeout bounds connecting and logging in, and how long the
	// connection may leave keep-alives unanswered; zero means
	// DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout is the timeout unless Config.Timeout says otherwise.
const DefaultTimeout = 30 * time.Second

// Fs is the afero.Fs of a directory on an SFTP server. Close it to close
// the connection.
type Fs struct {
	conn   *ssh.Client
	client *sftp.Client
	root   string
	stop   chan struct{}
}

var _ afero.Fs = (*Fs)(nil)

// Dial connects to the server, logs in and returns the filesystem of the
// directory root there (relative to the user's login directory unless it
// starts with a slash).
func Dial(cfg Config, root string) (*Fs, error) {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hostKey, err := hostKeyCallback(cfg)
	if err != nil {
		return nil, err
	}
	auth, err := authMethods(cfg.KeyFiles)
	if err != nil {
		return nil, err
	}
	conn, err := ssh.Dial("tcp", cfg.Addr, &ssh.ClientConfig{
		User:            cfg.User,
		Auth:            auth,
		HostKeyCallback: hostKey,
		Timeout:         timeout,
	})
	if err != nil {
		return nil, fmt.Errorf("sftp: %s@%s: %w", cfg.User, cfg.Addr, explainHostKey(cfg, err))
	}
	client, err := sftp.NewClient(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("sftp: %s@%s: starting SFTP: %w", cfg.User, cfg.Addr, err)
	}
	if root == "" {
		root = "."
	}
	f := &Fs{conn: conn, client: client, root: path.Clean(root), stop: make(chan struct{})}
	info, err := client.Stat(f.root)
	if err == nil && !info.IsDir() {
		err = syscall.ENOTDIR
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("sftp: %s@%s: %s: %w", cfg.User, cfg.Addr, f.root, err)
	}
	go f.keepAlive(timeout)
	return f, nil
}

// keepAlive closes the connection when the server leaves a keep-alive
// unanswered for timeout, so that calls waiting on it fail.
func (f *Fs) keepAlive(timeout time.Duration) {
	tick := time.NewTicker(timeout / 3)
	defer tick.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-tick.C:
		}
		answered := make(chan struct{})
		go func() {
			f.conn.SendRequest("keepalive@openssh.com", true, nil)
			close(answered)
		}()
		select {
		case <-answered:
		case <-time.After(timeout):
			f.conn.Close()
			return
		case <-f.stop:
			return
		}
	}
}

// Close closes the connection.
func (f *Fs) Close() error {
	select {
	case <-f.stop:
		return nil
	default:
		close(f.stop)
	}
	f.client.Close()
	return f.conn.Close()
}

// hostKeyCallback returns the check of the server's host key cfg asks for.
func hostKeyCallback(cfg Config) (ssh.HostKeyCallback, error) {
	if cfg.InsecureIgnoreHostKey {
		return ssh.InsecureIgnoreHostKey(), nil
	}
	files := cfg.KnownHosts
	if len(files) == 0 {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("sftp: no known_hosts file: %w", err)
		}
		files = []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	cb, err := knownhosts.New(files...)
	if err != nil {
		return nil, fmt.Errorf("sftp: known_hosts: %w (add the server's key with ssh-keyscan, or pass --sftp-insecure-ignore-host-key)", err)
	}
	return cb, nil
}

// explainHostKey says what to do about a host key known_hosts rejected.
func explainHostKey(cfg Config, err error) error {
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) {
		return err
	}
	if len(ke.Want) == 0 {
		return fmt.Errorf("the server's host key is not in known_hosts (add it: ssh-keyscan -p PORT HOST >> ~/.ssh/known_hosts, after checking it; or pass --sftp-insecure-ignore-host-key): %w", err)
	}
	return fmt.Errorf("the server's host key does NOT match the one in %s:%d: someone may be in between, or the key changed: %w", ke.Want[0].Filename, ke.Want[0].Line, err)
}

// authMethods returns the ways to log in: the keys of the ssh-agent, then
// those of the key files.
func authMethods(files []string) ([]ssh.AuthMethod, error) {
	var signers []ssh.Signer
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if c, err := net.Dial("unix", sock); err == nil {
			if s, err := agent.NewClient(c).Signers(); err == nil {
				signers = append(signers, s...)
			}
		}
	}
	explicit := len(files) > 0
	if !explicit {
		if home, err := os.UserHomeDir(); err == nil {
			for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
				files = append(files, filepath.Join(home, ".ssh", name))
			}
		}
	}
	for _, file := range files {
		pem, err := os.ReadFile(file)
		if err != nil {
			if explicit {
				return nil, fmt.Errorf("sftp: key file: %w", err)
			}
			continue
		}
		s, err := ssh.ParsePrivateKey(pem)
		var missing *ssh.PassphraseMissingError
		switch {
		case errors.As(err, &missing) && !explicit:
			continue // the agent may hold it
		case errors.As(err, &missing):
			return nil, fmt.Errorf("sftp: key file %s needs a passphrase: add it to ssh-agent instead", file)
		case err != nil:
			return nil, fmt.Errorf("sftp: key file %s: %w", file, err)
		}
		signers = append(signers, s)
	}
	if len(signers) == 0 {
		return nil, errors.New("sftp: no key to log in with: start ssh-agent with your key, or give --sftp-key FILE")
	}
	return []ssh.AuthMethod{ssh.PublicKeys(signers...)}, nil
}

// Name returns "sftp".
func (f *Fs) Name() string { return "sftp" }

// remote returns the server's path of name, which stays inside the root.
func (f *Fs) remote(name string) string {
	return path.Join(f.root, path.Clean("/"+name))
}

// pathError returns err as a *fs.PathError naming name.
func pathError(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
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
	info, err := f.client.Stat(p)
	switch {
	case err == nil && info.IsDir():
		if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
			return nil, pathError("open", name, syscall.EISDIR)
		}
		return &dirFile{fs: f, name: name, path: p, info: info}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, pathError("open", name, err)
	}
	created := err != nil && flag&os.O_CREATE != 0
	sf, err := f.client.OpenFile(p, flag)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	if created {
		if err := sf.Chmod(perm.Perm()); err != nil {
			sf.Close()
			return nil, pathError("open", name, err)
		}
	}
	return &file{File: sf, name: name}, nil
}

// Mkdir makes a directory with the mode perm.
func (f *Fs) Mkdir(name string, perm os.FileMode) error {
	p := f.remote(name)
	if err := f.client.Mkdir(p); err != nil {
		return pathError("mkdir", name, err)
	}
	return pathError("mkdir", name, f.client.Chmod(p, perm.Perm()))
}

// MkdirAll makes a directory and the missing ones above it.
func (f *Fs) MkdirAll(name string, perm os.FileMode) error {
	return pathError("mkdir", name, f.client.MkdirAll(f.remote(name)))
}

// Remove removes a file or an empty directory.
func (f *Fs) Remove(name string) error {
	p := f.remote(name)
	if p == f.root {
		return pathError("remove", name, fs.ErrPermission)
	}
	return pathError("remove", name, f.client.Remove(p))
}

// RemoveAll removes name and everything under it; never the root.
func (f *Fs) RemoveAll(name string) error {
	p := f.remote(name)
	if p == f.root {
		return pathError("removeall", name, fs.ErrPermission)
	}
	if _, err := f.client.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return pathError("removeall", name, f.client.RemoveAll(p))
}

// Rename renames oldname to newname, replacing newname atomically if it
// exists (posix-rename@openssh.com).
func (f *Fs) Rename(oldname, newname string) error {
	if err := f.client.PosixRename(f.remote(oldname), f.remote(newname)); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// Stat returns the FileInfo of the named file, following links.
func (f *Fs) Stat(name string) (os.FileInfo, error) {
	info, err := f.client.Stat(f.remote(name))
	if err != nil {
		return nil, pathError("stat", name, err)
	}
	return info, nil
}

// Chmod changes the named file's mode.
func (f *Fs) Chmod(name string, mode os.FileMode) error {
	return pathError("chmod", name, f.client.Chmod(f.remote(name), mode))
}

// Chown changes the named file's owner and group.
func (f *Fs) Chown(name string, uid, gid int) error {
	return pathError("chown", name, f.client.Chown(f.remote(name), uid, gid))
}

// Chtimes changes the named file's access and modification times.
func (f *Fs) Chtimes(name string, atime, mtime time.Time) error {
	return pathError("chtimes", name, f.client.Chtimes(f.remote(name), atime, mtime))
}

// file is an open file on the server.
type file struct {
	*sftp.File
	name string
}

func (f *file) Name() string { return f.name }

func (f *file) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

func (f *file) Readdir(int) ([]os.FileInfo, error) {
	return nil, pathError("readdir", f.name, syscall.ENOTDIR)
}

func (f *file) Readdirnames(int) ([]string, error) {
	return nil, pathError("readdir", f.name, syscall.ENOTDIR)
}

// dirFile is an open directory on the server.
type dirFile struct {
	fs     *Fs
	name   string
	path   string
	info   os.FileInfo
	pages  listing.Pages
	closed bool
}

func (d *dirFile) Readdir(n int) ([]os.FileInfo, error) {
	if d.closed {
		return nil, pathError("readdir", d.name, fs.ErrClosed)
	}
	if !d.pages.Listed() {
		entries, err := d.fs.client.ReadDir(d.path)
		if err != nil {
			return nil, pathError("readdir", d.name, err)
		}
		d.pages.Set(entries)
	}
	return d.pages.Next(n)
}

func (d *dirFile) Readdirnames(n int) ([]string, error) { return listing.Names(d.Readdir(n)) }

func (d *dirFile) Close() error {
	if d.closed {
		return pathError("close", d.name, fs.ErrClosed)
	}
	d.closed = true
	return nil
}

func (d *dirFile) Name() string                       { return d.name }
func (d *dirFile) Stat() (os.FileInfo, error)         { return d.info, nil }
func (d *dirFile) Sync() error                        { return nil }
func (d *dirFile) Read([]byte) (int, error)           { return 0, d.isDir("read") }
func (d *dirFile) ReadAt([]byte, int64) (int, error)  { return 0, d.isDir("read") }
func (d *dirFile) Seek(int64, int) (int64, error)     { return 0, d.isDir("seek") }
func (d *dirFile) Write([]byte) (int, error)          { return 0, d.isDir("write") }
func (d *dirFile) WriteAt([]byte, int64) (int, error) { return 0, d.isDir("write") }
func (d *dirFile) WriteString(string) (int, error)    { return 0, d.isDir("write") }
func (d *dirFile) Truncate(int64) error               { return d.isDir("truncate") }
func (d *dirFile) isDir(op string) error              { return pathError(op, d.name, syscall.EISDIR) }
