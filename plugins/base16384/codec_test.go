package base16384

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
)

// withOptions returns the codec configured with opts, failing the test on
// error.
func withOptions(t testing.TB, opts ...core.Option) core.Codec {
	t.Helper()
	c, err := NewCodec().WithOptions(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// encodeWithCodec encodes src through c's push encoder.
func encodeWithCodec(t testing.TB, c core.Codec, src []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := c.NewEncodeWriter(&buf)
	if _, err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeWithCodec decodes src through c's pull decoder.
func decodeWithCodec(c core.Codec, src []byte) ([]byte, error) {
	return io.ReadAll(c.NewDecodeReader(bytes.NewReader(src)))
}

func TestCodecOptions(t *testing.T) {
	tests := []struct {
		opts    core.Options
		want    config
		wantErr error
	}{
		{nil, config{}, nil},
		{core.Options{{Key: "form", Value: "utf8"}}, config{utf8: true}, nil},
		{core.Options{{Key: "form", Value: "utf8"}, {Key: "form", Value: "utf16be"}}, config{}, nil},
		{core.Options{{Key: "bom", Value: "true"}, {Key: "strict", Value: "1"}, {Key: "checksum", Value: "true"}}, config{bom: true, strict: true, checksum: true}, nil},
		{core.Options{{Key: "form", Value: "utf16"}}, config{}, core.ErrBadOptionValue},
		{core.Options{{Key: "bom", Value: "yes"}}, config{}, core.ErrBadOptionValue},
		{core.Options{{Key: "colour", Value: "red"}}, config{}, core.ErrUnknownOption},
	}
	for _, tc := range tests {
		c, err := NewCodec().WithOptions(tc.opts)
		if tc.wantErr != nil {
			var oe *core.OptionError
			if !errors.As(err, &oe) || !errors.Is(err, tc.wantErr) || oe.Codec != Name {
				t.Errorf("WithOptions(%v) error = %v, want a *core.OptionError for %v", tc.opts, err, tc.wantErr)
			}
			continue
		}
		if err != nil || c.(*Codec).cfg != tc.want {
			t.Errorf("WithOptions(%v) = %+v, %v; want %+v", tc.opts, c, err, tc.want)
		}
	}
	if _, err := core.Configure(NewCodec(), core.Options{{Key: "form", Value: "utf8"}}); err != nil {
		t.Errorf("core.Configure: %v", err)
	}
}

func TestCodecNameAndSuffix(t *testing.T) {
	c := NewCodec()
	if c.Name() != "base16384" || c.Suffix() != ".b14" {
		t.Errorf("Name, Suffix = %q, %q", c.Name(), c.Suffix())
	}
}

func TestCodecForms(t *testing.T) {
	src := []byte("12345678")
	tests := []struct {
		opts []core.Option
		want []byte
	}{
		{nil, Encode(src)},
		{[]core.Option{{Key: "form", Value: "utf8"}}, []byte(EncodeToString(src))},
		{[]core.Option{{Key: "bom", Value: "true"}}, append([]byte{0xFE, 0xFF}, Encode(src)...)},
		{[]core.Option{{Key: "form", Value: "utf8"}, {Key: "bom", Value: "true"}}, append([]byte{0xEF, 0xBB, 0xBF}, EncodeToString(src)...)},
	}
	for _, tc := range tests {
		c := withOptions(t, tc.opts...)
		got := encodeWithCodec(t, c, src)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%v: encoded % X, want % X", tc.opts, got, tc.want)
		}
		// Any codec decodes every form.
		for _, dc := range []core.Codec{NewCodec(), c} {
			out, err := decodeWithCodec(dc, got)
			if err != nil || !bytes.Equal(out, src) {
				t.Errorf("%v: decoded %q, %v", tc.opts, out, err)
			}
		}
	}
}

func TestCodecEmpty(t *testing.T) {
	if got := encodeWithCodec(t, NewCodec(), nil); len(got) != 0 {
		t.Errorf("empty input encodes to % X, want nothing", got)
	}
	got := encodeWithCodec(t, withOptions(t, core.Option{Key: "bom", Value: "true"}), nil)
	if !bytes.Equal(got, []byte{0xFE, 0xFF}) {
		t.Errorf("empty input with bom=true encodes to % X, want FE FF", got)
	}
}

// checksumVectors are encodings with the C CLI's checksum in the pad bits
// (base16384 -c, without the BOM).
var checksumVectors = []struct{ plain, enc string }{
	{"1", "5A63 3D01"},
	{"12", "5A4C 76B1 3D02"},
	{"123", "5A4C 713A 3D03"},
	{"1234", "5A4C 7133 611B 3D04"},
	{"12345", "5A4C 7133 5ED7 3D05"},
	{"123456", "5A4C 7133 5ED4 84B2 3D06"},
	{"1234567", "5A4C 7133 5ED4 8437"},
	{"12345678", "5A4C 7133 5ED4 8437 5C2F 3D01"},
	{"hello, world", "6819 64C6 7FBC 7A20 6BDB 8526 7F91 3D05"},
}

func TestCodecChecksum(t *testing.T) {
	c := withOptions(t, core.Option{Key: "checksum", Value: "true"})
	for _, v := range checksumVectors {
		want := unhex(t, v.enc)
		got := encodeWithCodec(t, c, []byte(v.plain))
		if !bytes.Equal(got, want) {
			t.Errorf("%q: encoded % X, want % X", v.plain, got, want)
		}
		if out, err := decodeWithCodec(c, want); err != nil || string(out) != v.plain {
			t.Errorf("%q: checksum decode = %q, %v", v.plain, out, err)
		}
		if out, err := decodeWithCodec(NewCodec(), want); err != nil || string(out) != v.plain {
			t.Errorf("%q: default decode = %q, %v", v.plain, out, err)
		}
		if len(v.plain)%7 == 0 {
			continue
		}
		_, err := decodeWithCodec(c, flipPadBit(want))
		checkDataError(t, v.plain+": flipped pad bit", err, int64(len(want)-4), ErrChecksum)
	}
}

// flipPadBit returns a copy of the raw encoding enc of a partial group with
// the lowest bit of its last data unit flipped: always a pad bit.
func flipPadBit(enc []byte) []byte {
	bad := bytes.Clone(enc)
	bad[len(bad)-3] ^= 1
	return bad
}

func TestCodecStrict(t *testing.T) {
	strict := withOptions(t, core.Option{Key: "strict", Value: "true"})
	for _, v := range checksumVectors {
		if len(v.plain)%7 == 0 {
			continue
		}
		in := unhex(t, v.enc)
		_, err := decodeWithCodec(strict, in)
		checkDataError(t, v.plain+": strict", err, int64(len(in)-4), ErrPadBits)
		if out, err := decodeWithCodec(strict, Encode([]byte(v.plain))); err != nil || string(out) != v.plain {
			t.Errorf("%q: strict decode of zero pad bits = %q, %v", v.plain, out, err)
		}
	}
}

func TestCodecEncodedLen(t *testing.T) {
	raw, text := NewCodec(), withOptions(t, core.Option{Key: "form", Value: "utf8"}).(core.BlockCodec)
	for n := int64(0); n < 50; n++ {
		src := make([]byte, n)
		if got, want := raw.EncodedLen(n), int64(len(Encode(src))); got != want {
			t.Errorf("raw EncodedLen(%d) = %d, want %d", n, got, want)
		}
		if got, want := text.EncodedLen(n), int64(len(EncodeToString(src))); got != want {
			t.Errorf("utf8 EncodedLen(%d) = %d, want %d", n, got, want)
		}
	}
}

// layoutOptions are the option sets layout tests encode with.
var layoutOptions = [][]core.Option{
	nil,
	{{Key: "bom", Value: "true"}},
	{{Key: "form", Value: "utf8"}},
	{{Key: "form", Value: "utf8"}, {Key: "bom", Value: "true"}},
}

func TestCodecLayout(t *testing.T) {
	for _, opts := range layoutOptions {
		c := withOptions(t, opts...).(core.BlockCodec)
		for n := 0; n < 40; n++ {
			src := bytes.Repeat([]byte{0xA5}, n)
			enc := encodeWithCodec(t, c, src)
			l, err := c.Layout(bytes.NewReader(enc), int64(len(enc)))
			if err != nil {
				t.Errorf("%v, %d bytes: Layout: %v", opts, n, err)
				continue
			}
			wantHeader, wantBlock := int64(0), 8
			for _, o := range opts {
				switch {
				case o.Key == "bom" && len(opts) == 1:
					wantHeader = 2
				case o.Key == "bom":
					wantHeader = 3
				case o.Key == "form":
					wantBlock = 12
				}
			}
			if l.Size != int64(n) || l.Header != wantHeader || l.PlainBlock != 7 || l.EncodedBlock != wantBlock {
				t.Errorf("%v, %d bytes: Layout = %+v", opts, n, l)
			}
		}
	}
}

func TestCodecLayoutErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string // hex
		offset int64
		err    error
	}{
		{"odd", "5A4C 71", 2, ErrTruncated},
		{"marker value", "5A40 3D09", 2, ErrBadMarker},
		{"marker count", "5A40 7133 3D01", 4, ErrBadMarker},
		{"no marker", "5A40 7133", 4, ErrTruncated},
		{"utf8 partial", "E5A5 8CE7", 3, ErrTruncated},
		// After a byte order mark, a first unit of the other form: a
		// decoder started past the mark would take that form (FuzzRead).
		{"utf8 mark, raw unit", "EFBBBF 5830 5830 5830 5830 5830 5830", 3, ErrInvalidByte},
		{"raw mark, utf8 unit", "FEFF E4B8 80E4 B880 E4B8 80E4 B880 E4B8 80E4", 2, ErrInvalidUnit},
	}
	for _, tc := range tests {
		in := unhex(t, tc.in)
		_, err := NewCodec().Layout(bytes.NewReader(in), int64(len(in)))
		checkDataError(t, tc.name, err, tc.offset, tc.err)
	}
	if _, err := NewCodec().Layout(bytes.NewReader(nil), 10); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Layout past the end: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := NewCodec().Layout(bytes.NewReader(nil), -1); err == nil {
		t.Error("Layout with a negative size: no error")
	}
	if _, err := NewCodec().Layout(failingReaderAt{}, 10); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Layout with a failing reader: %v, want its error", err)
	}
}

