package core_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/b14fs/b14fs/core"
)

// hexEncoder writes two hex digits a byte and a line break at the end: its
// output grows, and its end needs room of its own.
type hexEncoder struct {
	ended  bool
	resets int
}

func (e *hexEncoder) Transform(dst, src []byte, atEOF bool) (int, int, error) {
	n := min(len(src), len(dst)/2)
	hex.Encode(dst, src[:n])
	nDst := 2 * n
	if n < len(src) {
		return nDst, n, core.ErrShortDst
	}
	if atEOF && !e.ended {
		if nDst == len(dst) {
			return nDst, n, core.ErrShortDst
		}
		dst[nDst] = '\n'
		nDst++
		e.ended = true
	}
	return nDst, n, nil
}

func (e *hexEncoder) Reset() { e.ended, e.resets = false, e.resets+1 }

// hexDecoder decodes pairs of hex digits and ignores a line break at the
// end: a unit may be split between pieces, and bad input has an offset.
type hexDecoder struct{ resets int }

func (d *hexDecoder) Transform(dst, src []byte, atEOF bool) (int, int, error) {
	nDst, nSrc := 0, 0
	for ; nSrc+2 <= len(src); nSrc += 2 {
		if nDst == len(dst) {
			return nDst, nSrc, core.ErrShortDst
		}
		if src[nSrc] == '\n' {
			break
		}
		if _, err := hex.Decode(dst[nDst:nDst+1], src[nSrc:nSrc+2]); err != nil {
			return nDst, nSrc, &core.DataError{Codec: "hex", Offset: int64(nSrc), Err: err}
		}
		nDst++
	}
	rest := src[nSrc:]
	switch {
	case atEOF && (string(rest) == "\n" || len(rest) == 0):
		return nDst, len(src), nil
	case atEOF:
		return nDst, nSrc, &core.DataError{Codec: "hex", Offset: int64(nSrc), Err: io.ErrUnexpectedEOF}
	case len(rest) > 0:
		return nDst, nSrc, core.ErrShortSrc
	}
	return nDst, nSrc, nil
}

func (d *hexDecoder) Reset() { d.resets++ }

var hexCodec = core.NewCodec("hex",
	func() core.Transformer { return new(hexEncoder) },
	func() core.Transformer { return new(hexDecoder) })

// testPlain is more than the streams' buffers hold, so that every stream
// refills them.
var testPlain = bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvwxyz\x00\xff"), 3000)

func hexOf(b []byte) []byte { return []byte(hex.EncodeToString(b) + "\n") }

// readers returns the ways a source may deliver data.
func readers(data []byte) map[string]io.Reader {
	return map[string]io.Reader{
		"bytes":    bytes.NewReader(data),
		"onebyte":  iotest.OneByteReader(bytes.NewReader(data)),
		"half":     iotest.HalfReader(bytes.NewReader(data)),
		"dataerr":  iotest.DataErrReader(bytes.NewReader(data)),
		"plain":    struct{ io.Reader }{bytes.NewReader(data)},
		"timeout0": iotest.TimeoutReader(bytes.NewReader(nil)),
	}
}

func TestReaderForms(t *testing.T) {
	for _, dir := range []struct {
		name    string
		newT    func() core.Transformer
		in, out []byte
	}{
		{"encode", func() core.Transformer { return new(hexEncoder) }, testPlain, hexOf(testPlain)},
		{"decode", func() core.Transformer { return new(hexDecoder) }, hexOf(testPlain), testPlain},
		{"encode empty", func() core.Transformer { return new(hexEncoder) }, nil, []byte("\n")},
	} {
		for name, src := range readers(dir.in) {
			if name == "timeout0" {
				continue
			}
			t.Run(dir.name+"/"+name, func(t *testing.T) {
				if err := iotest.TestReader(core.NewReader(src, dir.newT()), dir.out); err != nil {
					t.Fatal(err)
				}
			})
		}
		t.Run(dir.name+"/WriteTo", func(t *testing.T) {
			for name, src := range readers(dir.in) {
				if name == "timeout0" {
					continue
				}
				var got bytes.Buffer
				n, err := core.NewReader(src, dir.newT()).WriteTo(&got)
				if err != nil || n != int64(len(dir.out)) || !bytes.Equal(got.Bytes(), dir.out) {
					t.Errorf("%s: WriteTo = %d, %v; output equal %v", name, n, err, bytes.Equal(got.Bytes(), dir.out))
				}
			}
		})
	}
}

