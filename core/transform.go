package core

import (
	"errors"
	"io"
)

// A Transformer is one direction of a codec as a step function, in the
// shape of golang.org/x/text/transform's Transformer: it turns input into
// output a piece at a time, whatever the sizes of the pieces, and knows
// nothing of readers and writers. NewReader and NewWriter make the streams
// around it, and own what every stream must get right: buffering, Close,
// ErrClosed, Reset, and the offsets of data errors. NewCodec makes a whole
// Codec of two Transformers.
type Transformer interface {
	// Transform writes to dst the output for a prefix of src, and returns
	// the bytes of dst written and the bytes of src consumed. atEOF
	// reports that src holds the rest of the input. Transform never
	// modifies src and keeps no reference to src or dst.
	//
	// It returns nil once it has consumed all of src; with atEOF, once it
	// has also written the end of the output. It returns ErrShortDst when
	// dst has no room for the output of what is left, and ErrShortSrc when
	// what is left of src is too little to go on with (a unit split between
	// pieces) and atEOF is false: the stream calls it again with more room,
	// or with the bytes not consumed followed by more input. Any other
	// error ends the stream, after the nDst bytes written before it; a
	// *DataError's Offset counts from src[0], and the stream adds the bytes
	// consumed before the call.
	Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error)

	// Reset returns the transformer to its state before any input. The
	// streams call it when they end or close, so Reset also releases
	// whatever the transformer holds, such as temporary files.
	Reset()
}

var (
	// ErrShortDst is returned by a Transformer whose output does not fit
	// into dst.
	ErrShortDst = errors.New("core: short destination buffer")
	// ErrShortSrc is returned by a Transformer that needs more input than
	// src holds to go on.
	ErrShortSrc = errors.New("core: short source buffer")
)

// The streams' buffers: the input read and not consumed, and the output
// made and not yet returned. The output has room for the input's encoding
// in 8/7 of its size, plus a header: one Transform call a buffer for
// base16384, the densest expansion among the built-in codecs.
const (
	srcSize = 32 << 10
	dstSize = 40 << 10
)

// errNoProgress ends a stream whose Transformer neither consumed input nor
// made output while it had both input and room.
var errNoProgress = errors.New("core: transformer made no progress")

// NewCodec returns the Codec named name whose streams each run a
// Transformer made by encoder (encoding) or decoder (decoding): its pull
// streams are NewReader's, its push streams NewWriter's. A codec with
// capabilities beyond Codec embeds the result in its own type.
func NewCodec(name string, encoder, decoder func() Transformer) Codec {
	return transformCodec{name, encoder, decoder}
}

type transformCodec struct {
	name             string
	encoder, decoder func() Transformer
}

func (c transformCodec) Name() string { return c.name }

func (c transformCodec) NewEncodeReader(r io.Reader) io.ReadCloser {
	return NewReader(r, c.encoder())
}

func (c transformCodec) NewDecodeReader(r io.Reader) io.ReadCloser {
	return NewReader(r, c.decoder())
}

func (c transformCodec) NewEncodeWriter(w io.Writer) io.WriteCloser {
	return NewWriter(w, c.encoder())
}

func (c transformCodec) NewDecodeWriter(w io.Writer) io.WriteCloser {
	return NewWriter(w, c.decoder())
}

// offsetBy returns err with the offset of a *DataError moved by n.
func offsetBy(err error, n int64) error {
	if de, ok := err.(*DataError); ok && n != 0 {
		moved := *de
		moved.Offset += n
		return &moved
	}
	return err
}

// isStep reports whether err asks a stream for more room or more input,
// rather than ending it.
func isStep(err error) bool { return err == nil || err == ErrShortDst || err == ErrShortSrc }

// A Reader is a pull stream: its content is the output of a Transformer
// over another reader's content. It follows the rules of Codec's pull
// streams: Close releases it without closing the source, and Read fails
// with ErrClosed after it until Reset. A data error comes with the last
// bytes of output made before it, and ends the stream; an error of the
// source other than io.EOF is returned once, after the output of the input
// before it, and a later Read goes on where the source does (as bufio's
// do, for timeouts).
type Reader struct {
	r      io.Reader
	t      Transformer
	src    []byte // src[s0:s1] is input read and not consumed
	s0, s1 int
	dst    []byte // dst[d0:d1] is output not yet returned
	d0, d1 int
	off    int64 // the input consumed: the offset of src[s0]
	srcErr error // the source's error, io.EOF included
	held   error // the source's error other than io.EOF, returned once dst is drained
	err    error // the end of the stream, returned once dst is drained
	used   bool  // the Transformer has been called since its last Reset
	closed bool
	hand   Writer      // the push stream WriteTo hands the source over to
	count  countWriter // WriteTo's destination, counted
}

var (
	_ ReaderResetter = (*Reader)(nil)
	_ io.WriterTo    = (*Reader)(nil)
)

// NewReader returns a reader of the output of t over r's content.
func NewReader(r io.Reader, t Transformer) *Reader { return &Reader{r: r, t: t} }

