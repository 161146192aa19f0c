package fsx

import (
	"bufio"
	"errors"
	"io"
	"path/filepath"

	"github.com/b14fs/b14fs/internal/atomicfile"
)

// ErrTooLarge is returned by a write or truncation that would hold more than
// MaxBuffer bytes in memory.
var ErrTooLarge = errors.New("file too large to edit in memory")

// MaxBuffer is the largest decoded size of a file that writes at offsets
// other than its end can change: such writes hold the whole plain content
// in memory until Close or Sync.
const MaxBuffer = 1 << 31

// streamEdit encodes sequential writes into a temporary file next to the
// stored one, which replaces it on commit.
type streamEdit struct {
	f   *file
	tmp *atomicfile.File
	buf *bufio.Writer
	enc io.WriteCloser
	n   int64 // plain bytes written
	err error // the first failure, after which the stream is unusable
}

// newStream starts a stream whose content begins with prefix's, if any.
func (f *file) newStream(prefix *source) (*streamEdit, error) {
	tmp, err := f.createTemp()
	if err != nil {
		return nil, err
	}
	s := &streamEdit{f: f, tmp: tmp, buf: bufio.NewWriterSize(tmp, 64<<10)}
	s.enc = f.fsys.codec.NewEncodeWriter(s.buf)
	if prefix != nil {
		s.n, err = io.Copy(s.enc, &cursor{src: prefix})
		if err != nil {
			s.discard()
			return nil, err
		}
	}
	return s, nil
}

// createTemp creates an empty temporary file next to the stored file, with
// the stored file's permissions, after removing what crashed processes left
// in that directory.
func (f *file) createTemp() (*atomicfile.File, error) {
	f.fsys.removeStale(filepath.Dir(f.stored))
	tmp, err := atomicfile.Create(f.fsys.base, f.stored, 0o600)
	if err != nil {
		return nil, err
	}
	if err := tmp.Chmod(f.info.Mode().Perm()); err != nil {
		tmp.Abort()
		return nil, err
	}
	return tmp, nil
}

func (s *streamEdit) size() (int64, error) { return s.n, nil }

func (s *streamEdit) writeAt(p []byte, off int64) (bool, error) {
	if s.err != nil || off != s.n {
		return s.err != nil, s.err
	}
	n, err := s.enc.Write(p)
	s.n += int64(n)
	s.err = err
	return true, err
}

// finish flushes the encoder into the temporary file.
func (s *streamEdit) finish() error {
	if s.err == nil {
		s.err = s.enc.Close()
	}
	if s.err == nil {
		s.err = s.buf.Flush()
	}
	return s.err
}

func (s *streamEdit) plain() ([]byte, error) {
	defer s.discard()
	if err := s.finish(); err != nil {
		return nil, err
	}
	data, err := s.decode()
	s.err = err
	return data, err
}

// decode returns the plain content of the finished temporary file.
func (s *streamEdit) decode() ([]byte, error) {
	info, err := s.tmp.Stat()
	if err != nil {
		return nil, err
	}
	src, err := newSource(s.f.fsys.decoders, s.tmp, info.Size())
	if err != nil {
		return nil, err
	}
	return readAll(src)
}

func (s *streamEdit) commit() error {
	if err := s.finish(); err != nil {
		s.tmp.Abort()
		return err
	}
	return s.tmp.Commit()
}

func (s *streamEdit) discard() { s.tmp.Abort() }

// cursor reads a source sequentially from its start.
type cursor struct {
	src *source
	off int64
}

func (c *cursor) Read(p []byte) (int, error) {
	n, err := c.src.Read(p, c.off)
	c.off += int64(n)
	return n, err
}

// bufferEdit holds the whole plain content in memory, for writes anywhere.
type bufferEdit struct {
	f    *file
	data []byte
}

func (b *bufferEdit) size() (int64, error) { return int64(len(b.data)), nil }

func (b *bufferEdit) writeAt(p []byte, off int64) (bool, error) {
	end := off + int64(len(p))
	if err := b.grow(end); err != nil {
		return true, err
	}
	copy(b.data[off:], p)
	return true, nil
}

// grow extends the content with zero bytes to size bytes, if it is shorter.
func (b *bufferEdit) grow(size int64) error {
	if size > MaxBuffer {
		return ErrTooLarge
	}
	if gap := size - int64(len(b.data)); gap > 0 {
		b.data = append(b.data, make([]byte, gap)...)
	}
	return nil
}

func (b *bufferEdit) truncate(size int64) error {
	if size < int64(len(b.data)) {
		b.data = b.data[:size]
		return nil
	}
	return b.grow(size)
}

func (b *bufferEdit) plain() ([]byte, error) { return b.data, nil }

func (b *bufferEdit) commit() error {
	s, err := b.f.newStream(nil)
	if err != nil {
		return err
	}
	if _, err := s.writeAt(b.data, 0); err != nil {
		s.discard()
		return err
	}
	return s.commit()
}

func (b *bufferEdit) discard() {}

// failedEdit stands for an edit whose commit failed: what it held is lost,
// and every later use of the file reports why.
type failedEdit struct{ err error }

func (e failedEdit) size() (int64, error)                { return 0, e.err }
func (e failedEdit) writeAt([]byte, int64) (bool, error) { return true, e.err }
func (e failedEdit) plain() ([]byte, error)              { return nil, e.err }
func (e failedEdit) commit() error                       { return e.err }
func (e failedEdit) discard()                            {}
