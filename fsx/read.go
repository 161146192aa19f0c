package fsx

import (
	"io"
	"io/fs"
	"os"
)

// Read reads decoded data from the current offset.
func (f *file) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("read", os.O_RDONLY); err != nil {
		return 0, err
	}
	n, err := f.readAt(p, f.off)
	f.off += int64(n)
	return n, err
}

// ReadAt reads decoded data from offset off. Calls run concurrently while
// no open of the file holds changes not stored yet.
func (f *file) ReadAt(p []byte, off int64) (int, error) {
	if err := f.check("read", os.O_RDONLY); err != nil {
		return 0, err
	}
	return f.readAt(p, off)
}

// ConcurrentReadAt reports that ReadAt calls on f may run at once, over
// any base: fsx orders its calls to a base whose files cannot take them at
// once (ConcurrentReaderAt).
func (f *file) ConcurrentReadAt() bool { return true }

func (f *file) readAt(p []byte, off int64) (int, error) {
	n, err := f.ino.readAt(f, p, off)
	if err == nil || err == io.EOF {
		return n, err
	}
	return n, pathError("read", f.name, err)
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
		f.ino.mu.Lock()
		size, err := f.ino.size()
		f.ino.mu.Unlock()
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