// failingReaderAt fails every read.
type failingReaderAt struct{}

func (failingReaderAt) ReadAt([]byte, int64) (int, error) { return 0, io.ErrClosedPipe }

// TestCodecDecodeFromBlock decodes from every block boundary, as a file
// system reading at an offset does.
func TestCodecDecodeFromBlock(t *testing.T) {
	src := make([]byte, 3*bufSize+5)
	for i := range src {
		src[i] = byte(i * 7)
	}
	for _, opts := range layoutOptions {
		c := withOptions(t, opts...).(core.BlockCodec)
		enc := encodeWithCodec(t, c, src)
		l, err := c.Layout(bytes.NewReader(enc), int64(len(enc)))
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []int64{0, 1, 6, 7, 8, 700, bufSize - 1, bufSize, int64(len(src)) - 5, int64(len(src)) - 1, int64(len(src))} {
			encOff, plainOff := l.EncodedOffset(off)
			got, err := decodeWithCodec(c, enc[encOff:])
			if err != nil || !bytes.Equal(got, src[plainOff:]) {
				t.Errorf("%v: decoding from plain offset %d (encoded %d): %d bytes, %v", opts, off, encOff, len(got), err)
			}
			// A run of whole blocks decodes alone.
			blocks := min((int64(len(src))-plainOff)/7, 3)
			got, err = decodeWithCodec(c, enc[encOff:encOff+blocks*int64(l.EncodedBlock)])
			if err != nil || !bytes.Equal(got, src[plainOff:plainOff+blocks*7]) {
				t.Errorf("%v: decoding %d blocks from plain offset %d: %d bytes, %v", opts, blocks, off, len(got), err)
			}
		}
	}
}

