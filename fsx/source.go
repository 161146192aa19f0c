package fsx

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/b14fs/b14fs/core"
	"github.com/spf13/afero"
)

// A source is the decoded content of a stored file, read at any offset.
//
// For a core.BlockCodec whose streams have blocks, the size comes from the
// layout (unless the stream has none: core.ErrNoLayout). When its blocks are
// independent, ReadAt decodes only the blocks it needs and takes no lock but
// the base file's, so concurrent ReadAt calls proceed in parallel. Other
// codecs decode from the start of the file; a read that continues where the
// previous one stopped reuses its decoder.
type source struct {
	dec    *decoders
	at     *baseReaderAt
	stored int64        // the stored size
	layout *core.Layout // nil unless the codec has blocks (decoders.blocks)
	blocks bool         // whether decoding may start at any block

	next atomic.Int64 // where the last ReadAt asked to end

	mu     sync.Mutex     // guards the fields below
	closed bool           // after close: a read keeps no decoder
	size   int64          // the decoded size, -1 until known
	cur    *shiftedErrors // a decoder positioned at plain offset pos, or nil
	pos    int64
}

// ConcurrentReaderAt is implemented by base files (the afero.File a base
// filesystem's Open returns) whose ReadAt is safe for concurrent use, as
// io.ReaderAt asks but not every afero.File gives: mem.File's ReadAt moves
// an offset the file's Read shares. fsx calls the ReadAt of other base files
// one at a time, but for an *os.File (pread). Over a file that reports true,
// it does not: concurrent ReadAt calls on an fsx file read its base at once,
// and a sequential read keeps two chunks in flight instead of one, which
// hides a network's round trips between them. fsx's own files implement it
// too, for those who read them (the mount), and report true.
type ConcurrentReaderAt interface {
	io.ReaderAt
	// ConcurrentReadAt reports whether ReadAt calls may run at once.
	ConcurrentReadAt() bool
}

// baseReaderAt is a base file's ReadAt, serialized unless the file is a
// ConcurrentReaderAt.
type baseReaderAt struct {
	mu         sync.Mutex // held by each ReadAt unless concurrent
	r          io.ReaderAt
	concurrent bool
}

// newBaseReaderAt returns r's ReadAt, which the sources over one base file
// share. An afero.BasePathFile is asked what the file it wraps can do.
func newBaseReaderAt(r io.ReaderAt) *baseReaderAt {
	inner := r
	for {
		bp, ok := inner.(*afero.BasePathFile)
		if !ok {
			break
		}
		inner = bp.File
	}
	var concurrent bool
	switch c := inner.(type) {
	case *os.File:
		concurrent = true // pread(2)
	case ConcurrentReaderAt:
		concurrent = c.ConcurrentReadAt()
	}
	return &baseReaderAt{r: r, concurrent: concurrent}
}

func (b *baseReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if !b.concurrent {
		b.mu.Lock()
		defer b.mu.Unlock()
	}
	return b.r.ReadAt(p, off)
}

// readsAhead returns how many chunks a sequential read over b keeps in
// flight while its codec decodes.
func (b *baseReaderAt) readsAhead() int {
	if b.concurrent {
		return 2
	}
	return 1
}

// newSource returns the decoded content by c of the stored stream read from
// r, which holds size bytes. An empty stored file is an empty file, whatever
// the codec. Sources of one base file share its lock when r is a
// *baseReaderAt.
func newSource(c *decoders, r io.ReaderAt, size int64) (*source, error) {
	at, ok := r.(*baseReaderAt)
	if !ok {
		at = newBaseReaderAt(r)
	}
	s := &source{dec: c, at: at, stored: size, size: -1}
	if size == 0 {
		s.size = 0
		return s, nil
	}
	if bc := c.blocks; bc != nil {
		var lr io.ReaderAt = s.at
		if s.at.concurrent {
			lr = readEnds(s.at, size)
		}
		l, err := bc.Layout(lr, size)
		switch {
		case errors.Is(err, core.ErrNoLayout):
			// A stream without its blocks where they belong, such as text
			// with line breaks: decoded from its start, as other codecs'.
		case err != nil:
			return nil, err
		default:
			s.layout, s.size, s.blocks = &l, l.Size, l.Independent
		}
	}
	return s, nil
}

// layoutEnds is how many bytes at each end of a stored file newSource reads
// at once for a codec's Layout, over a base whose ReadAt may run
// concurrently (see endsReaderAt).
const layoutEnds = 4 << 10

