package base16384

import (
	"bytes"
	"io"

	"github.com/b14fs/b14fs/core"
)

const (
	// plainChunk is how many plain bytes a stream encodes at a time: whole
	// groups, about 32 KiB, so block kernels work on long spans.
	plainChunk = 56 * 585
	// encodedChunk is how many encoded bytes a stream reads at a time: whole
	// groups of both forms (8 and 12 bytes).
	encodedChunk = 56 * 672
	// decodeBufLen is the room for the decoding of a chunk.
	decodeBufLen = encodedChunk/8*7 + 7
)

// encodeBufLen returns the room for the encoding of a chunk and of a group
// before it, byte order mark included.
func encodeBufLen(cfg config) int { return 3 + int(cfg.encodedLen(plainChunk+7)) }

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

// A pull is what the pull streams (Encoder and Decoder) share: Read,
// WriteTo and Close over a step that turns some of the source into output.
type pull struct {
	r      io.Reader
	out    []byte // output not yet returned
	eof    bool   // the stream has ended: out is all that is left
	err    error  // the error that ended the stream in a hand-off
	held   error  // the step's error, returned once out is read
	closed bool
	cw     countWriter // WriteTo's destination
}

// A stepper is an Encoder or a Decoder, as its pull drives it.
type stepper interface {
	// fill reads from the source once and sets out to what it can produce.
	// It returns the source's error other than io.EOF, or a data error.
	fill() error
	// handOff produces the rest of the stream from src straight into w
	// and ends the stream, or returns false when it cannot.
	handOff(src io.WriterTo, w io.Writer) (bool, error)
}

// read reads output into b. An error comes with the last of the bytes
// produced before it, so that a caller stopping at it has them all.
func (p *pull) read(s stepper, b []byte) (int, error) {
	if p.closed {
		return 0, core.ErrClosed
	}
	for len(p.out) == 0 && p.held == nil {
		switch {
		case p.err != nil:
			return 0, p.err
		case p.eof:
			return 0, io.EOF
		}
		p.held = s.fill()
	}
	n := copy(b, p.out)
	p.out = p.out[n:]
	if len(p.out) > 0 {
		return n, nil
	}
	err := p.held
	p.held = nil
	return n, err
}

// writeTo writes the rest of the output to w. When the source is an
// io.WriterTo (such as a *bytes.Reader), the stream is handed off to work
// straight from what the source writes, without copying it first.
func (p *pull) writeTo(s stepper, w io.Writer) (int64, error) {
	if p.closed {
		return 0, core.ErrClosed
	}
	p.cw = countWriter{w: w}
	cw := &p.cw
	readErr := p.held
	p.held = nil
	for {
		if len(p.out) > 0 {
			n, err := cw.Write(p.out)
			p.out = p.out[n:]
			if err != nil {
				return cw.n, err
			}
		}
		switch {
		case readErr != nil:
			return cw.n, readErr
		case p.err != nil:
			return cw.n, p.err
		case p.eof:
			return cw.n, nil
		}
		if wt, ok := p.r.(io.WriterTo); ok {
			if done, err := s.handOff(wt, cw); done {
				p.eof, p.err = true, err
				return cw.n, err
			}
		}
		readErr = s.fill()
	}
}

// close ends the stream: Read and WriteTo fail from now on. It never closes
// the source.
func (p *pull) close() error {
	p.closed, p.out, p.held = true, nil, nil
	return nil
}

// An Encoder is a reader whose content is the encoding of another reader's,
// as NewEncoder makes it.
type Encoder struct {
	pull
	enc     encodeState
	in      []byte // plain bytes read and not yet encoded: less than a group
	buf     []byte // room for the encoding of a chunk
	started bool   // the byte order mark (if any) has been produced

	ew EncodeWriter // the push encoder handOff passes the source to
}

// NewEncoder returns a reader of the raw UTF-16BE encoding of r's content,
// the same bytes as Encode of all of it, to be used as
// io.Copy(w, NewEncoder(r)).
func NewEncoder(r io.Reader) *Encoder { return newEncoder(r, config{}) }

// NewBufferedEncoder returns a reader of the raw UTF-16BE encoding of b.
func NewBufferedEncoder(b []byte) *Encoder { return NewEncoder(bytes.NewReader(b)) }

func newEncoder(r io.Reader, cfg config) *Encoder {
	return &Encoder{pull: pull{r: r}, enc: newEncodeState(cfg)}
}

// Reset makes e encode r from the start, keeping its buffers and settings,
// also after Close.
func (e *Encoder) Reset(r io.Reader) {
	*e = Encoder{pull: pull{r: r}, enc: newEncodeState(e.enc.cfg), in: e.in[:0], buf: e.buf}
}

// Read reads encoded bytes into p.
func (e *Encoder) Read(p []byte) (int, error) { return e.read(e, p) }

// WriteTo writes the rest of the encoding to w, for io.Copy. When the
// source is an io.WriterTo (such as a *bytes.Reader), it encodes straight
// from what the source writes, without copying it first.
func (e *Encoder) WriteTo(w io.Writer) (int64, error) { return e.writeTo(e, w) }

