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
	var n int
	var err error
	if f.edit == nil {
		n, err = f.src.Load().Read(p, f.off)
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
		n, err := f.src.Load().ReadAt(p, off)
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
		return f.src.Load().ReadAt(p, off)
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