// endsReaderAt serves the ReadAt calls that fall within the first or last
// layoutEnds bytes of a stored file from memory, and others from the base.
// Both ends are read at once, so that a Layout that reads a header and then
// a trailer costs one round trip to a network base, not two.
type endsReaderAt struct {
	r          io.ReaderAt
	head, tail []byte
	tailOff    int64 // where tail starts
}

// readEnds reads both ends of the size bytes r holds at once. When either
// read fails, it returns r itself, whose reads then fail the Layout as they
// would have.
func readEnds(r io.ReaderAt, size int64) io.ReaderAt {
	n := min(size, layoutEnds)
	e := &endsReaderAt{r: r, head: make([]byte, n), tailOff: size - n}
	var tailErr error
	done := make(chan struct{})
	if size > n { // else the head is the whole file
		e.tail = make([]byte, n)
		go func() {
			defer close(done)
			if m, err := r.ReadAt(e.tail, e.tailOff); err != nil && (err != io.EOF || m < len(e.tail)) {
				tailErr = err
			}
		}()
	} else {
		close(done)
	}
	m, err := r.ReadAt(e.head, 0)
	<-done
	if err != nil && (err != io.EOF || m < len(e.head)) || tailErr != nil {
		return r
	}
	return e
}

func (e *endsReaderAt) ReadAt(p []byte, off int64) (int, error) {
	end := off + int64(len(p))
	switch {
	case off >= 0 && end <= int64(len(e.head)):
		return copy(p, e.head[off:]), nil
	case off >= e.tailOff && end <= e.tailOff+int64(len(e.tail)):
		return copy(p, e.tail[off-e.tailOff:]), nil
	}
	return e.r.ReadAt(p, off)
}

// close releases the decoder the source holds. A read running meanwhile,
// or after, releases the one it uses when it returns.
func (s *source) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.releaseLocked()
}

// releaseLocked releases the decoder the source holds. s.mu is held.
func (s *source) releaseLocked() {
	if s.cur != nil {
		s.dec.put(s.cur)
		s.cur = nil
	}
}

// Size returns the decoded size. Unless the codec is a core.BlockCodec, the
// first call decodes the whole file.
func (s *source) Size() (int64, error) {
	if s.layout != nil {
		return s.layout.Size, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.size < 0 {
		dec := s.decoder(0, s.stored, readChunk)
		n, err := io.Copy(io.Discard, dec)
		s.dec.put(dec)
		if err != nil {
			return 0, err
		}
		s.size = n
	}
	return s.size, nil
}

// decoder returns a decoder of the stored bytes in [enc, end), which reads
// them from the base first bytes at a time at first (see chunkReader).
func (s *source) decoder(enc, end int64, first int) *shiftedErrors {
	form := ""
	if s.layout != nil && enc >= s.layout.Header {
		form = s.layout.Form // a start at a block, past the header
	}
	return s.dec.get(io.NewSectionReader(s.at, enc, end-enc), enc, first, s.at.readsAhead(), form)
}

// readChunk is the most stored bytes a decoder asks the base file for at a
// time, whatever sizes the codec reads in: a ReadAt whose blocks span no
// more costs one ReadAt of the base, which is one ranged request on an
// object store. Sequential reads start with readAhead bytes and double
// that on each read of the base, up to readChunk, so that a short read
// near the start of a file reads little more than it needs, and a long
// one keeps many requests in flight on a network filesystem (SFTP splits
// a ReadAt into concurrent requests). Once a sequential read has reached
// chunks of prefetchFrom bytes, the next chunks, when they are that long
// too, are read while the codec decodes the current one, so that the base
// is never idle while fsx decodes (a shorter one, the end of a file, costs
// less to read than to hand to another goroutine).
//
// A ReadAt of readBlocksFrom bytes or more, over a codec whose blocks are
// independent, reads its own blocks, not through the cursor.
const (
	readChunk      = 4 << 20
	readAhead      = 32 << 10
	prefetchFrom   = 1 << 20
	readBlocksFrom = 128 << 10
)

// chunkReader reads a section of a stored file with one ReadAt of the base
// per chunk: the first of first bytes, each next one twice as long, up to
// readChunk. Once its chunks are prefetchFrom bytes long, it reads the next
// ones, if that long too, in the background while its reader works on the
// current one: up to ahead chunks at once.
type chunkReader struct {
	r     *io.SectionReader
	ahead int
	off   int64  // where in r the next chunk to ask for starts
	buf   []byte // the chunk being read
	data  []byte // the unread part of buf
	next  int    // the length of the next chunk to ask for

	pending []*fetch // the chunks being read in the background, in order
	free    []*fetch // fetches done with, whose buffers are reused
}

// A fetch is a chunk read in the background.
type fetch struct {
	buf  []byte
	off  int64 // where in the section it starts
	size int   // how many bytes it asks for
	n    int
	err  error
	done chan struct{} // closed when buf[:n] and err are set; made anew each time
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		n, err := c.nextChunk()
		c.data = c.buf[:n]
		if n == 0 {
			return 0, err
		}
		if err == nil {
			c.prefetch()
		}
	}
	n := copy(p, c.data)
	c.data = c.data[n:]
	return n, nil
}