// Read reads output into p. An error other than io.EOF comes with the last
// bytes made before it, so that a caller stopping at it has them all.
func (r *Reader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, ErrClosed
	}
	n := 0
	for r.d0 == r.d1 && n == 0 {
		if err := r.stop(); err != nil {
			return 0, err
		}
		if len(p) >= dstSize {
			// Room for as much as the buffer holds: the output goes
			// straight into p, not through the buffer.
			n = r.fill(p)
		} else {
			r.d0, r.d1 = 0, r.fill(r.buffer())
		}
	}
	if n == 0 {
		n = copy(p, r.dst[r.d0:r.d1])
		r.d0 += n
	}
	if r.d0 == r.d1 && r.err != io.EOF {
		return n, r.stop()
	}
	return n, nil
}

// stop returns the error that stops reading once the output made is read:
// the end of the stream, or the source's error, once.
func (r *Reader) stop() error {
	if r.err != nil {
		return r.err
	}
	err := r.held
	r.held = nil
	return err
}

// WriteTo writes the rest of the output to w, for io.Copy. When the source
// is an io.WriterTo (such as a *bytes.Reader), the Transformer works
// straight on what the source writes, without copying it first.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	if r.closed {
		return 0, ErrClosed
	}
	var total int64
	for {
		if r.d0 < r.d1 {
			n, err := w.Write(r.dst[r.d0:r.d1])
			r.d0 += n
			total += int64(n)
			if err != nil {
				return total, err
			}
		}
		switch err := r.stop(); {
		case err == io.EOF:
			return total, nil
		case err != nil:
			return total, err
		}
		if wt, ok := r.r.(io.WriterTo); ok && r.srcErr == nil {
			n, err := r.handOff(wt, w)
			return total + n, err
		}
		r.d0, r.d1 = 0, r.fill(r.buffer())
	}
}

// Close ends r and releases its Transformer: Read fails with ErrClosed
// until Reset. It does not close the source, and returns nil.
func (r *Reader) Close() error {
	if !r.closed {
		r.closed, r.d0, r.d1 = true, 0, 0
		r.release()
	}
	return nil
}

// Reset makes r read the output of its Transformer over src from the start,
// keeping its buffers, also after Close.
func (r *Reader) Reset(src io.Reader) {
	r.release()
	*r = Reader{r: src, t: r.t, src: r.src, dst: r.dst, hand: Writer{src: r.hand.src[:0]}}
}

// end ends the stream with err, returned once the output made is read, and
// releases the Transformer.
func (r *Reader) end(err error) {
	r.err = err
	r.release()
}

// release resets the Transformer, unless it is as new.
func (r *Reader) release() {
	if r.used {
		r.t.Reset()
		r.used = false
	}
}

// buffer returns the stream's output buffer, made on first use.
func (r *Reader) buffer() []byte {
	if r.dst == nil {
		r.dst = make([]byte, dstSize)
	}
	return r.dst
}

// fill runs the Transformer until it makes output into dst, at least
// dstSize bytes long, or the stream ends, reading the source whenever the
// Transformer asks for more input. It returns the bytes of output made.
func (r *Reader) fill(dst []byte) int {
	if r.src == nil {
		r.src = make([]byte, srcSize)
	}
	for empty := 0; ; {
		if r.s0 < r.s1 || r.srcErr == io.EOF {
			atEOF := r.srcErr == io.EOF
			r.used = true
			nDst, nSrc, err := r.t.Transform(dst, r.src[r.s0:r.s1], atEOF)
			if !isStep(err) {
				r.end(offsetBy(err, r.off))
				return nDst
			}
			r.s0 += nSrc
			r.off += int64(nSrc)
			switch {
			case atEOF && err == nil && r.s0 == r.s1:
				r.end(io.EOF)
				return nDst
			case nDst > 0:
				return nDst
			case nSrc > 0:
				continue
			case err == ErrShortDst || atEOF:
				r.end(errNoProgress)
				return 0
			}
		}
		if r.srcErr != nil {
			r.held, r.srcErr = r.srcErr, nil
			return 0
		}
		if r.s0 > 0 {
			r.s1 = copy(r.src, r.src[r.s0:r.s1])
			r.s0 = 0
		}
		if r.s1 == len(r.src) {
			r.end(ErrShortSrc)
			return 0
		}
		n, err := r.r.Read(r.src[r.s1:])
		r.s1 += n
		r.srcErr = err
		if n == 0 && err == nil {
			if empty++; empty == 100 {
				r.end(io.ErrNoProgress)
				return 0
			}
		}
	}
}

// handOff transforms the rest of the source into w through a push stream
// that carries on r's Transformer, fed by the source's WriteTo, and ends r.
func (r *Reader) handOff(src io.WriterTo, w io.Writer) (int64, error) {
	r.count = countWriter{w: w}
	cw := &r.count
	r.hand = Writer{w: cw, t: r.t, dst: r.buffer(), src: r.hand.src[:0], off: r.off}
	_, err := r.hand.Write(r.src[r.s0:r.s1])
	r.s0 = r.s1
	if err == nil {
		_, err = src.WriteTo(&r.hand)
	}
	if err == nil {
		err = r.hand.Close()
	}
	r.srcErr = io.EOF
	r.used = r.used || r.hand.used
	if err == nil {
		r.end(io.EOF)
	} else {
		r.end(err)
	}
	return cw.n, err
}

