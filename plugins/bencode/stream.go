package bencode

import (
	"bytes"
	"io"
	"slices"
)

// minRead is the least free space a buffer offers a Read.
const minRead = 4096

// readMore reads once from r into the free space of buf, growing buf (to
// twice its length at least) when less than minRead bytes are free, so a
// buffer grows with the data that arrives, never with lengths it announces.
func readMore(r io.Reader, buf []byte) ([]byte, error) {
	if cap(buf)-len(buf) < minRead {
		buf = slices.Grow(buf, max(minRead, len(buf)))
	}
	n, err := r.Read(buf[len(buf):cap(buf)])
	return buf[:len(buf)+n], err
}

// A Decoder reads bencoded values one after another from a stream.
type Decoder struct {
	r    io.Reader
	opts DecodeOptions
	buf  []byte // input read and not yet decoded
	scan Scanner
	eof  bool
	err  error
}

// NewDecoder returns a strict Decoder reading from r. It may read beyond the
// values it decodes; see Buffered.
func NewDecoder(r io.Reader) *Decoder {
	return DecodeOptions{}.NewDecoder(r)
}

// NewDecoder returns a Decoder that applies the options to each value it
// reads from r.
func (o DecodeOptions) NewDecoder(r io.Reader) *Decoder {
	d := &Decoder{r: r, opts: o}
	d.scan.init(o, true)
	return d
}

// Decode reads the next value from the stream and stores it in the value v
// points to, as Unmarshal does. It returns io.EOF at the end of the stream
// between values, and a *SyntaxError, whose Offset counts from the start of
// the stream, for bad input (including a stream that ends inside a value).
func (d *Decoder) Decode(v any) error {
	n, err := d.frame()
	if err != nil {
		return err
	}
	o := d.opts
	o.Copy = true // the buffer is reused
	err = o.decode(d.buf[:n], d.scan.base, v)
	d.buf = d.buf[:copy(d.buf, d.buf[n:])]
	d.scan.base += int64(n)
	d.scan.data, d.scan.off = d.buf, 0
	return err
}

// frame reads until d.buf holds a complete value and returns its length.
func (d *Decoder) frame() (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	var tok Token
	for {
		d.scan.data, d.scan.atEOF = d.buf, d.eof
		err := d.scan.read(&tok)
		if err == nil {
			if len(d.scan.stack) == 0 && tok.Kind != ListStart && tok.Kind != DictStart {
				return d.scan.off, nil
			}
			continue
		}
		if err != errShort {
			d.err = err
			return 0, err
		}
		var rerr error
		d.buf, rerr = readMore(d.r, d.buf)
		switch {
		case rerr == io.EOF:
			d.eof = true
		case rerr != nil:
			d.err = rerr
			return 0, rerr
		}
	}
}

// Buffered returns the input the Decoder has read beyond the values it has
// returned.
func (d *Decoder) Buffered() io.Reader {
	return bytes.NewReader(d.buf[d.scan.off:])
}

// InputOffset returns the stream offset just past the last value decoded.
func (d *Decoder) InputOffset() int64 {
	return d.scan.base
}

// An Encoder writes bencoded values to a stream.
type Encoder struct {
	w io.Writer
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: w}
}

// Encode writes the bencoding of v (see Marshal) to the stream.
func (enc *Encoder) Encode(v any) error {
	e := encodeStatePool.Get().(*encodeState)
	defer e.release()
	if err := e.marshal(v); err != nil {
		return err
	}
	return e.writeTo(enc.w)
}
