package base16384

import (
	"bytes"
	"io"
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

// An Encoder is a reader whose content is the encoding of another reader's,
// as NewEncoder makes it.
type Encoder struct {
	r       io.Reader
	enc     encodeState
	in      []byte // plain bytes read and not yet encoded: less than a group
	buf     []byte // room for the encoding of a chunk
	out     []byte // encoded bytes not yet returned, within buf
	started bool   // the byte order mark (if any) has been produced
	eof     bool   // r has ended and the tail is encoded
	err     error  // the error that ended a WriteTo through r's WriteTo

	cw countWriter  // WriteTo's destination
	ew EncodeWriter // the push encoder handOff passes the source to
}

// NewEncoder returns a reader of the raw UTF-16BE encoding of r's content,
// the same bytes as Encode of all of it, to be used as
// io.Copy(w, NewEncoder(r)).
func NewEncoder(r io.Reader) *Encoder { return newEncoder(r, config{}) }

// NewBufferedEncoder returns a reader of the raw UTF-16BE encoding of b.
func NewBufferedEncoder(b []byte) *Encoder { return NewEncoder(bytes.NewReader(b)) }

func newEncoder(r io.Reader, cfg config) *Encoder {
	return &Encoder{r: r, enc: newEncodeState(cfg)}
}

// Reset makes e encode r from the start, keeping its buffers and settings.
func (e *Encoder) Reset(r io.Reader) {
	*e = Encoder{r: r, enc: newEncodeState(e.enc.cfg), in: e.in[:0], buf: e.buf}
}

// Read reads encoded bytes into p.
func (e *Encoder) Read(p []byte) (int, error) {
	var err error
	for len(e.out) == 0 && err == nil {
		switch {
		case e.err != nil:
			return 0, e.err
		case e.eof:
			return 0, io.EOF
		}
		err = e.fill()
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	return n, err
}

// WriteTo writes the rest of the encoding to w, for io.Copy. When the
// source is an io.WriterTo (such as a *bytes.Reader), it encodes straight
// from what the source writes, without copying it first.
func (e *Encoder) WriteTo(w io.Writer) (int64, error) {
	e.cw = countWriter{w: w}
	cw := &e.cw
	var readErr error
	for {
		if len(e.out) > 0 {
			n, err := cw.Write(e.out)
			e.out = e.out[n:]
			if err != nil {
				return cw.n, err
			}
		}
		switch {
		case readErr != nil:
			return cw.n, readErr
		case e.err != nil:
			return cw.n, e.err
		case e.eof:
			return cw.n, nil
		}
		if wt, ok := e.r.(io.WriterTo); ok {
			return cw.n, e.handOff(wt, cw)
		}
		readErr = e.fill()
	}
}

// handOff encodes the rest of the source through an EncodeWriter that
// carries on e's state, and ends e.
func (e *Encoder) handOff(src io.WriterTo, w io.Writer) error {
	e.ew = EncodeWriter{w: w, enc: e.enc, started: e.started, buf: e.buf}
	ew := &e.ew
	ew.npart = copy(ew.part[:], e.in)
	e.in = e.in[:0]
	_, err := src.WriteTo(ew)
	if err == nil {
		err = ew.Close()
	}
	e.enc, e.started, e.buf = ew.enc, ew.started, ew.buf
	e.eof, e.err = true, err
	return err
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
	r    io.Reader
	dec  decodeState
	in   []byte // encoded bytes read and not yet decoded
	buf  []byte // room for the decoding of a chunk
	out  []byte // decoded bytes not yet returned, within buf
	eof  bool   // r has ended and all of it is decoded
	err  error  // the error that ended a WriteTo through r's WriteTo
	held error  // fill's error, returned once out is read

	cw countWriter  // WriteTo's destination
	dw DecodeWriter // the push decoder handOff passes the source to
}

// NewDecoder returns a reader of the decoding of r's content, in either
// form, with or without a byte order mark. Bad input makes Read return a
// *core.DataError, after the bytes decoded before the bad unit.
func NewDecoder(r io.Reader) *Decoder { return newDecoder(r, config{}) }

// NewBufferedDecoder returns a reader of the decoding of b.
func NewBufferedDecoder(b []byte) *Decoder { return NewDecoder(bytes.NewReader(b)) }

func newDecoder(r io.Reader, cfg config) *Decoder {
	return &Decoder{r: r, dec: newDecodeState(cfg)}
}

// Reset makes d decode r from the start, keeping its buffers and settings.
func (d *Decoder) Reset(r io.Reader) {
	d.dec.reset()
	*d = Decoder{r: r, dec: d.dec, in: d.in[:0], buf: d.buf, dw: DecodeWriter{carry: d.dw.carry}}
}

// Read reads decoded bytes into p. An error comes with the last of the bytes
// decoded before it, so that a caller stopping at it has them all.
func (d *Decoder) Read(p []byte) (int, error) {
	for len(d.out) == 0 && d.held == nil {
		switch {
		case d.err != nil:
			return 0, d.err
		case d.eof:
			return 0, io.EOF
		}
		d.held = d.fill()
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	if len(d.out) > 0 {
		return n, nil
	}
	err := d.held
	d.held = nil
	return n, err
}

// WriteTo writes the rest of the decoding to w, for io.Copy. When the
// source is an io.WriterTo (such as a *bytes.Reader), it decodes straight
// from what the source writes, without copying it first.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) {
	d.cw = countWriter{w: w}
	cw := &d.cw
	readErr := d.held // Read's error, after the bytes before it
	d.held = nil
	for {
		if len(d.out) > 0 {
			n, err := cw.Write(d.out)
			d.out = d.out[n:]
			if err != nil {
				return cw.n, err
			}
		}
		switch {
		case readErr != nil:
			return cw.n, readErr
		case d.err != nil:
			return cw.n, d.err
		case d.eof:
			return cw.n, nil
		}
		if wt, ok := d.r.(io.WriterTo); ok && d.dec.err == nil {
			return cw.n, d.handOff(wt, cw)
		}
		readErr = d.fill()
	}
}

// handOff decodes the rest of the source through a DecodeWriter that carries
// on d's state, and ends d.
func (d *Decoder) handOff(src io.WriterTo, w io.Writer) error {
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
	d.eof, d.err = true, err
	return err
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
