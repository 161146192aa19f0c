package fsx

import "os"

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
		s, err := f.newStream(f.src)
		if err != nil {
			return err
		}
		f.edit = s
		return nil
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
		s, err := f.newStream(nil)
		if err != nil {
			return err
		}
		if f.edit != nil {
			f.edit.discard()
		}
		f.edit = s
		return nil
	}
	b, err := f.buffer()
	if err != nil {
		return err
	}
	return b.truncate(size)
}