// A countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// A Writer is a push stream: it writes the output of a Transformer over
// what is written to it into another writer. It follows the rules of
// Codec's push streams: Close makes the end of the output and reports
// truncated input, without closing the underlying writer; Write fails with
// ErrClosed after it until Reset.
type Writer struct {
	w      io.Writer
	t      Transformer
	dst    []byte
	src    []byte // input written and not consumed: a unit split between writes, at most srcSize bytes
	off    int64  // the input consumed
	err    error  // the first data error or error of w
	used   bool   // the Transformer has been called since its last Reset
	closed bool
}

var _ WriterResetter = (*Writer)(nil)

// keepStep is how much of a write a Writer adds at a time to the bytes it
// kept back: enough for a unit split between writes, little to copy before
// it transforms straight from the write again.
const keepStep = 512

// NewWriter returns a writer of the output of t over what is written to it
// into w.
func NewWriter(w io.Writer, t Transformer) *Writer { return &Writer{w: w, t: t} }

// Write transforms p into the underlying writer, keeping back the bytes the
// Transformer cannot use yet. It transforms straight from p, without
// copying it, whenever nothing is kept back.
func (w *Writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.dst == nil {
		w.dst = make([]byte, dstSize)
	}
	n := 0
	for len(p) > 0 {
		if len(w.src) == 0 {
			// Straight from p; what the Transformer leaves of it waits
			// for more.
			nSrc, err := w.step(p, false)
			if err != nil {
				return n + nSrc, err
			}
			n += nSrc
			p = p[nSrc:]
			if len(p) > srcSize {
				return n, w.fail(ErrShortSrc)
			}
			w.src = append(w.src, p...)
			n += len(p)
			p = nil
			continue
		}
		// Through what is kept back, with as much of p after it as fits.
		kept := len(w.src)
		take := min(len(p), srcSize-kept, keepStep)
		w.src = append(w.src, p[:take]...)
		nSrc, err := w.step(w.src, false)
		if err != nil {
			return n + max(nSrc-kept, 0), err
		}
		if nSrc >= kept {
			// What is left of the bytes added is still in p.
			w.src = w.src[:0]
			n += nSrc - kept
			p = p[nSrc-kept:]
			continue
		}
		if nSrc == 0 && take == 0 {
			return n, w.fail(ErrShortSrc)
		}
		w.src = w.src[:copy(w.src, w.src[nSrc:])]
		n += take
		p = p[take:]
	}
	return n, nil
}

// step runs the Transformer over in until it has consumed what it can,
// writing out its output, and returns the bytes of in consumed.
func (w *Writer) step(in []byte, atEOF bool) (int, error) {
	consumed := 0
	w.used = true
	for {
		nDst, nSrc, err := w.t.Transform(w.dst, in[consumed:], atEOF)
		if nDst > 0 {
			if _, werr := w.w.Write(w.dst[:nDst]); werr != nil {
				return consumed + nSrc, w.fail(werr)
			}
		}
		consumed += nSrc
		w.off += int64(nSrc)
		switch progress := nDst+nSrc > 0; {
		case err == nil:
			if !atEOF || consumed == len(in) {
				return consumed, nil
			}
			if !progress {
				return consumed, w.fail(errNoProgress)
			}
		case err == ErrShortDst:
			if !progress {
				return consumed, w.fail(errNoProgress)
			}
		case err == ErrShortSrc:
			if !atEOF {
				return consumed, nil
			}
			if !progress {
				return consumed, w.fail(errNoProgress)
			}
		default:
			return consumed, w.fail(offsetBy(err, w.off-int64(nSrc)))
		}
	}
}

// fail ends the stream with err and releases the Transformer.
func (w *Writer) fail(err error) error {
	w.err = err
	w.release()
	return err
}

// release resets the Transformer, unless it is as new.
func (w *Writer) release() {
	if w.used {
		w.t.Reset()
		w.used = false
	}
}

// Close transforms what is kept back as the end of the input, writing the
// end of the output, and reports truncated input. It does not close the
// underlying writer. Write fails with ErrClosed after it, and a second
// Close returns what the first did.
func (w *Writer) Close() error {
	if w.closed || w.err != nil {
		w.closed = true
		return w.err
	}
	w.closed = true
	if w.dst == nil {
		w.dst = make([]byte, dstSize)
	}
	if _, err := w.step(w.src, true); err != nil {
		return err
	}
	w.src = w.src[:0]
	w.release()
	return nil
}

// Reset makes w write the output of its Transformer over a new input into
// dst, keeping its buffers. Input kept back and not yet closed is dropped.
func (w *Writer) Reset(dst io.Writer) {
	w.release()
	w.w, w.src, w.off, w.err, w.closed = dst, w.src[:0], 0, nil, false
}
