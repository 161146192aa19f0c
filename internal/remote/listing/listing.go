// Package listing hands out a directory's listed entries the way
// afero.File's Readdir and Readdirnames do, for file systems that list a
// directory whole (an object store's prefix, an SFTP directory).
package listing

import (
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// Pages are a directory's entries, handed out in order.
type Pages struct {
	entries []os.FileInfo // nil until Set
	pos     int
}

// Listed reports whether Set was called.
func (p *Pages) Listed() bool { return p.entries != nil }

// Set records the directory's entries.
func (p *Pages) Set(entries []os.FileInfo) { p.entries = append([]os.FileInfo{}, entries...) }

// Next returns the next n entries as Readdir does: all that are left when
// n <= 0, and io.EOF when n > 0 and none are left.
func (p *Pages) Next(n int) ([]os.FileInfo, error) {
	rest := p.entries[p.pos:]
	if n <= 0 {
		p.pos = len(p.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	p.pos += len(rest)
	return rest, nil
}

// Names returns the names of infos, with err, as Readdirnames returns
// what Readdir gave.
func Names(infos []os.FileInfo, err error) ([]string, error) {
	names := make([]string, len(infos))
	for i, info := range infos {
		names[i] = info.Name()
	}
	return names, err
}

// A Dir is an open directory of such a file system, as an afero.File: it
// lists the directory with list on the first Readdir or Readdirnames, and
// refuses what a directory cannot do with EISDIR. It is safe for
// concurrent use.
type Dir struct {
	name string
	info os.FileInfo
	list func() ([]os.FileInfo, error)

	mu     sync.Mutex
	pages  Pages
	closed bool
}

// NewDir returns the open directory name, described by info, whose entries
// list returns; list's error, which it makes a *fs.PathError of op
// "readdir", is returned as it is.
func NewDir(name string, info os.FileInfo, list func() ([]os.FileInfo, error)) *Dir {
	return &Dir{name: name, info: info, list: list}
}

// Readdir returns the next n entries, as afero.File's Readdir does.
func (d *Dir) Readdir(n int) ([]os.FileInfo, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, &fs.PathError{Op: "readdir", Path: d.name, Err: fs.ErrClosed}
	}
	if !d.pages.Listed() {
		entries, err := d.list()
		if err != nil {
			return nil, err
		}
		d.pages.Set(entries)
	}
	return d.pages.Next(n)
}

// Readdirnames returns the names of the next n entries.
func (d *Dir) Readdirnames(n int) ([]string, error) { return Names(d.Readdir(n)) }

// Close closes the directory; a second Close fails with fs.ErrClosed.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return &fs.PathError{Op: "close", Path: d.name, Err: fs.ErrClosed}
	}
	d.closed = true
	return nil
}

// Name returns the directory's name, as it was opened.
func (d *Dir) Name() string { return d.name }

// Stat returns the directory's info.
func (d *Dir) Stat() (os.FileInfo, error) { return d.info, nil }

// Sync does nothing.
func (d *Dir) Sync() error { return nil }

// Read fails: a directory holds no bytes.
func (d *Dir) Read([]byte) (int, error) { return 0, d.isDir("read") }

// ReadAt fails: a directory holds no bytes.
func (d *Dir) ReadAt([]byte, int64) (int, error) { return 0, d.isDir("read") }

// Seek fails: a directory holds no bytes.
func (d *Dir) Seek(int64, int) (int64, error) { return 0, d.isDir("seek") }

// Write fails: a directory holds no bytes.
func (d *Dir) Write([]byte) (int, error) { return 0, d.isDir("write") }

// WriteAt fails: a directory holds no bytes.
func (d *Dir) WriteAt([]byte, int64) (int, error) { return 0, d.isDir("write") }

// WriteString fails: a directory holds no bytes.
func (d *Dir) WriteString(string) (int, error) { return 0, d.isDir("write") }

// Truncate fails: a directory holds no bytes.
func (d *Dir) Truncate(int64) error { return d.isDir("truncate") }

func (d *Dir) isDir(op string) error {
	return &fs.PathError{Op: op, Path: d.name, Err: syscall.EISDIR}
}
