// Package testcodec holds small codecs for the project's tests: they exercise
// chains, the registry and the command line without depending on the real
// codecs. Nothing in the product uses them.
package testcodec

import (
	"encoding/hex"
	"fmt"
	"io"

	"github.com/b14fs/b14fs/core"
)

// Hex encodes bytes as lower-case hexadecimal; decoding rejects anything
// else with a *core.DataError naming the offset.
type Hex struct{}

// Name returns "hex".
func (Hex) Name() string { return "hex" }

// Suffix returns ".hex".
func (Hex) Suffix() string { return ".hex" }

// NewEncodeReader returns a reader of r's bytes in hexadecimal.
func (Hex) NewEncodeReader(r io.Reader) io.ReadCloser {
	return &mapReader{r: r, f: func(dst, src []byte) (int, int, error) {
		n := min(len(src), len(dst)/2)
		return hex.Encode(dst, src[:n]), n, nil
	}, block: 1}
}

// NewDecodeReader returns a reader of r's hexadecimal decoded.
func (Hex) NewDecodeReader(r io.Reader) io.ReadCloser {
	return &mapReader{r: r, f: decodeHex, block: 2}
}

// NewEncodeWriter returns a writer that writes hexadecimal into w.
func (Hex) NewEncodeWriter(w io.Writer) io.WriteCloser {
	return &plainWriter{w: hex.NewEncoder(w)}
}

// NewDecodeWriter returns a writer that decodes hexadecimal into w; Close
// reports an odd digit left over.
func (h Hex) NewDecodeWriter(w io.Writer) io.WriteCloser {
	return &decodeWriter{w: w}
}

func decodeHex(dst, src []byte) (int, int, error) {
	n := min(len(src)/2, len(dst))
	_, err := hex.Decode(dst[:n], src[:2*n])
	if err != nil {
		return 0, 0, err
	}
	return n, 2 * n, nil
}

// closer notes a stream's Close, after which its Read and Write fail.
type closer struct{ closed bool }

// Close closes the stream.
func (c *closer) Close() error {
	c.closed = true
	return nil
}

// plainWriter is a push stream that has nothing to flush.
type plainWriter struct {
	w io.Writer
	closer
}

func (p *plainWriter) Write(b []byte) (int, error) {
	if p.closed {
		return 0, core.ErrClosed
	}
	return p.w.Write(b)
}

// decodeWriter buffers at most one odd digit between writes.
type decodeWriter struct {
	w   io.Writer
	odd []byte
	off int64
	buf [512]byte
	closer
}

func (d *decodeWriter) Write(p []byte) (int, error) {
	if d.closed {
		return 0, core.ErrClosed
	}
	n := len(p)
	for len(p) > 0 {
		src := append(d.odd, p[:min(len(p), len(d.buf)*2-len(d.odd))]...)
		p = p[len(src)-len(d.odd):]
		even := len(src) &^ 1
		if _, err := hex.Decode(d.buf[:], src[:even]); err != nil {
			return 0, &core.DataError{Codec: "hex", Offset: d.off + badOffset(src[:even]), Err: err}
		}
		d.odd = append(d.odd[:0], src[even:]...)
		d.off += int64(even)
		if _, err := d.w.Write(d.buf[:even/2]); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (d *decodeWriter) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	if len(d.odd) > 0 {
		return &core.DataError{Codec: "hex", Offset: d.off, Err: io.ErrUnexpectedEOF}
	}
	return nil
}

// badOffset returns the offset of the first byte of src that is not a
// hexadecimal digit.
func badOffset(src []byte) int64 {
	for i, c := range src {
		if _, err := hex.DecodeString(string([]byte{c, '0'})); err != nil {
			return int64(i)
		}
	}
	return 0
}

// mapReader applies f to r's bytes, whole blocks of input at a time.
type mapReader struct {
	r      io.Reader
	f      func(dst, src []byte) (nDst, nSrc int, err error)
	block  int
	in     [1024]byte
	nIn    int   // bytes buffered in in
	off    int64 // input offset of in[0]
	outBuf [2048]byte
	out    []byte // output not yet returned
	err    error  // the error r returned
	closer
}

func (m *mapReader) Read(p []byte) (int, error) {
	if m.closed {
		return 0, core.ErrClosed
	}
	for len(m.out) == 0 {
		if m.err != nil {
			if m.err == io.EOF && m.nIn > 0 {
				return 0, &core.DataError{Codec: "hex", Offset: m.off, Err: io.ErrUnexpectedEOF}
			}
			return 0, m.err
		}
		var n int
		n, m.err = m.r.Read(m.in[m.nIn:])
		m.nIn += n
		whole := m.nIn - m.nIn%m.block
		nDst, nSrc, err := m.f(m.outBuf[:], m.in[:whole])
		if err != nil {
			m.err = &core.DataError{Codec: "hex", Offset: m.off + badOffset(m.in[:whole]), Err: err}
			m.nIn = 0
			continue
		}
		m.out = m.outBuf[:nDst]
		m.nIn = copy(m.in[:], m.in[nSrc:m.nIn])
		m.off += int64(nSrc)
	}
	n := copy(p, m.out)
	m.out = m.out[n:]
	return n, nil
}

// Xor is a codec that XORs every byte with a key (option key=N, 0..255,
// default 0x5A): its own inverse, with no block structure.
type Xor struct{ Key byte }

// Name returns "xor".
func (Xor) Name() string { return "xor" }

// WithOptions accepts key=N.
func (x Xor) WithOptions(opts core.Options) (core.Codec, error) {
	for _, opt := range opts {
		if opt.Key != "key" {
			return nil, opt.Unknown("xor")
		}
		n, err := opt.Int("xor")
		if err != nil {
			return nil, err
		}
		if n < 0 || n > 255 {
			return nil, &core.OptionError{Codec: "xor", Key: opt.Key, Value: opt.Value, Err: fmt.Errorf("%w: want 0..255", core.ErrBadOptionValue)}
		}
		x.Key = byte(n)
	}
	return x, nil
}

// NewEncodeReader XORs r's bytes.
func (x Xor) NewEncodeReader(r io.Reader) io.ReadCloser { return &xorReader{r: r, key: x.Key} }

// NewDecodeReader XORs r's bytes.
func (x Xor) NewDecodeReader(r io.Reader) io.ReadCloser { return &xorReader{r: r, key: x.Key} }

// NewEncodeWriter XORs bytes into w.
func (x Xor) NewEncodeWriter(w io.Writer) io.WriteCloser { return &xorWriter{w: w, key: x.Key} }

// NewDecodeWriter XORs bytes into w.
func (x Xor) NewDecodeWriter(w io.Writer) io.WriteCloser { return &xorWriter{w: w, key: x.Key} }

type xorReader struct {
	r   io.Reader
	key byte
	closer
}

func (x *xorReader) Read(p []byte) (int, error) {
	if x.closed {
		return 0, core.ErrClosed
	}
	n, err := x.r.Read(p)
	for i := range p[:n] {
		p[i] ^= x.key
	}
	return n, err
}

type xorWriter struct {
	w   io.Writer
	key byte
	buf []byte
	closer
}

func (x *xorWriter) Write(p []byte) (int, error) {
	if x.closed {
		return 0, core.ErrClosed
	}
	x.buf = append(x.buf[:0], p...)
	for i := range x.buf {
		x.buf[i] ^= x.key
	}
	return x.w.Write(x.buf)
}