// TestFormDecodeReader decodes the blocks of a stream from each block
// boundary in the stream's form, and checks that a unit of the other form
// there is a DataError, as it is when the stream is decoded from its start,
// not data decoded in that form.
func TestFormDecodeReader(t *testing.T) {
	src := make([]byte, 100)
	for i := range src {
		src[i] = byte(i * 13)
	}
	for _, opts := range layoutOptions {
		c := withOptions(t, opts...).(*Codec)
		enc := encodeWithCodec(t, c, src)
		l, err := c.Layout(bytes.NewReader(enc), int64(len(enc)))
		if err != nil {
			t.Fatal(err)
		}
		for block := int64(0); block*int64(l.PlainBlock) < int64(len(src)); block++ {
			r, err := c.NewFormDecodeReader(bytes.NewReader(enc[l.Header+block*int64(l.EncodedBlock):]), l.Form)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, src[block*int64(l.PlainBlock):]) {
				t.Fatalf("%s from block %d: %x, %v", l.Form, block, got, err)
			}
		}
		// A block of the other form's first bytes: 'X0' starts a raw unit,
		// E4 B8 80 a UTF-8 one.
		other := "X0X0X0X0"
		if !strings.HasPrefix(l.Form, "utf8") {
			other = "\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8"
		}
		damaged := append([]byte(other), enc[l.Header+int64(l.EncodedBlock):]...)
		r, err := c.NewFormDecodeReader(bytes.NewReader(damaged), l.Form)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(r); !errors.Is(err, core.ErrInvalidData) {
			t.Errorf("%s: a block of the other form decoded to %x, %v; want a DataError", l.Form, got, err)
		}
	}
	if _, err := NewCodec().NewFormDecodeReader(bytes.NewReader(nil), "base64"); err == nil {
		t.Error("NewFormDecodeReader of an unknown form: no error")
	}
}
