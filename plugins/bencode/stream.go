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
//
// Its buffer grows with the bytes that arrive, never with the lengths the
// input announces: a long string's bytes are read into blocks (of up to
// 1 MiB, no larger than what has arrived before them) until all have come,
// and only then put together in a buffer of the value's size; if the input
// ends first, the blocks are dropped. A value of limits.giveAway bytes or
// more keeps that buffer rather than a copy of it.
type Decoder struct {
	r    io.Reader
	opts DecodeOptions
	lim  limits
	buf  []byte // input read and not yet decoded
	scan Scanner
	end  int64 // the stream offset just past the last value decoded
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
	d := &Decoder{r: r, opts: o, lim: limitsNow}
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
	// In lenient mode, whitespace after the previous value comes first.
	start := n - len(bytes.TrimLeft(d.buf[:n], " \t\r\n"))
	if n >= d.lim.giveAway {
		// The value shares the buffer, which the Decoder leaves to it.
		err = o.decodeIn(d.buf[start:n:n], d.scan.base+int64(start), v, true)
		rest := d.buf[n:]
		d.buf = append(make([]byte, 0, max(minRead, len(rest))), rest...)
	} else {
		err = o.decode(d.buf[start:n], d.scan.base+int64(start), v)
		d.buf = d.buf[:copy(d.buf, d.buf[n:])]
	}
	d.scan.base += int64(n)
	d.scan.data, d.scan.off = d.buf, 0
	d.end = d.scan.base
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
		if start, n, need := d.stringNeed(); need > d.lim.blockMin && need > cap(d.buf)-len(d.buf) {
			if err := d.readString(start, n, need); err != nil {
				return 0, err
			}
			continue
		}
		if len(d.scan.stack) == 0 && d.scan.off > 0 {
			// What the scanner has passed at the top level, between values,
			// is whitespace (lenient mode): drop it rather than keep it.
			d.buf = d.buf[:copy(d.buf, d.buf[d.scan.off:])]
			d.scan.base += int64(d.scan.off)
			d.scan.off = 0
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

// stringNeed reports, when the token the scanner is waiting for is a string
// whose length it has read, where it starts in d.buf, its length, and how
// many of its bytes have not arrived; need is 0 for any other token.
func (d *Decoder) stringNeed() (start, n, need int) {
	start = d.scan.off
	b := d.buf[start:]
	i := 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		n = n*10 + int(b[i]-'0') // (the scanner has checked for overflow)
	}
	if i == 0 || i == len(b) || b[i] != ':' {
		return 0, 0, 0
	}
	return start, n, n - (len(b) - i - 1)
}

// readFull reads len(b) bytes of r into b, as io.ReadFull does, but
// reports the end of r as io.EOF however much it read: an
// io.ErrUnexpectedEOF of r's own (a gzip stream cut short) stays r's error,
// not the end of the input.
func readFull(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := r.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readString reads the need bytes still to come of the n-byte string at
// d.buf[start:] into blocks, then puts d.buf and the blocks together. If
// the input ends first, it reports the string as the scanner would.
func (d *Decoder) readString(start, n, need int) error {
	var blocks [][]byte
	got := 0
	for got < need {
		size := min(need-got, max(d.lim.blockMin, min(maxBlock, len(d.buf)+got)))
		b := make([]byte, size)
		k, err := readFull(d.r, b)
		blocks = append(blocks, b[:k])
		got += k
		if err == io.EOF {
			d.eof = true
			break
		}
		if err != nil {
			d.err = err
			return err
		}
	}
	if got < need {
		d.err = d.scan.pastEnd(d.scan.base+int64(start), n, n-need+got)
		return d.err
	}
	buf := make([]byte, len(d.buf), len(d.buf)+need+minRead)
	copy(buf, d.buf)
	for _, b := range blocks {
		buf = append(buf, b...)
	}
	d.buf = buf
	return nil
}

// Buffered returns the input the Decoder has read beyond the values it has
// returned.
func (d *Decoder) Buffered() io.Reader {
	return bytes.NewReader(d.buf[d.scan.off:])
}

// InputOffset returns the stream offset just past the last value decoded.
func (d *Decoder) InputOffset() int64 {
	return d.end
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
