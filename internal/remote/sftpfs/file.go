package sftpfs

import (
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/pkg/sftp"
)

// file is an open file on the server.
type file struct {
	fs       *Fs
	name     string      // as opened
	path     string      // on the server
	writable bool        // opened to write, create or truncate
	opened   os.FileInfo // when opened, if it existed

	mu     sync.Mutex // guards s, sf and closed; a reopening replaces s and sf
	s      *session   // the connection sf is open on
	sf     *sftp.File
	closed bool
}

// handle returns the file's handle and its connection.
func (f *file) handle() (*session, *sftp.File) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.s, f.sf
}

// use runs op on the file's handle. When the connection was lost under it,
// a file open only for reading is opened again on a new connection, at the
// offset it had, and op runs once more there; a file open for writing
// fails with ErrConnectionLost. Other errors (io.EOF) are op's.
func (f *file) use(name string, op func(*sftp.File) error) error {
	s, sf := f.handle()
	err := op(sf)
	if !s.lost(err) {
		if (name == "write" || name == "truncate" || name == "sync") && plainFailure(err) {
			return &fs.PathError{Op: name, Path: f.name, Err: refused(s.client, err, f.path)}
		}
		return err
	}
	if f.writable {
		return &fs.PathError{Op: name, Path: f.name, Err: ErrConnectionLost}
	}
	if sf, err = f.reopen(sf); err != nil {
		return &fs.PathError{Op: name, Path: f.name, Err: err}
	}
	return op(sf)
}

// reopen opens the file again on a new connection, in place of old, if no
// other call did; it must still be the file it was when opened.
func (f *file) reopen(old *sftp.File) (*sftp.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, fs.ErrClosed
	}
	if f.sf != old {
		return f.sf, nil
	}
	offset, err := old.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err // closed
	}
	var sf *sftp.File
	var s *session
	err = f.fs.call(true, func(cs *session) error {
		nf, err := cs.client.Open(f.path)
		if err != nil {
			return err
		}
		info, err := nf.Stat()
		if err == nil && (f.opened == nil || info.Size() != f.opened.Size() || !info.ModTime().Equal(f.opened.ModTime())) {
			err = ErrChanged
		}
		if err != nil {
			nf.Close()
			return err
		}
		sf, s = nf, cs
		return nil
	})
	if err != nil {
		return nil, err
	}
	sf.Seek(offset, io.SeekStart)
	old.Close() // only forgets it: the connection is gone
	f.s, f.sf = s, sf
	return sf, nil
}

func (f *file) Name() string { return f.name }

func (f *file) Read(p []byte) (n int, err error) {
	err = f.use("read", func(sf *sftp.File) error {
		m, err := sf.Read(p[n:])
		n += m
		return err
	})
	return n, err
}

func (f *file) ReadAt(p []byte, off int64) (n int, err error) {
	err = f.use("read", func(sf *sftp.File) error {
		m, err := sf.ReadAt(p[n:], off+int64(n))
		n += m
		return err
	})
	return n, err
}

// ConcurrentReadAt reports that ReadAt is safe for concurrent use (pkg/sftp
// sends each call's requests on their own), so that fsx reads ahead more
// than one chunk at a time (fsx.ConcurrentReaderAt).
func (f *file) ConcurrentReadAt() bool { return true }

// WriteTo copies the file from its offset to w, with reads of the file in
// parallel (io.Copy calls it).
func (f *file) WriteTo(w io.Writer) (n int64, err error) {
	err = f.use("read", func(sf *sftp.File) error {
		m, err := sf.WriteTo(w)
		n += m
		return err
	})
	return n, err
}

func (f *file) Seek(offset int64, whence int) (pos int64, err error) {
	err = f.use("seek", func(sf *sftp.File) (err error) {
		pos, err = sf.Seek(offset, whence)
		return err
	})
	return pos, err
}

func (f *file) Stat() (info os.FileInfo, err error) {
	err = f.use("stat", func(sf *sftp.File) (err error) {
		info, err = sf.Stat()
		return err
	})
	return info, err
}

func (f *file) Write(p []byte) (n int, err error) {
	err = f.use("write", func(sf *sftp.File) (err error) {
		n, err = sf.Write(p)
		return err
	})
	return n, err
}

func (f *file) WriteAt(p []byte, off int64) (n int, err error) {
	err = f.use("write", func(sf *sftp.File) (err error) {
		n, err = sf.WriteAt(p, off)
		return err
	})
	return n, err
}

// ReadFrom copies r to the file at its offset, with writes in parallel
// (io.Copy calls it).
func (f *file) ReadFrom(r io.Reader) (n int64, err error) {
	err = f.use("write", func(sf *sftp.File) (err error) {
		n, err = sf.ReadFrom(r)
		return err
	})
	return n, err
}

func (f *file) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

func (f *file) Truncate(size int64) error {
	return f.use("truncate", func(sf *sftp.File) error { return sf.Truncate(size) })
}

// Chmod changes the file's mode through its handle (fsetstat): no lookup
// of its name.
func (f *file) Chmod(mode os.FileMode) error {
	return f.use("chmod", func(sf *sftp.File) error { return sf.Chmod(mode) })
}

// Chown changes the file's owner and group through its handle.
func (f *file) Chown(uid, gid int) error {
	return f.use("chown", func(sf *sftp.File) error { return sf.Chown(uid, gid) })
}

func (f *file) Sync() error {
	return f.use("sync", func(sf *sftp.File) error { return sf.Sync() })
}

// Close closes the file; one open only for reading whose connection is
// gone has nothing left to close. A file open only for reading is closed
// without waiting for the server's answer, which could tell nothing that
// matters: a round trip less for each file read.
func (f *file) Close() error {
	f.mu.Lock()
	s, sf, closed := f.s, f.sf, f.closed
	f.closed = true
	f.mu.Unlock()
	if !f.writable && !closed {
		go sf.Close()
		return nil
	}
	err := sf.Close()
	if !s.lost(err) {
		return err
	}
	if f.writable {
		return &fs.PathError{Op: "close", Path: f.name, Err: ErrConnectionLost}
	}
	return nil
}

func (f *file) Readdir(int) ([]os.FileInfo, error) {
	return nil, asPathError("readdir", f.name, syscall.ENOTDIR)
}

func (f *file) Readdirnames(int) ([]string, error) {
	return nil, asPathError("readdir", f.name, syscall.ENOTDIR)
}
