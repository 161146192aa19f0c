package fsx

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"

	"github.com/spf13/afero"
)

var errNegativeOffset = errors.New("negative offset")

// file is an open encoded file.
//
// What it holds is in one of four states: the stored content as it is (src);
// a stream of sequential writes being encoded into a temporary file; the
// whole plain content in memory, for writes at other offsets; or data
// appended to a block codec file, held until Close or Sync rewrite the
// stored file's last block.
type file struct {
	fsys   *Fs
	name   string // the shown name it was opened by
	stored string // the base path
	flag   int

	closed atomic.Bool
	mu     sync.Mutex // guards the fields below, but not src's ReadAt
	off    int64
	info   os.FileInfo // the stored file's, as of the last load
	base   afero.File  // the stored file, open for reading
	src    *source     // the stored file's content
	edit   edit        // nil while the content is src's
}

// An edit is a change to a file's content not yet stored.
type edit interface {
	size() (int64, error)
	// writeAt writes p at off, or returns false when this edit cannot take
	// that write.
	writeAt(p []byte, off int64) (bool, error)
	// plain returns the whole plain content, ending the edit.
	plain() ([]byte, error)
	// commit stores the content, ending the edit.
	commit() error
	// discard drops the edit.
	discard()
}

var _ afero.File = (*file)(nil)

// load opens the stored file and reads its layout.
func (f *file) load() error {
	bf, err := f.fsys.base.Open(f.stored)
	if err != nil {
		return err
	}
	info, err := bf.Stat()
	if err == nil {
		f.src, err = newSource(f.fsys.decoders, bf, info.Size())
	}
	if err != nil {
		bf.Close()
		return err
	}
	f.base, f.info = bf, info
	return nil
}

func (f *file) release() {
	if f.edit != nil {
		f.edit.discard()
		f.edit = nil
	}
	f.base.Close()
}

// Name returns the name the file was opened by.
func (f *file) Name() string { return f.name }

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

func (f *file) size() (int64, error) {
	if f.edit != nil {
		return f.edit.size()
	}
	return f.src.Size()
}

// Close stores what was written and closes the file.
func (f *file) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Swap(true) {
		return pathError("close", f.name, fs.ErrClosed)
	}
	err := f.commit()
	f.release()
	if err != nil {
		return pathError("close", f.name, err)
	}
	return nil
}

// Sync stores what was written so far.
func (f *file) Sync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("sync", accessMode); err != nil {
		return err
	}
	if f.edit == nil {
		return nil
	}
	if err := f.commit(); err != nil {
		return pathError("sync", f.name, err)
	}
	f.base.Close()
	if err := f.load(); err != nil {
		f.closed.Store(true)
		return pathError("sync", f.name, err)
	}
	return nil
}

func (f *file) commit() error {
	if f.edit == nil {
		return nil
	}
	e := f.edit
	f.edit = nil
	return e.commit()
}

// Stat returns the file's FileInfo, with its current decoded size.
func (f *file) Stat() (os.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("stat", accessMode); err != nil {
		return nil, err
	}
	size, err := f.size()
	if err != nil {
		return nil, pathError("stat", f.name, err)
	}
	return shownInfo(f.info, f.name, size), nil
}

// Read reads decoded data from the current offset.
func (f *file) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("read", os.O_RDONLY); err != nil {
		return 0, err
	}
	var n int
	var err error
	if f.edit == nil {
		n, err = f.src.Read(p, f.off)
	} else {
		n, err = f.readAt(p, f.off)
	}
	f.off += int64(n)
	return n, readError(f.name, err)
}

