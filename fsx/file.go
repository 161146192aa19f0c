package fsx

import (
	"io/fs"
	"os"
	"sync"
	"sync/atomic"

	"github.com/spf13/afero"
)

// file is an open encoded file: a descriptor of its inode, which holds the
// content every open of the stored file shares. What is the file's own is
// its name, its flags and its offset.
type file struct {
	ino  *inode
	name string // the shown name it was opened by
	flag int

	closed atomic.Bool

	mu  sync.Mutex // guards off; taken before ino.mu
	off int64

	// Guarded by ino.mu:
	err     error // the failure of a store while the file was open, which every later use reports
	changed bool  // the file changed the content since it was last stored
}

var (
	_ afero.File       = (*file)(nil)
	_ NoAppendWriterAt = (*file)(nil)
)

// A NoAppendWriterAt is a file that can write at an offset even when it was
// opened with os.O_APPEND (whose Write goes to the end, and whose WriteAt
// fails): fsx's files are.
type NoAppendWriterAt interface {
	// WriteAtNoAppend writes p at offset off, as WriteAt does on a file
	// opened without os.O_APPEND.
	WriteAtNoAppend(p []byte, off int64) (int, error)
}

// Name returns the name the file was opened by.
func (f *file) Name() string { return f.name }

// check reports why the file cannot be used for an operation needing
// access (os.O_RDONLY to read, os.O_WRONLY to write, accessMode for
// either).
func (f *file) check(op string, access int) error {
	mode := f.flag & accessMode
	switch {
	case f.closed.Load():
		return pathError(op, f.name, fs.ErrClosed)
	case access == os.O_RDONLY && mode == os.O_WRONLY:
		return pathError(op, f.name, ErrWriteOnly)
	case access == os.O_WRONLY && mode == os.O_RDONLY:
		return pathError(op, f.name, ErrReadOnly)
	}
	return nil
}

// failed returns f.err as the error of op. f.ino.mu is held.
func (f *file) failed(op string) error {
	if f.err != nil {
		return pathError(op, f.name, f.err)
	}
	return nil
}

// Close stores the file's content, when this file changed it since it was
// last stored, and closes the file.
func (f *file) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Swap(true) {
		return pathError("close", f.name, fs.ErrClosed)
	}
	ino := f.ino
	ino.mu.Lock()
	err := f.err
	if err == nil && f.changed {
		err = ino.commit()
	}
	delete(ino.opens, f)
	ino.mu.Unlock()
	ino.fsys.releaseInode(ino)
	if err != nil {
		return pathError("close", f.name, err)
	}
	return nil
}

// Sync stores the file's content: what every open of it wrote so far.
func (f *file) Sync() error {
	if err := f.check("sync", accessMode); err != nil {
		return err
	}
	f.ino.mu.Lock()
	defer f.ino.mu.Unlock()
	if err := f.failed("sync"); err != nil {
		return err
	}
	if err := f.ino.commit(); err != nil {
		return pathError("sync", f.name, err)
	}
	return nil
}

// Flush stores the file's content when this file changed it since it was
// last stored, as Close does, and leaves the file open. (internal/mount
// flushes at each close(2) of a descriptor, so that close reports a failure
// to store; a descriptor that changed nothing stores nothing, so that its
// close cannot store another's changes half made.)
func (f *file) Flush() error {
	if err := f.check("flush", accessMode); err != nil {
		return err
	}
	f.ino.mu.Lock()
	defer f.ino.mu.Unlock()
	if err := f.failed("flush"); err != nil {
		return err
	}
	if !f.changed {
		return nil
	}
	if err := f.ino.commit(); err != nil {
		return pathError("flush", f.name, err)
	}
	return nil
}

// Stat returns the file's FileInfo, with its current decoded size.
func (f *file) Stat() (os.FileInfo, error) {
	if err := f.check("stat", accessMode); err != nil {
		return nil, err
	}
	f.ino.mu.Lock()
	defer f.ino.mu.Unlock()
	if err := f.failed("stat"); err != nil {
		return nil, err
	}
	f.ino.refreshOpen()
	info, err := f.ino.shownInfo(f.name)
	if err != nil {
		return nil, pathError("stat", f.name, err)
	}
	return info, nil
}

// Readdir fails: a file is not a directory.
func (f *file) Readdir(int) ([]os.FileInfo, error) {
	return nil, pathError("readdir", f.name, errNotDir)
}

// Readdirnames fails: a file is not a directory.
func (f *file) Readdirnames(int) ([]string, error) {
	return nil, pathError("readdirnames", f.name, errNotDir)
}

// Discard closes the file after dropping the changes its content holds
// (those of every open of it) not stored yet: the stored file stays as the
// last store left it. (internal/serve discards an upload that did not
// arrive whole.)
func (f *file) Discard() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Swap(true) {
		return pathError("close", f.name, fs.ErrClosed)
	}
	ino := f.ino
	ino.mu.Lock()
	delete(ino.opens, f)
	if ino.edit != nil {
		ino.edit.discard()
		ino.edit = nil
	}
	ino.mu.Unlock()
	ino.fsys.releaseInode(ino)
	return nil
}
