package bencode

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// readers wraps input in each of the testing/iotest readers a stream form
// must handle.
func readers(data []byte) map[string]io.Reader {
	return map[string]io.Reader{
		"plain":   bytes.NewReader(data),
		"onebyte": iotest.OneByteReader(bytes.NewReader(data)),
		"half":    iotest.HalfReader(bytes.NewReader(data)),
		"dataerr": iotest.DataErrReader(bytes.NewReader(data)),
	}
}

func TestDecoderStream(t *testing.T) {
	t.Parallel()
	in := []byte("i1e3:abcli2eed1:ai3ee")
	want := []any{int64(1), []byte("abc"), []any{int64(2)}, map[string]any{"a": int64(3)}}
	for name, r := range readers(in) {
		dec := NewDecoder(r)
		var got []any
		for {
			var v any
			err := dec.Decode(&v)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, v)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v", name, got)
		}
		if dec.InputOffset() != int64(len(in)) {
			t.Errorf("%s: InputOffset = %d", name, dec.InputOffset())
		}
	}
}

func TestDecoderErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		lenient bool
		values  int   // values decoded before the error
		offset  int64 // of the error, from the start of the stream
	}{
		{"i1ei2", false, 1, 5},
		{"i1el", false, 1, 4},
		{"i1ed1:bi1e1:ai1ee", false, 1, 10},
		{"i1ed1:bi1e1:ai1eei01e", true, 2, 17},
		{"i1e5:ab", false, 1, 3},
		{"99999999999:x", false, 0, 0},
	}
	for _, tt := range tests {
		for name, r := range readers([]byte(tt.in)) {
			dec := DecodeOptions{Lenient: tt.lenient}.NewDecoder(r)
			n := 0
			var err error
			for {
				var v any
				if err = dec.Decode(&v); err != nil {
					break
				}
				n++
			}
			var se *SyntaxError
			if n != tt.values || !errors.As(err, &se) || se.Offset != tt.offset {
				t.Errorf("%q %s: %d values, then %v; want %d values, then an error at offset %d", tt.in, name, n, err, tt.values, tt.offset)
			}
			var v any
			if err2 := dec.Decode(&v); err2 != err {
				t.Errorf("%q %s: error not sticky: %v then %v", tt.in, name, err, err2)
			}
		}
	}
}

func TestDecoderTypeErrorOffset(t *testing.T) {
	t.Parallel()
	dec := NewDecoder(strings.NewReader("i1e3:abc"))
	var n int
	if err := dec.Decode(&n); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	var te *UnmarshalTypeError
	if err := dec.Decode(&n); !errors.As(err, &te) || te.Offset != 3 {
		t.Errorf("got %v, want a type error at offset 3", err)
	}
}

func TestDecoderReadError(t *testing.T) {
	t.Parallel()
	dec := NewDecoder(iotest.TimeoutReader(strings.NewReader("li1ei2ee")))
	var v any
	if err := dec.Decode(&v); err != iotest.ErrTimeout {
		// The first Read returns the whole list, so the value decodes.
		if err != nil {
			t.Fatalf("first value: %v", err)
		}
	}
	dec = NewDecoder(iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader("li1ei2ee"))))
	if err := dec.Decode(&v); err != iotest.ErrTimeout {
		t.Errorf("got %v, want %v", err, iotest.ErrTimeout)
	}
}

// TestDecoderReaderUnexpectedEOF reads strings from a reader that ends with
// io.ErrUnexpectedEOF of its own (a gzip stream cut short): its error, for
// a long string too, which was taken for the end of the input (a
// *SyntaxError).
func TestDecoderReaderUnexpectedEOF(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2000, 2 << 20} {
		in := io.MultiReader(strings.NewReader("l"+strconv.Itoa(n)+":"), strings.NewReader(strings.Repeat("x", 100)), iotest.ErrReader(io.ErrUnexpectedEOF))
		var v any
		if err := NewDecoder(in).Decode(&v); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("a string of %d bytes: %v, want the reader's io.ErrUnexpectedEOF", n, err)
		}
	}
}

// A lengthReader announces a huge string and then feeds bytes slowly.
type lengthReader struct{ sent int }

func (r *lengthReader) Read(p []byte) (int, error) {
	if r.sent == 0 {
		r.sent = 1
		return copy(p, "1000000000000:"), nil
	}
	if r.sent > 100 {
		return 0, io.EOF
	}
	r.sent++
	return copy(p, "xxxxxxxxxx"), nil
}

func TestDecoderHugeLengthDoesNotAllocate(t *testing.T) {
	t.Parallel()
	dec := NewDecoder(&lengthReader{})
	var v any
	if err := dec.Decode(&v); err == nil {
		t.Fatal("a truncated string decoded")
	}
	if cap(dec.buf) > 1<<16 {
		t.Errorf("buffer grew to %d bytes for about 1 KB of input", cap(dec.buf))
	}
}

func TestDecoderBuffered(t *testing.T) {
	t.Parallel()
	dec := NewDecoder(strings.NewReader("i1etail"))
	var n int
	if err := dec.Decode(&n); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(dec.Buffered())
	if string(rest) != "tail" {
		t.Errorf("Buffered = %q", rest)
	}
}

func TestDecoderCorpus(t *testing.T) {
	t.Parallel()
	for _, f := range corpus(t, "valid") {
		var raw RawMessage
		if err := NewDecoder(iotest.HalfReader(bytes.NewReader(f.data))).Decode(&raw); err != nil || !bytes.Equal(raw, f.data) {
			t.Errorf("%s: %v", f.name, err)
		}
	}
}
