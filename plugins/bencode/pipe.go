package bencode

import (
	"errors"
	"io"

	"github.com/b14fs/b14fs/core"
)

// A transcoder converts a stream that arrives in pieces.
type transcoder interface {
	// transcode appends to out the output for a prefix of in, the input not
	// consumed so far, and returns how many bytes of in it consumed. atEOF
	// says that no input follows in; then it consumes all of in or fails.
	// The output of one call is bounded: it grows with the input consumed,
	// except that a long string is written out from its spool a piece at a
	// time, over as many calls as it takes, while pending is true.
	transcode(out, in []byte, atEOF bool) ([]byte, int, error)
	// pending reports output that transcode will make before it needs
	// (or consumes) more input.
	pending() bool
	// reset returns the transcoder to its state before any input.
	reset()
	// close releases the transcoder's temporary files; it is called at the
	// end of a stream and may be called again.
	close()
}

var (
	_ core.ReaderResetter = (*pullReader)(nil)
	_ core.WriterResetter = (*pushWriter)(nil)
)

// dataError reports a *SyntaxError as the *core.DataError codec streams
// return.
func dataError(err error) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		return &core.DataError{Codec: codecName, Offset: se.Offset, Err: syntaxDetail{se}}
	}
	return err
}

// syntaxDetail is a *SyntaxError's message without the codec and offset,
// which the *core.DataError around it names.
type syntaxDetail struct{ err *SyntaxError }

func (s syntaxDetail) Error() string { return s.err.msg }
func (s syntaxDetail) Unwrap() error { return s.err }

// A pullReader is the reader form of a transcoder.
type pullReader struct {
	r    io.Reader
	t    transcoder
	in   []byte // input read and not consumed
	out  []byte // output; out[pos:] not returned yet
	pos  int
	eof  bool
	rerr error // a read error, returned once the output before it is
	err  error // returned once out is drained
}

func (p *pullReader) Read(b []byte) (int, error) {
	if p.err == core.ErrClosed {
		return 0, p.err
	}
	for p.pos == len(p.out) {
		if p.err != nil {
			return 0, p.err
		}
		p.fill()
	}
	n := copy(b, p.out[p.pos:])
	p.pos += n
	return n, nil
}

// Close ends p and releases its temporary files: Read fails with
// core.ErrClosed until Reset. It does not close the source.
func (p *pullReader) Close() error {
	p.out, p.pos, p.err = p.out[:0], 0, core.ErrClosed
	p.t.close()
	return nil
}

// Reset makes p read from r as if new, keeping its buffers, also after
// Close.
func (p *pullReader) Reset(r io.Reader) {
	p.t.reset()
	p.r, p.in, p.out, p.pos, p.eof, p.rerr, p.err = r, p.in[:0], p.out[:0], 0, false, nil, nil
}

// fill reads once from the source, unless output is pending, and
// transcodes what it can.
func (p *pullReader) fill() {
	if !p.eof && p.rerr == nil && !p.t.pending() {
		var rerr error
		p.in, rerr = readMore(p.r, p.in)
		if rerr == io.EOF {
			p.eof = true
		} else if rerr != nil {
			p.rerr = rerr
		}
	}
	out, n, err := p.t.transcode(p.out[:0], p.in, p.eof)
	p.out, p.pos = out, 0
	if n > 0 {
		p.in = p.in[:copy(p.in, p.in[n:])]
	}
	switch {
	case err != nil:
		p.err = dataError(err)
	case p.t.pending():
		return
	case p.rerr != nil:
		p.err = p.rerr
	case p.eof:
		p.err = io.EOF
	default:
		return
	}
	p.t.close()
}

// A pushWriter is the writer form of a transcoder.
type pushWriter struct {
	w      io.Writer
	t      transcoder
	in     []byte // input written and not consumed
	out    []byte
	err    error
	closed bool
}

// writePiece is the most a pushWriter takes in at a time, so that one
// large Write is not copied whole.
const writePiece = 64 << 10

func (p *pushWriter) Write(b []byte) (int, error) {
	if p.closed {
		return 0, core.ErrClosed
	}
	if p.err != nil {
		return 0, p.err
	}
	for rest := b; len(rest) > 0; {
		k := min(len(rest), writePiece)
		p.in = append(p.in, rest[:k]...)
		rest = rest[k:]
		if err := p.run(false); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// Reset makes p write to w as if new, keeping its buffers.
func (p *pushWriter) Reset(w io.Writer) {
	p.t.reset()
	p.w, p.in, p.out, p.err, p.closed = w, p.in[:0], p.out[:0], nil, false
}

// Close transcodes the rest of the input and reports input that ends inside
// a value. It does not close the underlying writer. Write fails with
// core.ErrClosed after it, and a second Close returns what the first did.
func (p *pushWriter) Close() error {
	if p.closed || p.err != nil {
		p.closed = true
		return p.err
	}
	p.closed = true
	err := p.run(true)
	p.t.close()
	return err
}

// run transcodes the input there is, and writes out the output, all of it
// when some is pending.
func (p *pushWriter) run(atEOF bool) error {
	for {
		out, n, err := p.t.transcode(p.out[:0], p.in, atEOF)
		p.out = out
		if n > 0 {
			p.in = p.in[:copy(p.in, p.in[n:])]
		}
		if len(out) > 0 {
			if _, werr := p.w.Write(out); werr != nil && err == nil {
				err = werr
			}
		}
		if err != nil {
			p.err = dataError(err)
			p.t.close()
			return p.err
		}
		if !p.t.pending() {
			return nil
		}
	}
}