// nextChunk makes c.buf hold the next chunk, the first of those read in the
// background if any, and returns its length. A read in the background that
// failed, or returned fewer bytes than asked for, drops those after it and
// makes the next chunk start where it stopped. A base whose ReadAt returns
// no bytes and no error (which io.ReaderAt forbids) gets io.ErrNoProgress,
// not a reader that never ends.
func (c *chunkReader) nextChunk() (n int, err error) {
	if len(c.pending) == 0 {
		c.buf = grow(c.buf, c.next)
		n, err = c.r.ReadAt(c.buf[:min(int64(c.next), c.left())], c.off)
		c.off += int64(n)
		c.next = min(2*c.next, readChunk)
	} else {
		f := c.pending[0]
		c.pending = c.pending[:copy(c.pending, c.pending[1:])]
		<-f.done
		c.buf, f.buf = f.buf, c.buf
		c.free = append(c.free, f)
		n, err = f.n, f.err
		if n < f.size || err != nil && (err != io.EOF || f.off+int64(n) < c.r.Size()) {
			c.wait()
			c.off = f.off + int64(n)
		}
	}
	switch {
	case err == io.EOF && n > 0:
		err = nil // the end of the section: the next read says so
	case err == nil && n == 0:
		err = io.ErrNoProgress
	}
	return n, err
}

// left returns how many bytes of r are still to be asked for.
func (c *chunkReader) left() int64 { return c.r.Size() - c.off }

// prefetch starts reading the next chunks in the background while they
// are prefetchFrom bytes or more, up to c.ahead at once. A buffer too short
// for its chunk is made as long as the chunks to come, so that each is
// allocated once.
func (c *chunkReader) prefetch() {
	for len(c.pending) < c.ahead && c.next >= prefetchFrom && c.left() >= prefetchFrom {
		size := int(min(int64(c.next), c.left()))
		var f *fetch
		if k := len(c.free); k > 0 {
			f, c.free = c.free[k-1], c.free[:k-1]
		} else {
			f = new(fetch)
		}
		if len(f.buf) < size {
			f.buf = make([]byte, min(readChunk, c.left()))
		}
		f.off, f.size, f.done = c.off, size, make(chan struct{})
		c.off += int64(size)
		c.next = min(2*c.next, readChunk)
		c.pending = append(c.pending, f)
		go func(r io.ReaderAt, f *fetch, p []byte) {
			f.n, f.err = r.ReadAt(p, f.off)
			close(f.done)
		}(c.r, f, f.buf[:size])
	}
}

// wait waits for the chunks being read in the background and drops them.
func (c *chunkReader) wait() {
	for _, f := range c.pending {
		<-f.done
		c.free = append(c.free, f)
	}
	c.pending = c.pending[:0]
}

// reset makes c read r, first bytes at first, with up to ahead chunks read
// in the background.
func (c *chunkReader) reset(r *io.SectionReader, first, ahead int) {
	c.r, c.ahead, c.off, c.data = r, ahead, 0, nil
	c.next = int(max(min(int64(first), readChunk, r.Size()), 1))
}

// stop waits for the chunks being read in the background, if any, and
// drops what c holds, so that it may be reused.
func (c *chunkReader) stop() {
	c.wait()
	c.r, c.data = nil, nil
}

// grow returns buf, or a new buffer when buf is shorter than n bytes.
func grow(buf []byte, n int) []byte {
	if len(buf) < n {
		return make([]byte, n)
	}
	return buf
}

