package fsx_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/b14fs/b14fs/core"
)

// b64 is a block codec for tests: padded standard base64 (3 plain bytes to
// 4 encoded bytes, the last block padded with '='), optionally after a
// 2-byte header "#!". With noBlocks its WriteLayout declares streams
// without blocks (core.ErrNoLayout), though they have them, and returns
// their layout with the error, which fsx must not use.
type b64 struct{ header, noBlocks bool }

var _ core.BlockCodec = b64{}

const b64Header = "#!"

func (b64) Name() string   { return "b64" }
func (b64) Suffix() string { return ".b64" }

func (c b64) EncodedLen(n int64) int64 { return (n + 2) / 3 * 4 }

// layout returns the layout of a stream with or without the header.
func (b64) layout(header bool) core.Layout {
	if header {
		return core.Layout{Header: 2, PlainBlock: 3, EncodedBlock: 4, Form: "b64+header", Independent: true}
	}
	return core.Layout{PlainBlock: 3, EncodedBlock: 4, Form: "b64", Independent: true}
}

func (c b64) WriteLayout() (core.Layout, error) {
	var err error
	if c.noBlocks {
		err = fmt.Errorf("b64: %w", core.ErrNoLayout)
	}
	return c.layout(c.header), err
}

func (c b64) Layout(r io.ReaderAt, size int64) (core.Layout, error) {
	l := c.layout(false)
	head := make([]byte, 2)
	if size >= 2 {
		if n, err := r.ReadAt(head, 0); n < 2 {
			return l, err
		}
		if string(head) == b64Header {
			l = c.layout(true)
		}
	}
	body := size - l.Header
	if body%4 != 0 {
		return l, &core.DataError{Codec: "b64", Offset: size, Err: errors.New("truncated block")}
	}
	l.Size = body / 4 * 3
	if body > 0 {
		if n, err := r.ReadAt(head, size-2); n < 2 {
			return l, err
		}
		l.Size -= int64(bytes.Count(head, []byte("=")))
	}
	return l, nil
}

func (c b64) NewEncodeWriter(w io.Writer) io.WriteCloser {
	return &b64Writer{w: w, header: c.header}
}

type b64Writer struct {
	w      io.Writer
	enc    io.WriteCloser
	header bool
}

func (e *b64Writer) start() error {
	if e.enc != nil {
		return nil
	}
	e.enc = base64.NewEncoder(base64.StdEncoding, e.w)
	if e.header {
		_, err := io.WriteString(e.w, b64Header)
		return err
	}
	return nil
}

func (e *b64Writer) Write(p []byte) (int, error) {
	if err := e.start(); err != nil {
		return 0, err
	}
	return e.enc.Write(p)
}

func (e *b64Writer) Close() error {
	if err := e.start(); err != nil {
		return err
	}
	return e.enc.Close()
}

func (c b64) NewDecodeReader(r io.Reader) io.ReadCloser {
	return io.NopCloser(&b64Reader{r: r})
}

type b64Reader struct {
	r   io.Reader
	dec io.Reader
}

func (d *b64Reader) Read(p []byte) (int, error) {
	if d.dec == nil {
		head := make([]byte, 2)
		n, err := io.ReadFull(d.r, head)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return 0, err
		}
		rest := d.r
		if string(head[:n]) != b64Header {
			rest = io.MultiReader(bytes.NewReader(head[:n]), d.r)
		}
		d.dec = base64.NewDecoder(base64.StdEncoding, rest)
	}
	n, err := d.dec.Read(p)
	var ce base64.CorruptInputError
	if errors.As(err, &ce) {
		err = &core.DataError{Codec: "b64", Offset: int64(ce), Err: errors.New("bad base64")}
	}
	return n, err
}

func (c b64) NewEncodeReader(r io.Reader) io.ReadCloser { return encodeAll(c, r) }
func (c b64) NewDecodeWriter(w io.Writer) io.WriteCloser {
	return &decodeAll{c: c, w: w}
}

// gz is a codec for tests that is not a block codec: gzip.
type gz struct{}

func (gz) Name() string   { return "gz" }
func (gz) Suffix() string { return ".gz" }

func (gz) NewEncodeWriter(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }

func (gz) NewDecodeReader(r io.Reader) io.ReadCloser { return io.NopCloser(&gzReader{r: r}) }

type gzReader struct {
	r   io.Reader
	dec *gzip.Reader
}

func (g *gzReader) Read(p []byte) (int, error) {
	if g.dec == nil {
		dec, err := gzip.NewReader(g.r)
		if err != nil {
			return 0, fmt.Errorf("gz: %w", err)
		}
		g.dec = dec
	}
	return g.dec.Read(p)
}

func (c gz) NewEncodeReader(r io.Reader) io.ReadCloser { return encodeAll(c, r) }
func (c gz) NewDecodeWriter(w io.Writer) io.WriteCloser {
	return &decodeAll{c: c, w: w}
}

// encodeAll encodes all of r at the first Read: enough for tests.
func encodeAll(c core.Codec, r io.Reader) io.ReadCloser {
	var b bytes.Buffer
	w := c.NewEncodeWriter(&b)
	_, err := io.Copy(w, r)
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return io.NopCloser(io.MultiReader(&b, errReader{err}))
	}
	return io.NopCloser(&b)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// decodeAll decodes what was written to it at Close: enough for tests.
type decodeAll struct {
	c   core.Codec
	w   io.Writer
	buf bytes.Buffer
}

func (d *decodeAll) Write(p []byte) (int, error) { return d.buf.Write(p) }
func (d *decodeAll) Close() error {
	_, err := io.Copy(d.w, d.c.NewDecodeReader(&d.buf))
	return err
}

// encode returns the encoding of p by c.
func encode(c core.Codec, p []byte) []byte {
	var b bytes.Buffer
	w := c.NewEncodeWriter(&b)
	w.Write(p)
	w.Close()
	return b.Bytes()
}

// decode returns the decoding of p by c.
func decode(c core.Codec, p []byte) ([]byte, error) {
	return io.ReadAll(c.NewDecodeReader(bytes.NewReader(p)))
}
