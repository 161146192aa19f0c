package bencode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// warnTests are inputs with bytes after a top-level value, and what each
// layer makes of them in lenient mode.
var warnTests = []struct {
	in        string
	strictErr int64 // the offset of strict mode's error
	// Unmarshal (and Scanner.Finish) in lenient mode: the warnings, or the
	// error's offset (-1: none).
	unmarshal    []Warning
	unmarshalErr int64
	// The Scanner, the Decoder and the codec, which read value after value.
	stream    []Warning
	streamErr int64
	json      string
}{
	{"de\n", 2, []Warning{{TrailingSpace, 2, 1}}, -1, []Warning{{TrailingSpace, 2, 1}}, -1, "{}\n"},
	{"i1e \r\n\t", 3, []Warning{{TrailingSpace, 3, 4}}, -1, []Warning{{TrailingSpace, 3, 4}}, -1, "1\n"},
	{"de\n\n", 2, []Warning{{TrailingSpace, 2, 2}}, -1, []Warning{{TrailingSpace, 2, 2}}, -1, "{}\n"},
	{"i1e\ni2e\n", 3, []Warning{{TrailingSpace, 3, 1}, {IgnoredData, 4, 4}}, -1,
		[]Warning{{TrailingSpace, 3, 1}, {TrailingSpace, 7, 1}}, -1, "1\n2\n"},
	{"de\nx", 2, []Warning{{TrailingSpace, 2, 1}, {IgnoredData, 3, 1}}, -1, []Warning{{TrailingSpace, 2, 1}}, 3, "{}\n"},
	{"dexyz", 2, []Warning{{IgnoredData, 2, 3}}, -1, nil, 2, "{}\n"},
	{"le  le", 2, []Warning{{TrailingSpace, 2, 2}, {IgnoredData, 4, 2}}, -1, []Warning{{TrailingSpace, 2, 2}}, -1, "[]\n[]\n"},
	// Before the first value too (whitespace alone is a stream of no values),
	// but never inside one.
	{"\nde", 0, []Warning{{LeadingSpace, 0, 1}}, -1, []Warning{{LeadingSpace, 0, 1}}, -1, "{}\n"},
	{" \r\n i1e\n", 0, []Warning{{LeadingSpace, 0, 4}, {TrailingSpace, 7, 1}}, -1,
		[]Warning{{LeadingSpace, 0, 4}, {TrailingSpace, 7, 1}}, -1, "1\n"},
	{" ", 0, []Warning{{LeadingSpace, 0, 1}}, 1, []Warning{{LeadingSpace, 0, 1}}, -1, ""},
	{"l\ne", 1, nil, 1, nil, 1, ""},
	{"d1:a i1ee", 4, nil, 4, nil, 4, ""},
}

// collect returns a Warn function that appends to *ws.
func collect(ws *[]Warning) func(Warning) {
	*ws = nil
	return func(w Warning) { *ws = append(*ws, w) }
}

// errOffset returns the offset of err, a *SyntaxError, or -1 for nil.
func errOffset(t *testing.T, err error) int64 {
	t.Helper()
	if err == nil {
		return -1
	}
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("%v is not a *SyntaxError", err)
	}
	return se.Offset
}