// decoders makes a codec's decoders, reusing them when they are
// core.ReaderResetters and closing them otherwise, and holds the codec's
// blocks.
type decoders struct {
	codec   core.Codec
	blocks  *blockCodec // nil unless codec is a core.BlockCodec whose streams have blocks
	pool    sync.Pool   // of *shiftedErrors holding a core.ReaderResetter
	forms   sync.Map    // form -> *sync.Pool of the core.FormDecoder's decoders
	readers sync.Pool   // of *chunkReader
}

// newDecoders returns the decoders of c.
func newDecoders(c core.Codec) *decoders {
	d := &decoders{codec: c}
	if bc, ok := c.(core.BlockCodec); ok {
		if l, err := bc.WriteLayout(); err == nil {
			d.blocks = &blockCodec{bc, l}
		}
	}
	return d
}

// A blockCodec is a core.BlockCodec whose streams have blocks, laid out as
// its WriteLayout says. fsx edits only its files in place; files of any
// other codec, a BlockCodec whose WriteLayout returns an error
// (core.ErrNoLayout) too, are decoded from their start and written whole.
type blockCodec struct {
	core.BlockCodec
	write core.Layout // the codec's WriteLayout
}

// encodeBlocks returns the encoding of p without the header the codec
// writes first.
func (bc *blockCodec) encodeBlocks(p []byte) ([]byte, error) {
	var b bytes.Buffer
	w := bc.NewEncodeWriter(&b)
	if _, err := w.Write(p); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes()[bc.write.Header:], nil
}

// get returns a decoder of the section r, which starts at offset base of a
// stored file, reading first bytes of it from the base at first and up to
// ahead chunks in the background (see chunkReader). form, when set, is the
// form of the stream whose blocks r starts at, which a core.FormDecoder
// decodes them in.
func (d *decoders) get(r *io.SectionReader, base int64, first, ahead int, form string) *shiftedErrors {
	c, ok := d.readers.Get().(*chunkReader)
	if !ok {
		c = &chunkReader{}
	}
	c.reset(r, first, ahead)
	pool := d.poolOf(form)
	if s, ok := pool.Get().(*shiftedErrors); ok {
		s.r.(core.ReaderResetter).Reset(c)
		s.src, s.base = c, base
		return s
	}
	if fd, ok := d.codec.(core.FormDecoder); ok && form != "" {
		if r, err := fd.NewFormDecodeReader(c, form); err == nil {
			return &shiftedErrors{r: r, src: c, base: base, pool: pool}
		}
	}
	return &shiftedErrors{r: d.codec.NewDecodeReader(c), src: c, base: base, pool: &d.pool}
}

// poolOf returns the pool of the decoders of form: the FormDecoder's of
// that form, or the codec's own.
func (d *decoders) poolOf(form string) *sync.Pool {
	if _, ok := d.codec.(core.FormDecoder); !ok || form == "" {
		return &d.pool
	}
	p, _ := d.forms.LoadOrStore(form, new(sync.Pool))
	return p.(*sync.Pool)
}

// put makes a decoder from get available for reuse, or closes it. One it
// closes, it closes before it stops and pools the decoder's source: until
// its Close returns, a decoder may still read its source (a plugin's stream
// does, from a goroutine of its own).
func (d *decoders) put(s *shiftedErrors) {
	_, reuse := s.r.(core.ReaderResetter)
	if !reuse {
		s.r.Close()
	}
	s.src.stop()
	d.readers.Put(s.src)
	s.src = nil
	if reuse {
		s.pool.Put(s)
	}
}

// shiftedErrors adds base to the offset of the *core.DataError a decoder
// started base bytes into a stored file returns, so that the error names the
// offset in the file.
type shiftedErrors struct {
	r    io.ReadCloser
	src  *chunkReader // what r reads from
	base int64
	pool *sync.Pool // where put returns it
}

func (s *shiftedErrors) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.base != 0 {
		err = shiftDataError(err, s.base)
	}
	return n, err
}

// shiftDataError returns err with base added to the offset of the
// *core.DataError it holds, if any.
func shiftDataError(err error, base int64) error {
	var de *core.DataError
	if errors.As(err, &de) {
		return &core.DataError{Codec: de.Codec, Offset: de.Offset + base, Err: de.Err}
	}
	return err
}