func TestWriterSplits(t *testing.T) {
	in := hexOf(testPlain[:100])
	for split := 0; split <= len(in); split++ {
		var got bytes.Buffer
		w := core.NewWriter(&got, new(hexDecoder))
		for _, piece := range [][]byte{in[:split], in[split:]} {
			if n, err := w.Write(piece); n != len(piece) || err != nil {
				t.Fatalf("split %d: Write = %d, %v", split, n, err)
			}
		}
		if err := w.Close(); err != nil || !bytes.Equal(got.Bytes(), testPlain[:100]) {
			t.Fatalf("split %d: Close = %v, output %q", split, err, got.Bytes())
		}
	}
	// Byte by byte, and all at once, both ways.
	for _, tc := range []struct {
		newT    func() core.Transformer
		in, out []byte
	}{
		{func() core.Transformer { return new(hexEncoder) }, testPlain, hexOf(testPlain)},
		{func() core.Transformer { return new(hexDecoder) }, hexOf(testPlain), testPlain},
	} {
		for _, size := range []int{1, 3, 511, 513, len(tc.in)} {
			var got bytes.Buffer
			w := core.NewWriter(&got, tc.newT())
			for p := tc.in; len(p) > 0; {
				k := min(size, len(p))
				if n, err := w.Write(p[:k]); n != k || err != nil {
					t.Fatalf("pieces of %d: Write = %d, %v", size, n, err)
				}
				p = p[k:]
			}
			if err := w.Close(); err != nil || !bytes.Equal(got.Bytes(), tc.out) {
				t.Fatalf("pieces of %d: Close = %v, output equal %v", size, err, bytes.Equal(got.Bytes(), tc.out))
			}
		}
	}
}

// TestDataErrorOffsets puts a bad digit at every position of a stream read
// and written in pieces of every size: the error names its offset in the
// whole stream, and comes after exactly the bytes before it.
func TestDataErrorOffsets(t *testing.T) {
	good := hexOf(testPlain[:40])
	for bad := 0; bad < len(good)-1; bad++ {
		in := bytes.Clone(good)
		in[bad] = 'x'
		want := &core.DataError{Codec: "hex", Offset: int64(bad / 2 * 2)}
		for _, size := range []int{1, 2, 3, 7, len(in)} {
			at := fmt.Sprintf("bad byte %d, pieces of %d", bad, size)
			got, err := io.ReadAll(core.NewReader(iotest.HalfReader(&chunkReader{in, size}), new(hexDecoder)))
			checkDataError(t, "Reader: "+at, err, want)
			if !bytes.Equal(got, testPlain[:bad/2]) {
				t.Fatalf("Reader: %s: read %d bytes before the error, want %d", at, len(got), bad/2)
			}
			var out bytes.Buffer
			w := core.NewWriter(&out, new(hexDecoder))
			err = nil
			for p := in; len(p) > 0 && err == nil; {
				k := min(size, len(p))
				_, err = w.Write(p[:k])
				p = p[k:]
			}
			if err == nil {
				err = w.Close()
			}
			checkDataError(t, "Writer: "+at, err, want)
			if !bytes.Equal(out.Bytes(), testPlain[:bad/2]) {
				t.Fatalf("Writer: %s: wrote %d bytes before the error, want %d", at, out.Len(), bad/2)
			}
			if _, werr := w.Write([]byte("00")); werr != err && !errors.Is(werr, core.ErrClosed) {
				t.Fatalf("Writer: %s: Write after the error = %v, want %v", at, werr, err)
			}
		}
	}
	// Truncated input: the error is at Close, at the unit cut short.
	w := core.NewWriter(io.Discard, new(hexDecoder))
	w.Write([]byte("0a0"))
	checkDataError(t, "truncated", w.Close(), &core.DataError{Codec: "hex", Offset: 2})
}

