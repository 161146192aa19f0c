package base16384

import (
	"io"

	"github.com/b14fs/b14fs/core"
)

// An EncodeWriter encodes what is written to it into another writer, as
// NewEncodeWriter makes it.
type EncodeWriter struct {
	w       io.Writer
	enc     encodeState
	part    [7]byte // the start of a group not yet complete
	npart   int
	buf     []byte // room for the encoding of a chunk
	started bool   // the byte order mark (if any) has been written
	closed  bool
	err     error // the first error of w
}

// NewEncodeWriter returns a writer that writes the raw UTF-16BE encoding of
// what is written to it to w. Close writes the tail; it does not close w.
func NewEncodeWriter(w io.Writer) *EncodeWriter { return newEncodeWriter(w, config{}) }

func newEncodeWriter(w io.Writer, cfg config) *EncodeWriter {
	return &EncodeWriter{w: w, enc: newEncodeState(cfg)}
}

// Reset makes e write a new encoding to w, keeping its buffer and settings.
// Data not yet flushed by Close is dropped.
func (e *EncodeWriter) Reset(w io.Writer) {
	*e = EncodeWriter{w: w, enc: newEncodeState(e.enc.cfg), buf: e.buf}
}

// Write encodes p to the underlying writer, keeping back the bytes of a
// group not yet complete.
func (e *EncodeWriter) Write(p []byte) (int, error) {
	if e.closed {
		return 0, core.ErrClosed
	}
	if e.err != nil {
		return 0, e.err
	}
	if e.buf == nil {
		e.buf = make([]byte, encodeBufLen(e.enc.cfg))
	}
	total := len(p)
	o := e.header()
	if e.npart > 0 {
		c := copy(e.part[e.npart:], p)
		e.npart += c
		p = p[c:]
		if e.npart < 7 {
			return total, e.flush(o)
		}
		o += e.enc.groups(e.buf[o:], e.part[:])
		e.npart = 0
	}
	for len(p) >= 7 {
		c := min(len(p)/7*7, plainChunk)
		o += e.enc.groups(e.buf[o:], p[:c])
		p = p[c:]
		if err := e.flush(o); err != nil {
			return total - len(p) - c, err
		}
		o = 0
	}
	e.npart = copy(e.part[:], p)
	return total, e.flush(o)
}

// Close writes the tail of the encoding and the end marker. It does not
// close the underlying writer. Write fails with core.ErrClosed after it, and
// a second Close returns what the first did.
func (e *EncodeWriter) Close() error {
	if e.closed || e.err != nil {
		e.closed = true
		return e.err
	}
	e.closed = true
	if e.buf == nil {
		e.buf = make([]byte, 3+e.enc.cfg.encodedLen(6))
	}
	o := e.header()
	o += e.enc.tail(e.buf[o:], e.part[:e.npart])
	return e.flush(o)
}

// header puts the byte order mark at the start of e.buf the first time, and
// returns its length.
func (e *EncodeWriter) header() int {
	if e.started {
		return 0
	}
	e.started = true
	return copy(e.buf, e.enc.cfg.header())
}

// flush writes e.buf[:n] to the underlying writer.
func (e *EncodeWriter) flush(n int) error {
	if n == 0 {
		return nil
	}
	_, e.err = e.w.Write(e.buf[:n])
	return e.err
}

// carryCap bounds the input a DecodeWriter keeps between writes; a write
// shorter than carryMin goes through that carry. carryCap is at most
// encodedChunk, so decodeBufLen has room for a carry's decoding.
const (
	carryCap = 256
	carryMin = 64
)

// A DecodeWriter decodes what is written to it into another writer, as
// NewDecodeWriter makes it.
type DecodeWriter struct {
	w      io.Writer
	dec    decodeState
	carry  []byte // input written and not yet decoded
	buf    []byte // room for the decoding of a chunk
	closed bool
	err    error // the first data error or error of w
}

// NewDecodeWriter returns a writer that writes the decoding of what is
// written to it (either form, with or without a byte order mark) to w. Write
// and Close return a *core.DataError for bad input; Close reports truncated
// input. Close does not close w.
func NewDecodeWriter(w io.Writer) *DecodeWriter { return newDecodeWriter(w, config{}) }

func newDecodeWriter(w io.Writer, cfg config) *DecodeWriter {
	return &DecodeWriter{w: w, dec: newDecodeState(cfg)}
}

// Reset makes d decode a new stream into w, keeping its buffers and settings.
func (d *DecodeWriter) Reset(w io.Writer) {
	d.dec.reset()
	*d = DecodeWriter{w: w, dec: d.dec, carry: d.carry[:0], buf: d.buf}
}

// Write decodes p to the underlying writer, keeping back the few bytes whose
// meaning depends on what follows.
func (d *DecodeWriter) Write(p []byte) (int, error) {
	if d.closed {
		return 0, core.ErrClosed
	}
	if d.err != nil {
		return 0, d.err
	}
	if d.carry == nil {
		d.carry = make([]byte, 0, carryCap)
	}
	if d.buf == nil {
		d.buf = make([]byte, decodeBufLen)
	}
	total := len(p)
	for len(p) > 0 {
		if len(d.carry) == 0 && len(p) >= carryMin {
			// Decode straight from p.
			used, err := d.decode(p[:min(len(p), encodedChunk)], false)
			if err != nil {
				return total - len(p), err
			}
			if used > 0 {
				p = p[used:]
				continue
			}
		}
		// Add some of p to the carry. Once the carry's old bytes are
		// decoded, what is left of the added ones is still in p.
		old := len(d.carry)
		take := min(len(p), cap(d.carry)-old)
		d.carry = append(d.carry, p[:take]...)
		used, err := d.decode(d.carry, false)
		if err != nil {
			return total - len(p), err
		}
		if used > old {
			p = p[used-old:]
			d.carry = d.carry[:0]
		} else {
			p = p[take:]
			d.carry = d.carry[:copy(d.carry, d.carry[used:])]
		}
	}
	return total, nil
}

// Close decodes the rest and reports truncated input. It does not close the
// underlying writer. Write fails with core.ErrClosed after it, and a second
// Close returns what the first did.
func (d *DecodeWriter) Close() error {
	if d.closed || d.err != nil {
		d.closed = true
		return d.err
	}
	d.closed = true
	if d.buf == nil {
		d.buf = make([]byte, maxDecodedLen(0))
	}
	_, err := d.decode(d.carry, true)
	d.carry = d.carry[:0]
	return err
}

// decode decodes src into the underlying writer and returns the bytes of
// src consumed.
func (d *DecodeWriter) decode(src []byte, final bool) (int, error) {
	n, used, err := d.dec.decode(d.buf, src, final)
	if n > 0 {
		if _, werr := d.w.Write(d.buf[:n]); werr != nil && err == nil {
			err = werr
		}
	}
	d.err = err
	return used, err
}