// ReadAt reads decoded data from offset off. Calls on a file opened
// read-only run concurrently.
func (f *file) ReadAt(p []byte, off int64) (int, error) {
	if err := f.check("read", os.O_RDONLY); err != nil {
		return 0, err
	}
	if f.flag&accessMode == os.O_RDONLY {
		n, err := f.src.ReadAt(p, off)
		return n, readError(f.name, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.readAt(p, off)
	return n, readError(f.name, err)
}

func readError(name string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return pathError("read", name, err)
}

func (f *file) readAt(p []byte, off int64) (int, error) {
	if f.edit == nil {
		return f.src.ReadAt(p, off)
	}
	if off < 0 {
		return 0, errNegativeOffset
	}
	if a, ok := f.edit.(*appendEdit); ok {
		return a.readAt(p, off)
	}
	b, err := f.buffer()
	if err != nil {
		return 0, err
	}
	if off >= int64(len(b.data)) {
		return 0, io.EOF
	}
	n := copy(p, b.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Seek sets the offset of the next Read or Write, as io.Seeker describes.
func (f *file) Seek(offset int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("seek", accessMode); err != nil {
		return 0, err
	}
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		size, err := f.size()
		if err != nil {
			return 0, pathError("seek", f.name, err)
		}
		offset += size
	case io.SeekStart:
	default:
		return 0, pathError("seek", f.name, fs.ErrInvalid)
	}
	if offset < 0 {
		return 0, pathError("seek", f.name, errNegativeOffset)
	}
	f.off = offset
	return offset, nil
}

// Write writes p at the current offset, or at the end of the file when it
// was opened with os.O_APPEND.
func (f *file) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("write", os.O_WRONLY); err != nil {
		return 0, err
	}
	if f.flag&os.O_APPEND != 0 {
		size, err := f.size()
		if err != nil {
			return 0, pathError("write", f.name, err)
		}
		f.off = size
	}
	if err := f.writeAt(p, f.off); err != nil {
		return 0, pathError("write", f.name, err)
	}
	f.off += int64(len(p))
	return len(p), nil
}

// WriteString writes s as Write does.
func (f *file) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// WriteAt writes p at offset off. It is an error on a file opened with
// os.O_APPEND.
func (f *file) WriteAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("write", os.O_WRONLY); err != nil {
		return 0, err
	}
	switch {
	case f.flag&os.O_APPEND != 0:
		return 0, pathError("write", f.name, ErrAppendOffset)
	case off < 0:
		return 0, pathError("write", f.name, errNegativeOffset)
	}
	if err := f.writeAt(p, off); err != nil {
		return 0, pathError("write", f.name, err)
	}
	return len(p), nil
}

func (f *file) writeAt(p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	if f.edit == nil {
		if err := f.startEdit(off); err != nil {
			return err
		}
	}
	ok, err := f.edit.writeAt(p, off)
	if err != nil || ok {
		return err
	}
	b, err := f.buffer()
	if err != nil {
		return err
	}
	_, err = b.writeAt(p, off)
	return err
}

// startEdit begins the edit that suits a first write at off: an in-place
// append for os.O_APPEND on a non-empty block codec file that allows it, a
// stream when writing at the end, the whole content in memory otherwise.
func (f *file) startEdit(off int64) error {
	size, err := f.src.Size()
	if err != nil {
		return err
	}
	switch {
	case f.flag&os.O_APPEND != 0 && size > 0:
		if a, ok := f.newAppendEdit(); ok {
			f.edit = a
			return nil
		}
		fallthrough
	case off == size:
		f.edit, err = f.newStream(f.src)
		return err
	}
	_, err = f.buffer()
	return err
}

// buffer turns the current content into a bufferEdit, if it is not one yet.
func (f *file) buffer() (*bufferEdit, error) {
	if b, ok := f.edit.(*bufferEdit); ok {
		return b, nil
	}
	size, err := f.size()
	if err != nil {
		return nil, err
	}
	if size > MaxBuffer {
		return nil, ErrTooLarge
	}
	var data []byte
	if f.edit == nil {
		data, err = readAll(f.src)
	} else {
		data, err = f.edit.plain()
	}
	if err != nil {
		return nil, err
	}
	b := &bufferEdit{f: f, data: data}
	f.edit = b
	return b, nil
}

// Truncate changes the decoded size of the file.
func (f *file) Truncate(size int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("truncate", os.O_WRONLY); err != nil {
		return err
	}
	if size < 0 {
		return pathError("truncate", f.name, errNegativeOffset)
	}
	if err := f.truncate(size); err != nil {
		return pathError("truncate", f.name, err)
	}
	return nil
}

func (f *file) truncate(size int64) error {
	cur, err := f.size()
	switch {
	case err != nil:
		return err
	case size == cur:
		return nil
	case size == 0:
		if f.edit != nil {
			f.edit.discard()
		}
		f.edit, err = f.newStream(nil)
		return err
	}
	b, err := f.buffer()
	if err != nil {
		return err
	}
	return b.truncate(size)
}

// Readdir fails: a file is not a directory.
func (f *file) Readdir(int) ([]os.FileInfo, error) {
	return nil, pathError("readdir", f.name, errNotDir)
}

// Readdirnames fails: a file is not a directory.
func (f *file) Readdirnames(int) ([]string, error) {
	return nil, pathError("readdirnames", f.name, errNotDir)
}

// readAll returns the whole decoded content of src.
func readAll(src *source) ([]byte, error) {
	size, err := src.Size()
	if err != nil {
		return nil, err
	}
	data := make([]byte, size)
	n, err := src.ReadAt(data, 0)
	if err == io.EOF && int64(n) == size {
		err = nil
	}
	return data, err
}
