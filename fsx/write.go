package fsx

import (
	"os"

	"github.com/b14fs/b14fs/core"
)

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
	s, err := f.stage()
	if err != nil {
		return err
	}
	_, err = s.writeAt(p, off)
	return err
}

// startEdit begins the edit that suits a first write at off: an in-place
// append for os.O_APPEND on a non-empty block codec file that allows it, a
// stream when writing at the end, a stage on disk otherwise.
func (f *file) startEdit(off int64) error {
	size, err := f.src.Load().Size()
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
	case f.flag&os.O_APPEND != 0 && size == 0:
		// Appends to an empty file are held as appends too, so that of
		// several files appending at once, every one lands: the first
		// Close stores the file, the others append to it in place.
		if a, ok := f.emptyAppendEdit(); ok {
			f.edit = a
			return nil
		}
		fallthrough
	case off == size:
		s, err := f.newStream(f.src.Load())
		if err != nil {
			return err
		}
		f.edit = s
		return nil
	}
	_, err = f.stage()
	return err
}

// buffer turns the current content into a bufferEdit, if it is not one yet:
// the whole plain content in memory, which only a read after writes at
// other offsets than the end needs (read.go).
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
		data, err = readAll(f.src.Load())
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
	if b, ok := f.edit.(*bufferEdit); ok {
		return b.truncate(size)
	}
	s, err := f.stage()
	if err != nil {
		return err
	}
	return s.truncate(size)
}

// emptyAppendEdit returns an appendEdit for a file whose stored content is
// empty, or false when the codec could not append in place to a non-empty
// file either.
func (f *file) emptyAppendEdit() (*appendEdit, bool) {
	bc, ok := f.fsys.codec.(core.BlockCodec)
	if !ok || !f.fsys.inPlace {
		return nil, false
	}
	if !bc.WriteLayout().Independent {
		return nil, false
	}
	return &appendEdit{f: f, codec: bc}, true
}