func TestLenientTrailingSpace(t *testing.T) {
	for _, tt := range warnTests {
		var v any
		if off := errOffset(t, Unmarshal([]byte(tt.in), &v)); off != tt.strictErr {
			t.Errorf("strict Unmarshal %q: error at %d, want %d", tt.in, off, tt.strictErr)
		}
		var ws []Warning
		o := DecodeOptions{Lenient: true, Warn: collect(&ws)}
		if off := errOffset(t, o.Unmarshal([]byte(tt.in), &v)); off != tt.unmarshalErr || !slices.Equal(ws, tt.unmarshal) {
			t.Errorf("lenient Unmarshal %q: error at %d, warnings %v; want %d, %v", tt.in, off, ws, tt.unmarshalErr, tt.unmarshal)
		}

		// The Scanner: tokens until io.EOF.
		s := (DecodeOptions{Lenient: true, Warn: collect(&ws)}).NewScanner([]byte(tt.in))
		var err error
		for err == nil {
			_, err = s.Next()
		}
		if err == io.EOF {
			err = nil
		}
		if off := errOffset(t, err); off != tt.streamErr || !slices.Equal(ws, tt.stream) {
			t.Errorf("lenient Scanner %q: error at %d, warnings %v; want %d, %v", tt.in, off, ws, tt.streamErr, tt.stream)
		}

		// The Decoder, reading one byte at a time: values until io.EOF.
		for _, r := range []io.Reader{bytes.NewReader([]byte(tt.in)), iotest.OneByteReader(bytes.NewReader([]byte(tt.in)))} {
			d := (DecodeOptions{Lenient: true, Warn: collect(&ws)}).NewDecoder(r)
			var err error
			for err == nil {
				err = d.Decode(&v)
			}
			if err == io.EOF {
				err = nil
			}
			if off := errOffset(t, err); off != tt.streamErr || !slices.Equal(ws, tt.stream) {
				t.Errorf("lenient Decoder %q: error at %d, warnings %v; want %d, %v", tt.in, off, ws, tt.streamErr, tt.stream)
			}
		}

		// The codec, through every stream form.
		for _, f := range forms {
			c := &Codec{opts: DecodeOptions{Lenient: true, Warn: collect(&ws)}}
			js, err := f.run(c, false, []byte(tt.in))
			off := int64(-1)
			if err != nil {
				off = codecOffset(t, err)
			}
			if off != tt.streamErr || !slices.Equal(ws, tt.stream) || (err == nil && string(js) != tt.json) {
				t.Errorf("lenient codec %s %q: %q, error at %d, warnings %v; want %q, %d, %v", f.name, tt.in, js, off, ws, tt.json, tt.streamErr, tt.stream)
			}
			if _, err := f.run(NewCodec(), false, []byte(tt.in)); codecOffset(t, err) != tt.strictErr {
				t.Errorf("strict codec %s %q: %v, want an error at %d", f.name, tt.in, err, tt.strictErr)
			}
		}
	}
}

// codecOffset returns the offset of the *SyntaxError a codec's error wraps.
func codecOffset(t *testing.T, err error) int64 {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("%v does not wrap a *SyntaxError", err)
	}
	return se.Offset
}

func TestScannerFinish(t *testing.T) {
	var ws []Warning
	s := (DecodeOptions{Lenient: true, Warn: collect(&ws)}).NewScanner([]byte("l"))
	s.Next()
	if err := s.Finish(); err == nil {
		t.Error("Finish inside a value: no error")
	}
	s = NewScanner([]byte("i1e "))
	s.Next()
	if off := errOffset(t, s.Finish()); off != 3 {
		t.Errorf("strict Finish: error at %d, want 3", off)
	}
	s = NewScanner([]byte("i1e"))
	s.Next()
	if err := s.Finish(); err != nil {
		t.Errorf("strict Finish at the end: %v", err)
	}
}

func TestWarningString(t *testing.T) {
	for _, tt := range []struct {
		w    Warning
		want string
	}{
		{Warning{TrailingSpace, 2, 1}, "bencode: 1 byte of whitespace after the top-level value at byte offset 2"},
		{Warning{TrailingSpace, 10, 3}, "bencode: 3 bytes of whitespace after the top-level value at byte offset 10"},
		{Warning{IgnoredData, 4, 4}, "bencode: 4 bytes of data after the top-level value, ignored, at byte offset 4"},
		{Warning{LeadingSpace, 0, 1}, "bencode: 1 byte of whitespace before the top-level value at byte offset 0"},
	} {
		if got := fmt.Sprint(tt.w); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.w, got, tt.want)
		}
	}
}

// spaces is a reader of n spaces.
type spaces struct{ n int }

func (r *spaces) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = ' '
	}
	r.n -= k
	return k, nil
}

// A Decoder drops the whitespace it skips: a long run of it costs no memory.
func TestDecoderLongSpace(t *testing.T) {
	const n = 16 << 20
	var ws []Warning
	d := (DecodeOptions{Lenient: true, Warn: collect(&ws)}).NewDecoder(io.MultiReader(strings.NewReader("de"), &spaces{n}, strings.NewReader("i7e"), &spaces{n}))
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if err := d.Decode(&v); err != nil || v != int64(7) {
		t.Fatalf("%v, %v", v, err)
	}
	if err := d.Decode(&v); err != io.EOF {
		t.Fatalf("%v, want io.EOF", err)
	}
	if want := []Warning{{TrailingSpace, 2, n}, {TrailingSpace, n + 5, n}}; !slices.Equal(ws, want) {
		t.Errorf("warnings %v, want %v", ws, want)
	}
	if c := cap(d.buf); c > 1<<20 {
		t.Errorf("the buffer grew to %d bytes", c)
	}
	if off := d.InputOffset(); off != n+5 {
		t.Errorf("InputOffset %d, want %d", off, n+5)
	}
}
