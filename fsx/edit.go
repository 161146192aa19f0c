package fsx

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/fsutil/parallel"
	"github.com/spf13/afero"
)

// streamEdit encodes sequential writes into a temporary file next to the
// stored one, which replaces it on commit.
type streamEdit struct {
	ino *inode
	tmp *atomicfile.File
	buf *bufio.Writer
	enc io.WriteCloser
	n   int64 // plain bytes written
	err error // the first failure, after which the stream is unusable
}

// newStream starts a stream whose content begins with prefix's, if any.
// ino.mu is held.
func (ino *inode) newStream(prefix *source) (*streamEdit, error) {
	tmp, err := ino.createTemp()
	if err != nil {
		return nil, err
	}
	s := &streamEdit{ino: ino, tmp: tmp, buf: bufio.NewWriterSize(tmp, 64<<10)}
	s.enc = ino.fsys.codec.NewEncodeWriter(s.buf)
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
// in that directory. ino.mu is held.
func (ino *inode) createTemp() (*atomicfile.File, error) {
	stored, _ := ino.storedPath()
	ino.fsys.removeStale(filepath.Dir(stored))
	tmp, err := atomicfile.Create(ino.fsys.base, stored, 0o600)
	if err != nil {
		return nil, err
	}
	if err := tmp.Chmod(ino.info.Mode() & atomicfile.ModeBits); err != nil {
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

// finish flushes the encoder into the temporary file. An empty content
// that the codec cannot encode (bencode's JSON side has no encoding of
// nothing) is stored empty, as an empty stored file reads.
func (s *streamEdit) finish() error {
	if s.err == nil {
		s.err = s.enc.Close()
		if s.err != nil && s.n == 0 {
			s.buf.Reset(s.tmp)
			s.err = s.tmp.Truncate(0)
		}
	}
	if s.err == nil {
		s.err = s.buf.Flush()
	}
	return s.err
}

// finished finishes the stream and returns the content of the temporary
// file, which stays the stream's until commit or discard.
func (s *streamEdit) finished() (*source, error) {
	if err := s.finish(); err != nil {
		return nil, err
	}
	info, err := s.tmp.Stat()
	if err != nil {
		return nil, err
	}
	return newSource(s.ino.fsys.decoders, s.tmp, info.Size())
}

func (s *streamEdit) commit() error {
	if err := s.finish(); err != nil {
		s.tmp.Abort()
		return err
	}
	// One Stat of the stored file, and one of the temporary file, serve
	// all that follows: each is a round trip over a network, where they
	// are made at once.
	stored, _ := s.ino.storedPath()
	var info, tinfo os.FileInfo
	var err, terr error
	parallel.For(2, ConcurrentLookups(s.ino.fsys), func(i int) {
		if i == 0 {
			info, err = s.ino.fsys.base.Stat(stored)
		} else {
			tinfo, terr = s.tmp.Stat()
		}
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		info, err = nil, nil // removed meanwhile: the rename creates it again
	case err == nil:
		if err = terr; err == nil {
			// (tinfo is the temporary file's own Stat: a base may share
			// one FileInfo among the opens of a file, as MemMapFs does, so
			// ino.info may be current already.)
			err = atomicfile.KeepAttrs(s.tmp, info, tinfo)
		}
	}
	if err != nil {
		s.tmp.Abort()
		return err
	}
	if info != nil && links(info) > 1 {
		// Renaming over one name would split the file from its others.
		defer s.tmp.Abort()
		return copyOver(s.ino.fsys.base, stored, s.tmp)
	}
	return s.ino.fsys.replace(s.tmp, info, tinfo)
}

// copyOver writes the content of tmp over the stored file at path, in
// place, and syncs it: how a file with several names (hard links) is
// stored, so that all its names keep showing one file. A crash meanwhile
// can leave it partly written, as a program writing a local file in place
// would.
func copyOver(base afero.Fs, path string, tmp afero.File) error {
	info, err := tmp.Stat()
	if err != nil {
		return err
	}
	bf, err := base.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	buf := make([]byte, stageChunk)
	for off := int64(0); off < info.Size(); {
		n, err := tmp.ReadAt(buf[:min(int64(len(buf)), info.Size()-off)], off)
		if n > 0 {
			if _, werr := bf.WriteAt(buf[:n], off); werr != nil {
				err = werr
			}
		}
		if err != nil && (err != io.EOF || n == 0) {
			bf.Close()
			return err
		}
		off += int64(n)
	}
	err = bf.Truncate(info.Size())
	if err == nil {
		err = bf.Sync()
	}
	if cerr := bf.Close(); err == nil {
		err = cerr
	}
	return err
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

// stageEdit holds writes at any offset, and truncations, on disk rather than
// in memory: each written byte goes to the same offset of a sparse scratch
// file next to the stored file, and spans records which bytes are there.
// The content's other bytes are those of src, the content the edit started
// from, up to keep, and zero bytes past it. What it costs in memory is the
// list of written ranges, whatever the file's size.
//
// Its commit rewrites only the blocks the writes touched, in place, when the
// codec is a block codec that encodes each block on its own and the stored
// file is still the one src reads (see commitInPlace); otherwise it encodes
// the whole content into a temporary file that replaces the stored one.
type stageEdit struct {
	ino     *inode
	src     *source
	srcTmp  *atomicfile.File // the finished stream src reads, or nil when src is the stored file
	keep    int64            // src's bytes before keep are part of the content
	n       int64            // the content's size
	scratch *atomicfile.File // the written bytes, at their offsets
	spans   []span           // the written ranges: sorted, disjoint, not touching
	err     error            // the first failure, after which the edit is unusable
}

// A span is the range of offsets [start, end).
type span struct{ start, end int64 }

// newStage starts a stage over src, which srcTmp holds unless it is the
// stored file. The stage owns srcTmp from then on. ino.mu is held.
func (ino *inode) newStage(src *source, srcTmp *atomicfile.File) (*stageEdit, error) {
	size, err := src.Size()
	if err != nil {
		return nil, err
	}
	stored, _ := ino.storedPath()
	ino.fsys.removeStale(filepath.Dir(stored))
	scratch, err := atomicfile.Create(ino.fsys.base, stored, 0o600)
	if err != nil {
		return nil, err
	}
	return &stageEdit{ino: ino, src: src, srcTmp: srcTmp, keep: size, n: size, scratch: scratch}, nil
}

// stage turns the current content into a stageEdit, if it is not one yet.
// ino.mu is held.
func (ino *inode) stage() (*stageEdit, error) {
	var s *stageEdit
	var err error
	switch e := ino.edit.(type) {
	case *stageEdit:
		return e, nil
	case nil:
		if err = ino.ensureLoaded(); err == nil {
			s, err = ino.newStage(ino.src, nil)
		}
	case *streamEdit:
		var src *source
		if src, err = e.finished(); err == nil {
			if s, err = ino.newStage(src, e.tmp); err == nil {
				ino.edit = s // it owns e's temporary file now
				return s, nil
			}
		}
	case *appendEdit:
		if s, err = ino.newStage(ino.src, nil); err == nil {
			if _, err = s.writeAt(e.pending, e.srcSize); err != nil {
				s.discard()
			}
		}
	}
	if err != nil {
		return nil, err
	}
	ino.setEdit(s)
	return s, nil
}

func (s *stageEdit) size() (int64, error) { return s.n, s.err }

func (s *stageEdit) writeAt(p []byte, off int64) (bool, error) {
	if s.err != nil {
		return true, s.err
	}
	if len(p) == 0 {
		return true, nil
	}
	if _, err := s.scratch.WriteAt(p, off); err != nil {
		s.err = err
		return true, err
	}
	end := off + int64(len(p))
	s.addSpan(off, end)
	s.n = max(s.n, end)
	return true, nil
}

// addSpan records that [start, end) was written, merging the ranges it
// overlaps or touches.
func (s *stageEdit) addSpan(start, end int64) {
	i := s.firstEndingAtOrAfter(start)
	j := i
	for j < len(s.spans) && s.spans[j].start <= end {
		start = min(start, s.spans[j].start)
		end = max(end, s.spans[j].end)
		j++
	}
	s.spans = append(s.spans[:i], append([]span{{start, end}}, s.spans[j:]...)...)
}

// firstEndingAtOrAfter returns the index of the first span whose end is at
// least off.
func (s *stageEdit) firstEndingAtOrAfter(off int64) int {
	lo, hi := 0, len(s.spans)
	for lo < hi {
		m := (lo + hi) / 2
		if s.spans[m].end < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// truncate sets the content's size: bytes past size are dropped, and
// growing adds zero bytes.
func (s *stageEdit) truncate(size int64) error {
	if s.err != nil {
		return s.err
	}
	if size < s.n {
		i := s.firstEndingAtOrAfter(size + 1)
		if i < len(s.spans) && s.spans[i].start < size {
			s.spans[i].end = size
			i++
		}
		s.spans = s.spans[:i]
		s.keep = min(s.keep, size)
		if err := s.scratch.Truncate(size); err != nil {
			s.err = err
			return err
		}
	}
	s.n = size
	return nil
}

// readAt reads the content at off, as io.ReaderAt does.
func (s *stageEdit) readAt(p []byte, off int64) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if off < 0 {
		return 0, errNegativeOffset
	}
	if off >= s.n {
		return 0, io.EOF
	}
	want := min(int64(len(p)), s.n-off)
	q, pos := p[:want], off
	i := s.firstEndingAtOrAfter(pos + 1)
	for len(q) > 0 {
		var m int64
		if i < len(s.spans) && s.spans[i].start <= pos {
			m = min(int64(len(q)), s.spans[i].end-pos)
			if err := readFullAt(s.scratch, q[:m], pos); err != nil {
				return int(pos - off), err
			}
			i++
		} else {
			next := s.n
			if i < len(s.spans) {
				next = s.spans[i].start
			}
			m = min(int64(len(q)), next-pos)
			k := max(0, min(m, s.keep-pos))
			if k > 0 {
				if err := readFullAt(s.src, q[:k], pos); err != nil {
					return int(pos - off), err
				}
			}
			clear(q[k:m])
		}
		q, pos = q[m:], pos+m
	}
	if want < int64(len(p)) {
		return int(want), io.EOF
	}
	return int(want), nil
}

// readFullAt fills p from r at off, or fails.
func readFullAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func (s *stageEdit) commit() error {
	defer s.discard()
	if s.err != nil {
		return s.err
	}
	done, err := s.commitInPlace()
	if done || err != nil {
		return err
	}
	return s.rewrite()
}

// stageChunk is how many plain bytes a commit reads and encodes at a time.
const stageChunk = 256 << 10

// rewrite encodes the whole content into a temporary file that replaces the
// stored file.
func (s *stageEdit) rewrite() error {
	st, err := s.ino.newStream(nil)
	if err != nil {
		return err
	}
	buf := make([]byte, min(stageChunk, max(s.n, 1)))
	for off := int64(0); off < s.n; {
		m, err := s.readAt(buf[:min(int64(len(buf)), s.n-off)], off)
		if err == nil || err == io.EOF {
			_, err = st.writeAt(buf[:m], off)
		}
		if err != nil {
			st.discard()
			return err
		}
		off += int64(m)
	}
	return st.commit()
}

func (s *stageEdit) discard() {
	s.scratch.Abort()
	if s.srcTmp != nil {
		s.srcTmp.Abort()
	}
}

// commitInPlace stores the content by rewriting, in the stored file itself,
// only the blocks the edit changed, and reports whether it could: the codec
// must be a block codec that encodes each block on its own (see
// encodesBlocksAlone), in the stored file's form, and the stored file must
// still be the one the edit started from, as it was (otherwise the whole
// content is rewritten through a temporary file, and the last commit wins).
//
// Blocks before the stored file's last, partial block (or before the new
// end, if the file got shorter) are overwritten where they are. The rest,
// the tail, is written as an append in place is (see writeTail): first what
// lies past the old end, synced, then the few bytes over the old last block,
// then a truncation if the file got shorter, synced. A crash in between can
// leave each rewritten block old or new, and the end as an interrupted
// append leaves it.
func (s *stageEdit) commitInPlace() (bool, error) {
	bc := s.ino.fsys.decoders.blocks
	l := s.src.layout
	if bc == nil || !s.ino.fsys.inPlace || s.srcTmp != nil || l == nil || s.src.stored == 0 || !l.Independent || l.Form != bc.write.Form {
		return false, nil
	}
	pb, eb := int64(l.PlainBlock), int64(l.EncodedBlock)
	stored, _ := s.ino.storedPath()
	bf, err := s.ino.fsys.base.OpenFile(stored, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer bf.Close()
	// Under the lock an append in place takes (another view's, such as
	// another mount of the directory): the check that the stored file is
	// still as the edit found it holds until the tail is written, and no
	// append rewrites the tail meanwhile.
	unlock, _ := lockStored(bf, true)
	defer unlock()
	info, err := bf.Stat()
	if err != nil {
		return false, err
	}
	if !sameID(info, s.ino.info) || info.Size() != s.src.stored {
		return false, nil
	}

	oldSize, oldStored := l.Size, s.src.stored
	tailStart := min(oldSize, s.n) / pb * pb
	dirty := s.spans
	if end := min(oldSize, s.n); s.keep < end {
		// Bytes that a truncation turned to zeros and a later growth
		// brought back.
		dirty = append(slices.Clone(dirty), span{s.keep, end})
	}
	tail := s.n != oldSize
	var blocks []span // block numbers before tailStart to rewrite
	for _, d := range dirty {
		if d.end > tailStart {
			tail = true
		}
		if d.start >= tailStart {
			continue
		}
		blocks = append(blocks, span{d.start / pb, min((d.end+pb-1)/pb, tailStart/pb)})
	}
	slices.SortFunc(blocks, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	blocks = mergeSpans(blocks)

	buf := make([]byte, stageChunk/pb*pb)
	for _, b := range blocks {
		for blk := b.start; blk < b.end; {
			count := min(b.end-blk, int64(len(buf))/pb)
			p := buf[:count*pb]
			if err := readFullAt(stageReader{s}, p, blk*pb); err != nil {
				return true, err
			}
			enc, err := bc.encodeBlocks(p)
			if err != nil {
				return true, err
			}
			if int64(len(enc)) != count*eb {
				return true, errors.New("fsx: the codec encoded whole blocks to an unexpected length")
			}
			if _, err := bf.WriteAt(enc, l.Header+blk*eb); err != nil {
				return true, err
			}
			blk += count
		}
	}
	if !tail {
		return true, bf.Sync()
	}
	tailOff := l.Header + tailStart/pb*eb
	newStored := l.Header + bc.EncodedLen(s.n)
	return true, s.writeTail(bf, bc, tailStart, tailOff, oldStored, newStored)
}

// writeTail encodes the content from plain offset start (a block boundary)
// to its end into bf at stored offset off, so that bf ends at newEnd, where
// it ended at oldEnd. Like writeTail for appends, it writes what lies past
// oldEnd first and syncs, then overwrites the old bytes, which are few (the
// old last block and end marker, or the new last block), truncates and
// syncs; on a failure before the truncation it puts the old bytes back.
func (s *stageEdit) writeTail(bf afero.File, bc *blockCodec, start, off, oldEnd, newEnd int64) error {
	overlapEnd := min(oldEnd, newEnd)
	old := make([]byte, max(overlapEnd-off, 0))
	if err := readFullAt(bf, old, off); err != nil {
		return err
	}
	undo := func(err error) error {
		_, werr := bf.WriteAt(old, off)
		terr := bf.Truncate(oldEnd)
		serr := bf.Sync()
		if rerr := errors.Join(werr, terr, serr); rerr != nil {
			return fmt.Errorf("%w; and restoring the file failed: %w", err, rerr)
		}
		return err
	}
	w := &tailWriter{f: bf, skip: bc.write.Header, pos: off, split: overlapEnd}
	enc := bc.NewEncodeWriter(w)
	buf := make([]byte, stageChunk)
	for pos := start; pos < s.n && w.err == nil; {
		p := buf[:min(int64(len(buf)), s.n-pos)]
		if err := readFullAt(stageReader{s}, p, pos); err != nil {
			return undo(err)
		}
		if _, err := enc.Write(p); err != nil {
			return undo(err)
		}
		pos += int64(len(p))
	}
	if err := enc.Close(); err != nil {
		return undo(err)
	}
	if w.err != nil {
		return undo(w.err)
	}
	if w.pos != newEnd {
		return undo(fmt.Errorf("fsx: the codec encoded %d bytes to %d stored bytes, want %d", s.n, w.pos, newEnd))
	}
	if newEnd > oldEnd {
		if err := bf.Sync(); err != nil {
			return undo(err)
		}
	}
	if _, err := bf.WriteAt(w.head, off); err != nil {
		return undo(err)
	}
	if newEnd < oldEnd {
		if err := bf.Truncate(newEnd); err != nil {
			return undo(err)
		}
	}
	return bf.Sync()
}

// tailWriter takes an encoder's output for the stored file from offset pos
// on, after skip header bytes: it keeps the bytes before split in head and
// writes the others to f at once.
type tailWriter struct {
	f     afero.File
	skip  int64
	pos   int64
	split int64
	head  []byte
	err   error
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n := len(p)
	drop := min(t.skip, int64(len(p)))
	t.skip -= drop
	p = p[drop:]
	if k := min(int64(len(p)), max(t.split-t.pos, 0)); k > 0 {
		t.head = append(t.head, p[:k]...)
		p, t.pos = p[k:], t.pos+k
	}
	if len(p) > 0 {
		if _, err := t.f.WriteAt(p, t.pos); err != nil {
			t.err = err
			return 0, err
		}
		t.pos += int64(len(p))
	}
	return n, nil
}

// mergeSpans merges the overlapping or touching spans of sorted spans.
func mergeSpans(spans []span) []span {
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && out[n-1].end >= sp.start {
			out[n-1].end = max(out[n-1].end, sp.end)
		} else {
			out = append(out, sp)
		}
	}
	return out
}

// stageReader is a stage's content as an io.ReaderAt.
type stageReader struct{ s *stageEdit }

func (r stageReader) ReadAt(p []byte, off int64) (int, error) { return r.s.readAt(p, off) }