// Close ends e: Read fails with core.ErrClosed until Reset. It does not
// close e's source, and returns nil.
func (e *Encoder) Close() error { return e.close() }

// handOff encodes the rest of the source through an EncodeWriter that
// carries on e's state.
func (e *Encoder) handOff(src io.WriterTo, w io.Writer) (bool, error) {
	e.ew = EncodeWriter{w: w, enc: e.enc, started: e.started, buf: e.buf}
	ew := &e.ew
	ew.npart = copy(ew.part[:], e.in)
	e.in = e.in[:0]
	_, err := src.WriteTo(ew)
	if err == nil {
		err = ew.Close()
	}
	e.enc, e.started, e.buf = ew.enc, ew.started, ew.buf
	return true, err
}

// fill reads from e.r once and encodes what it can into e.out: whole groups,
// or everything with the tail at the end of e.r. It returns e.r's error,
// other than io.EOF.
func (e *Encoder) fill() error {
	if e.in == nil {
		e.in = make([]byte, 0, plainChunk)
	}
	if e.buf == nil {
		e.buf = make([]byte, encodeBufLen(e.enc.cfg))
	}
	n, err := e.r.Read(e.in[len(e.in):cap(e.in)])
	e.in = e.in[:len(e.in)+n]
	o := 0
	if !e.started {
		o = copy(e.buf, e.enc.cfg.header())
		e.started = true
	}
	whole := len(e.in) / 7 * 7
	o += e.enc.groups(e.buf[o:], e.in[:whole])
	e.in = e.in[:copy(e.in, e.in[whole:])]
	if err == io.EOF {
		o += e.enc.tail(e.buf[o:], e.in)
		e.in = e.in[:0]
		e.eof, err = true, nil
	}
	e.out = e.buf[:o]
	return err
}

// A Decoder is a reader whose content is the decoding of another reader's,
// as NewDecoder makes it.
type Decoder struct {
	pull
	dec decodeState
	in  []byte // encoded bytes read and not yet decoded
	buf []byte // room for the decoding of a chunk

	dw DecodeWriter // the push decoder handOff passes the source to
}

// NewDecoder returns a reader of the decoding of r's content, in either
// form, with or without a byte order mark. Bad input makes Read return a
// *core.DataError, after the bytes decoded before the bad unit.
func NewDecoder(r io.Reader) *Decoder { return newDecoder(r, config{}) }

// NewBufferedDecoder returns a reader of the decoding of b.
func NewBufferedDecoder(b []byte) *Decoder { return NewDecoder(bytes.NewReader(b)) }

func newDecoder(r io.Reader, cfg config) *Decoder {
	return &Decoder{pull: pull{r: r}, dec: newDecodeState(cfg)}
}

// Reset makes d decode r from the start, keeping its buffers and settings,
// also after Close.
func (d *Decoder) Reset(r io.Reader) {
	d.dec.reset()
	*d = Decoder{pull: pull{r: r}, dec: d.dec, in: d.in[:0], buf: d.buf, dw: DecodeWriter{carry: d.dw.carry}}
}

// Read reads decoded bytes into p. An error comes with the last of the bytes
// decoded before it, so that a caller stopping at it has them all.
func (d *Decoder) Read(p []byte) (int, error) { return d.read(d, p) }

// WriteTo writes the rest of the decoding to w, for io.Copy. When the
// source is an io.WriterTo (such as a *bytes.Reader), it decodes straight
// from what the source writes, without copying it first.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) { return d.writeTo(d, w) }

// Close ends d: Read fails with core.ErrClosed until Reset. It does not
// close d's source, and returns nil.
func (d *Decoder) Close() error { return d.close() }

// handOff decodes the rest of the source through a DecodeWriter that carries
// on d's state; not after a data error, which fill reports again.
func (d *Decoder) handOff(src io.WriterTo, w io.Writer) (bool, error) {
	if d.dec.err != nil {
		return false, nil
	}
	d.dw = DecodeWriter{w: w, dec: d.dec, buf: d.buf, carry: d.dw.carry[:0]}
	dw := &d.dw
	_, err := dw.Write(d.in)
	d.in = d.in[:0]
	if err == nil {
		_, err = src.WriteTo(dw)
	}
	if err == nil {
		err = dw.Close()
	}
	d.dec, d.buf = dw.dec, dw.buf
	return true, err
}

// fill reads from d.r once and decodes what it can into d.out. It returns
// d.r's error other than io.EOF, or the data error.
func (d *Decoder) fill() error {
	if d.in == nil {
		d.in = make([]byte, 0, encodedChunk)
	}
	if d.buf == nil {
		d.buf = make([]byte, decodeBufLen)
	}
	if d.dec.err != nil {
		return d.dec.err
	}
	n, err := d.r.Read(d.in[len(d.in):cap(d.in)])
	d.in = d.in[:len(d.in)+n]
	final := err == io.EOF
	m, used, derr := d.dec.decode(d.buf, d.in, final)
	d.out = d.buf[:m]
	d.in = d.in[:copy(d.in, d.in[used:])]
	switch {
	case derr != nil:
		return derr
	case final:
		d.eof = true
		return nil
	}
	return err
}
