package fsx

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/afero"
)

// appendEdit holds data appended to a non-empty file stored by a
// core.BlockCodec whose blocks are independent. Its commit rewrites only the
// stored file's last, partial block (and whatever trailer follows it): it
// encodes that block's plain bytes followed by the appended data, and writes
// the result in place. The encoding of data that starts at a block boundary
// is then the tail of the encoding of the whole.
type appendEdit struct {
	ino     *inode
	codec   *blockCodec
	srcSize int64  // the decoded size of f.src
	pending []byte // the appended data
}

func (a *appendEdit) size() (int64, error) {
	return a.srcSize + int64(len(a.pending)), nil
}

func (a *appendEdit) writeAt(p []byte, off int64) (bool, error) {
	if size, _ := a.size(); off != size {
		return false, nil
	}
	a.pending = append(a.pending, p...)
	return true, nil
}

func (a *appendEdit) readAt(p []byte, off int64) (int, error) {
	n := 0
	if off < a.srcSize {
		want := min(int64(len(p)), a.srcSize-off)
		m, err := a.ino.src.ReadAt(p[:want], off)
		if int64(m) < want {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return m, err
		}
		n = m
	}
	if rest := off + int64(n) - a.srcSize; rest >= 0 && rest < int64(len(a.pending)) {
		n += copy(p[n:], a.pending[rest:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// commit appends the data to the stored file as it is now: another file may
// have appended to it since this one began, as with os.O_APPEND. Where the
// base can lock the stored file (lockStored), it appends under the lock, to
// the file the name holds once the lock is taken (another process's append
// may have replaced it meanwhile).
func (a *appendEdit) commit() error {
	stored, _ := a.ino.storedPath()
	for range 100 {
		bf, err := a.ino.fsys.base.OpenFile(stored, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		unlock, locked := lockStored(bf, true)
		if locked && !a.stillStored(stored, bf) {
			unlock()
			bf.Close()
			continue
		}
		err = a.appendTo(bf)
		unlock()
		if cerr := bf.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return fmt.Errorf("%s: replaced 100 times while appending to it", stored)
}

// stillStored reports whether bf, opened at stored, is the file stored there
// now.
func (a *appendEdit) stillStored(stored string, bf afero.File) bool {
	now, err := a.ino.fsys.base.Stat(stored)
	if err != nil {
		return false
	}
	opened, err := bf.Stat()
	return err == nil && sameID(now, opened)
}

// appendTo appends the data in place to the stored file bf, or rewrites it
// whole through a temporary file when it is empty or of another form than
// the codec writes (base16384's UTF-8 form, appended to by a codec writing
// UTF-16BE), or its blocks are not independent.
func (a *appendEdit) appendTo(bf afero.File) error {
	info, err := bf.Stat()
	if err != nil {
		return err
	}
	src, err := newSource(a.ino.fsys.decoders, bf, info.Size())
	if err != nil {
		return err
	}
	l := src.layout
	if l == nil || !l.Independent || l.Form != a.codec.write.Form {
		return a.rewrite(src)
	}
	full := l.Size / int64(l.PlainBlock) * int64(l.PlainBlock)
	tail := make([]byte, l.Size-full, l.Size-full+int64(len(a.pending)))
	if len(tail) > 0 {
		if _, err := src.ReadAt(tail, full); err != nil {
			return err
		}
	}
	encoded, err := a.codec.encodeBlocks(append(tail, a.pending...))
	if err != nil {
		return err
	}
	tailOff, _ := l.EncodedOffset(full)
	return writeTail(bf, encoded, tailOff, info.Size())
}

// writeTail replaces the bytes of bf from off to its end, size, with tail,
// so that either all of tail lands or bf is left as it was: it first writes
// the part of tail past the old end, then overwrites the old last bytes, and
// puts back what it changed on any failure. Only a crash between the two
// steps can leave the old content followed by new bytes, which a decoder
// reports as data after the end, at the old size.
func writeTail(bf afero.File, tail []byte, off, size int64) error {
	split := min(size-off, int64(len(tail)))
	old := make([]byte, size-off)
	if _, err := bf.ReadAt(old, off); err != nil {
		return err
	}
	undo := func(err error) error {
		_, werr := bf.WriteAt(old, off)
		terr := bf.Truncate(size)
		serr := bf.Sync()
		if rerr := errors.Join(werr, terr, serr); rerr != nil {
			return fmt.Errorf("%w; and restoring the file failed: %w", err, rerr)
		}
		return err
	}
	if split < int64(len(tail)) {
		if _, err := bf.WriteAt(tail[split:], size); err != nil {
			return undo(err)
		}
		if err := bf.Sync(); err != nil {
			return undo(err)
		}
	}
	if _, err := bf.WriteAt(tail[:split], off); err != nil {
		return undo(err)
	}
	if end := off + int64(len(tail)); end < size {
		if err := bf.Truncate(end); err != nil {
			return undo(err)
		}
	}
	if err := bf.Sync(); err != nil {
		return undo(err)
	}
	return nil
}

// rewrite stores src's content followed by the appended data through a
// temporary file.
func (a *appendEdit) rewrite(src *source) error {
	s, err := a.ino.newStream(src)
	if err != nil {
		return err
	}
	if _, err := s.writeAt(a.pending, s.n); err != nil {
		s.discard()
		return err
	}
	return s.commit()
}

func (a *appendEdit) discard() {}
