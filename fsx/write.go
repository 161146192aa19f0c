package fsx

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// MaxSize is the largest decoded size a file can have, 16 TiB (the largest
// file ext4 holds): a write or truncation past it fails with an error
// wrapping syscall.EFBIG, rather than encoding a sparse file's zero bytes
// until the disk is full.
const MaxSize = 1 << 44

// errTooBig is the error of a write or truncation past MaxSize.
var errTooBig = fmt.Errorf("%w: past fsx.MaxSize", syscall.EFBIG)

// appendHold is how much appended data an inode holds in memory before it
// moves its changes to a stage on disk (see stageEdit).
const appendHold = 8 << 20

// Write writes p at the current offset, or at the end of the file when it
// was opened with os.O_APPEND.
func (f *file) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("write", os.O_WRONLY); err != nil {
		return 0, err
	}
	ino := f.ino
	ino.mu.Lock()
	defer ino.mu.Unlock()
	if err := f.failed("write"); err != nil {
		return 0, err
	}
	appending := f.flag&os.O_APPEND != 0
	if appending {
		size, err := ino.size()
		if err != nil {
			return 0, pathError("write", f.name, err)
		}
		f.off = size
	}
	if err := ino.writeAt(p, f.off, appending); err != nil {
		return 0, pathError("write", f.name, err)
	}
	f.changed = f.changed || len(p) > 0
	f.off += int64(len(p))
	return len(p), nil
}

// WriteString writes s as Write does.
func (f *file) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// WriteAt writes p at offset off. It is an error on a file opened with
// os.O_APPEND.
func (f *file) WriteAt(p []byte, off int64) (int, error) {
	if f.flag&os.O_APPEND != 0 {
		if err := f.check("write", os.O_WRONLY); err != nil {
			return 0, err
		}
		return 0, pathError("write", f.name, ErrAppendOffset)
	}
	return f.WriteAtNoAppend(p, off)
}

// WriteAtNoAppend writes p at offset off as WriteAt does, also on a file
// opened with os.O_APPEND, as pwritev2(2) with RWF_NOAPPEND does: for a
// server such as a FUSE mount, which the kernel asks to write the pages of
// a shared mapping back at their offsets through whichever of the file's
// descriptors it picks (see NoAppendWriterAt).
func (f *file) WriteAtNoAppend(p []byte, off int64) (int, error) {
	if err := f.check("write", os.O_WRONLY); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathError("write", f.name, errNegativeOffset)
	}
	f.ino.mu.Lock()
	defer f.ino.mu.Unlock()
	if err := f.failed("write"); err != nil {
		return 0, err
	}
	if err := f.ino.writeAt(p, off, false); err != nil {
		return 0, pathError("write", f.name, err)
	}
	f.changed = f.changed || len(p) > 0
	return len(p), nil
}

// writeAt writes p at off into the content; appending tells a write at the
// end of a file opened with os.O_APPEND. ino.mu is held.
func (ino *inode) writeAt(p []byte, off int64, appending bool) error {
	if len(p) == 0 {
		return nil
	}
	if off+int64(len(p)) > MaxSize {
		return errTooBig
	}
	if ino.edit == nil {
		if err := ino.startEdit(off, appending); err != nil {
			return err
		}
	}
	ok, err := ino.edit.writeAt(p, off)
	if err != nil {
		return err
	}
	if ok {
		if a, isAppend := ino.edit.(*appendEdit); isAppend && len(a.pending) > appendHold {
			_, err = ino.stage()
		}
		return err
	}
	s, err := ino.stage()
	if err != nil {
		return err
	}
	_, err = s.writeAt(p, off)
	return err
}

// startEdit begins the edit that suits a first write at off: an in-place
// append for os.O_APPEND on a block codec file that allows it, a stream
// when writing at the end, a stage on disk otherwise. ino.mu is held.
func (ino *inode) startEdit(off int64, appending bool) error {
	size, err := ino.size()
	if err != nil {
		return err
	}
	if appending {
		if a, ok := ino.newAppendEdit(size); ok {
			ino.setEdit(a)
			return nil
		}
	}
	if off == size {
		s, err := ino.newStream(ino.src)
		if err != nil {
			return err
		}
		ino.setEdit(s)
		return nil
	}
	_, err = ino.stage()
	return err
}

// Truncate changes the decoded size of the file.
func (f *file) Truncate(size int64) error {
	if err := f.check("truncate", os.O_WRONLY); err != nil {
		if errors.Is(err, ErrReadOnly) {
			// ftruncate(2) of a descriptor opened read-only: EINVAL.
			return pathError("truncate", f.name, fmt.Errorf("%w (%w)", ErrReadOnly, syscall.EINVAL))
		}
		return err
	}
	if size < 0 {
		return pathError("truncate", f.name, errNegativeOffset)
	}
	f.ino.mu.Lock()
	defer f.ino.mu.Unlock()
	if err := f.failed("truncate"); err != nil {
		return err
	}
	if err := f.ino.truncate(size); err != nil {
		return pathError("truncate", f.name, err)
	}
	f.changed = true
	return nil
}

// truncate sets the content's size. ino.mu is held.
func (ino *inode) truncate(size int64) error {
	if size > MaxSize {
		return errTooBig
	}
	cur, err := ino.size()
	switch {
	case err != nil:
		return err
	case size == cur:
		return nil
	case size == 0:
		s, err := ino.newStream(nil)
		if err != nil {
			return err
		}
		ino.setEdit(s)
		return nil
	}
	s, err := ino.stage()
	if err != nil {
		return err
	}
	return s.truncate(size)
}

// newAppendEdit returns an appendEdit for a content of size bytes, or false
// when the codec cannot append in place: it is not a core.BlockCodec whose
// streams have blocks, it declares blocks whose encoding depends on the blocks before (as a running
// checksum does), the base cannot change files in place, or the stored file
// is not empty and has no layout. Appends to an empty file are held as
// appends too, so that of several programs appending at once, every one
// lands: the first store writes the file, the others append to it in place.
// ino.mu is held.
func (ino *inode) newAppendEdit(size int64) (*appendEdit, bool) {
	bc := ino.fsys.decoders.blocks
	if bc == nil || !ino.fsys.inPlace || !bc.write.Independent || size > 0 && ino.src.layout == nil {
		return nil, false
	}
	return &appendEdit{ino: ino, codec: bc, srcSize: size}, true
}