func checkDataError(t *testing.T, at string, err error, want *core.DataError) {
	t.Helper()
	var de *core.DataError
	if !errors.As(err, &de) || de.Codec != want.Codec || de.Offset != want.Offset {
		t.Fatalf("%s: error %v, want a data error at offset %d", at, err, want.Offset)
	}
}

// A chunkReader returns its data size bytes at a time.
type chunkReader struct {
	data []byte
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.size)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func TestStreamClose(t *testing.T) {
	enc := new(hexEncoder)
	r := core.NewReader(strings.NewReader("abc"), enc)
	if _, err := r.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if enc.resets == 0 {
		t.Error("Reader.Close did not reset (release) the Transformer")
	}
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, core.ErrClosed) {
		t.Errorf("Read after Close = %v, want ErrClosed", err)
	}
	if _, err := r.WriteTo(io.Discard); !errors.Is(err, core.ErrClosed) {
		t.Errorf("WriteTo after Close = %v, want ErrClosed", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	r.Reset(strings.NewReader("xy"))
	if got, err := io.ReadAll(r); err != nil || string(got) != "7879\n" {
		t.Errorf("after Reset: %q, %v", got, err)
	}

	var out bytes.Buffer
	dec := new(hexDecoder)
	w := core.NewWriter(&out, dec)
	w.Write([]byte("616"))
	if err := w.Close(); err == nil {
		t.Error("Close of truncated input = nil")
	}
	first := w.Close()
	if _, err := w.Write([]byte("00")); !errors.Is(err, core.ErrClosed) && err != first {
		t.Errorf("Write after Close = %v", err)
	}
	if dec.resets == 0 {
		t.Error("Writer.Close did not reset (release) the Transformer")
	}
	out.Reset()
	w.Reset(&out)
	w.Write([]byte("6162"))
	if err := w.Close(); err != nil || out.String() != "ab" {
		t.Errorf("after Reset: %q, %v", out.String(), err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := w.Write([]byte("00")); !errors.Is(err, core.ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
}

// TestSourceErrors: an error of the source comes after all the output of
// the input before it, and ends the stream.
func TestSourceErrors(t *testing.T) {
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("616263"), iotest.ErrReader(boom))
	got, err := io.ReadAll(core.NewReader(src, new(hexDecoder)))
	if err != boom || string(got) != "abc" {
		t.Errorf("ReadAll = %q, %v; want abc, boom", got, err)
	}
	// A source that returns nothing forever does not hang the stream.
	_, err = io.ReadAll(core.NewReader(emptyReader{}, new(hexDecoder)))
	if !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("a source of empty reads: %v, want io.ErrNoProgress", err)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// stuck never consumes nor makes anything.
type stuck struct{ err error }

func (s stuck) Transform([]byte, []byte, bool) (int, int, error) { return 0, 0, s.err }
func (stuck) Reset()                                             {}

// TestNoProgress: a Transformer that neither consumes nor makes anything
// ends its streams with an error instead of hanging them, and one that
// asks for more input than the buffers hold is refused.
func TestNoProgress(t *testing.T) {
	for _, err := range []error{nil, core.ErrShortDst, core.ErrShortSrc} {
		if _, rerr := io.ReadAll(core.NewReader(bytes.NewReader(testPlain), stuck{err})); rerr == nil {
			t.Errorf("Reader over a Transformer stuck with %v: no error", err)
		}
		w := core.NewWriter(io.Discard, stuck{err})
		_, werr := w.Write(testPlain)
		if werr == nil {
			werr = w.Close()
		}
		if werr == nil {
			t.Errorf("Writer over a Transformer stuck with %v: no error", err)
		}
	}
}

// TestWriterLeavesInput: the Writer neither changes the caller's bytes nor
// keeps them past the call.
func TestWriterLeavesInput(t *testing.T) {
	in := hexOf(testPlain[:300])
	keep := bytes.Clone(in)
	var out bytes.Buffer
	w := core.NewWriter(&out, new(hexDecoder))
	w.Write(in[:7])
	clear(in[:7]) // the caller reuses its buffer: the unit kept back must be a copy
	w.Write(keep[7:])
	if err := w.Close(); err != nil || !bytes.Equal(out.Bytes(), testPlain[:300]) {
		t.Fatalf("Close = %v, output equal %v", err, bytes.Equal(out.Bytes(), testPlain[:300]))
	}
	if !bytes.Equal(in[7:], keep[7:]) {
		t.Error("Write changed the caller's bytes")
	}
}

func TestNewCodec(t *testing.T) {
	if hexCodec.Name() != "hex" {
		t.Errorf("Name = %q", hexCodec.Name())
	}
	var enc bytes.Buffer
	w := hexCodec.NewEncodeWriter(&enc)
	w.Write(testPlain)
	if err := w.Close(); err != nil || !bytes.Equal(enc.Bytes(), hexOf(testPlain)) {
		t.Fatalf("NewEncodeWriter: %v", err)
	}
	got, err := io.ReadAll(hexCodec.NewDecodeReader(bytes.NewReader(enc.Bytes())))
	if err != nil || !bytes.Equal(got, testPlain) {
		t.Fatalf("NewDecodeReader: %v", err)
	}
}

func ExampleNewCodec() {
	// A codec is its name and the step functions of its two directions.
	hexCodec := core.NewCodec("hex",
		func() core.Transformer { return new(hexEncoder) },
		func() core.Transformer { return new(hexDecoder) })
	r := hexCodec.NewDecodeReader(strings.NewReader("68656c6c6f0a\n"))
	defer r.Close()
	io.Copy(os.Stdout, r)
	// Output: hello
}

// recorder passes a Transformer's calls on and keeps the last dst it got.
type recorder struct {
	core.Transformer
	dst []byte
}

func (r *recorder) Transform(dst, src []byte, atEOF bool) (int, int, error) {
	r.dst = dst
	return r.Transformer.Transform(dst, src, atEOF)
}

// TestReadIntoCaller checks that a Read with room for a whole buffer of
// output has the Transformer write into the caller's slice, not into the
// stream's buffer and then copied, and that a data error met there comes
// after the output before it, at its offset.
func TestReadIntoCaller(t *testing.T) {
	plain := bytes.Repeat(testPlain, 100<<10/len(testPlain)+1)
	in := hexOf(plain)
	for _, size := range []int{1, 40<<10 - 1, 40 << 10, 200 << 10} {
		rec := &recorder{Transformer: new(hexDecoder)}
		p := make([]byte, size)
		n, err := core.NewReader(bytes.NewReader(in), rec).Read(p)
		if err != nil || n == 0 || !bytes.Equal(p[:n], plain[:n]) {
			t.Fatalf("Read of %d bytes = %d, %v, or the wrong bytes", size, n, err)
		}
		direct := unsafe.SliceData(rec.dst) == unsafe.SliceData(p)
		if want := size >= 40<<10; direct != want {
			t.Errorf("Read of %d bytes: the Transformer wrote into the caller's slice: %v, want %v", size, direct, want)
		}
	}
	bad := bytes.Clone(in)
	bad[2*90000+1] = 'x'
	r := core.NewReader(bytes.NewReader(bad), new(hexDecoder))
	var got []byte
	p := make([]byte, 64<<10)
	for {
		n, err := r.Read(p)
		got = append(got, p[:n]...)
		if err != nil {
			checkDataError(t, "a Read into the caller's slice", err, &core.DataError{Codec: "hex", Offset: 2 * 90000})
			break
		}
	}
	if !bytes.Equal(got, plain[:90000]) {
		t.Errorf("read %d bytes before the data error, want 90000", len(got))
	}
}