// ReadAt reads len(p) decoded bytes from offset off, as io.ReaderAt does.
// A short ReadAt that starts where the previous one ended continues the
// cursor that Read uses, so that a file read sequentially in short ReadAt
// calls is read from the base in growing chunks fetched ahead, not one base
// read per call; others decode only the blocks they need.
func (s *source) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errNegativeOffset
	}
	sequential := s.next.Swap(off+int64(len(p))) == off && off > 0
	switch {
	case !s.blocks:
		s.mu.Lock()
	case !sequential || len(p) >= readBlocksFrom || !s.mu.TryLock():
		// Not where the previous read ended; or long enough to be worth a
		// base read of its own blocks, which reads no more than it needs
		// (the mount's reads are up to 1 MiB; with --cache, the kernel's
		// readahead sends several at once); or the cursor is busy with
		// another read. Such reads decode their own blocks, in parallel.
		return s.readBlocks(p, off)
	}
	defer s.mu.Unlock()
	defer s.releaseIfClosed()
	n := 0
	for n < len(p) {
		m, err := s.readLocked(p[n:], off+int64(n))
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readBlocks reads len(p) decoded bytes from offset off, as io.ReaderAt
// does, decoding only the blocks that hold them. s.blocks is true.
func (s *source) readBlocks(p []byte, off int64) (int, error) {
	l := s.layout
	if off >= l.Size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	enc, plain := l.EncodedOffset(off)
	dec := s.decoder(enc, s.blocksEnd(off+int64(len(p))), readChunk)
	defer s.dec.put(dec)
	if err := discard(dec, off-plain, p); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(dec, p)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = io.EOF
		if off+int64(n) < l.Size {
			err = io.ErrUnexpectedEOF
		}
	}
	return n, err
}

// discard reads and drops n bytes from r, using buf as scratch space.
func discard(r io.Reader, n int64, buf []byte) error {
	for n > 0 {
		m, err := io.ReadFull(r, buf[:min(int64(len(buf)), n)])
		n -= int64(m)
		if err != nil {
			return noEOF(err)
		}
	}
	return nil
}

// blocksEnd returns the stored offset where the blocks holding the plain
// bytes before plainEnd end: the end of the file for the last block, which
// may carry a trailer.
func (s *source) blocksEnd(plainEnd int64) int64 {
	l := s.layout
	pb := int64(l.PlainBlock)
	if plainEnd >= l.Size/pb*pb {
		return s.stored
	}
	blocks := (plainEnd + pb - 1) / pb
	return l.Header + blocks*int64(l.EncodedBlock)
}

// Read reads decoded bytes from offset off, continuing the previous Read's
// decoder when it stopped there.
func (s *source) Read(p []byte, off int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.releaseIfClosed()
	return s.readLocked(p, off)
}

// releaseIfClosed releases the decoder a read on a closed source took.
// s.mu is held.
func (s *source) releaseIfClosed() {
	if s.closed {
		s.releaseLocked()
	}
}

func (s *source) readLocked(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.cur == nil || s.pos != off {
		if err := s.seekLocked(off, len(p)); err != nil {
			return 0, err
		}
	}
	n, err := s.cur.Read(p)
	s.pos += int64(n)
	s.noteEOF(err)
	return n, err
}

// seekLocked positions the cursor at plain offset off, for a read of want
// bytes: forward from where it is when that is on the way, else from the
// start of the block holding off for a block codec, from the start of the
// file otherwise. A new cursor's first read of the base holds the blocks
// of those want bytes whole, so that a read that starts a cursor costs one
// read of the base.
func (s *source) seekLocked(off int64, want int) error {
	if s.size >= 0 && off >= s.size {
		return io.EOF
	}
	var from, enc int64
	if s.blocks {
		enc, from = s.layout.EncodedOffset(off)
	}
	if s.cur != nil && from <= s.pos && s.pos <= off {
		from = s.pos
	} else {
		if s.cur != nil {
			s.dec.put(s.cur)
		}
		first := readAhead
		if s.blocks {
			// A block more, as a decoder keeps the last bytes it has
			// until it sees what follows them.
			need := s.blocksEnd(off+int64(want)) + int64(s.layout.EncodedBlock) - enc
			first = int(max(int64(first), min(need, readChunk)))
		}
		s.cur = s.decoder(enc, s.stored, first)
	}
	s.pos = from
	n, err := io.CopyN(io.Discard, s.cur, off-from)
	s.pos += n
	s.noteEOF(err)
	return err
}

// noteEOF records the decoded size when the cursor met the end of the data
// and the size was not known.
func (s *source) noteEOF(err error) {
	if err == io.EOF && s.size < 0 {
		s.size = s.pos
	}
}

// noEOF turns io.EOF, met where data was still due, into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
