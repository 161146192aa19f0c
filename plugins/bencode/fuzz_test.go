package bencode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"
)

// fuzzSeeds adds small hand-made inputs and, when the shared corpus is
// there, its small files.
func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		"i0e", "i-1e", "i99999999999999999999e", "0:", "3:abc", "le", "de",
		"d1:ai1e1:bli2e3:xyzee", "d1:bi1e1:ai2ee", "d1:ai1e1:ai2ee", "i1ei2e",
		"2:\xff\xfe", "9:base64:ab", "d2:\xff\x00le0:dee", "llleee", "i01e", "5:ab",
		"de\n", "i1e \r\n\ti2e\n", "\nde", "le\nx", "i1e\n\n",
	} {
		f.Add([]byte(s))
	}
	for _, class := range []string{"valid", "edge", "malformed"} {
		for _, c := range corpusIn(corpusDir(), class) {
			if len(c.data) <= 4096 {
				f.Add(c.data)
			}
		}
	}
}

// FuzzUnmarshal checks that decoding never panics, and that what strict
// decoding accepts encodes back to the same bytes.
func FuzzUnmarshal(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if err := (DecodeOptions{Lenient: true}).Unmarshal(data, &v); err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > int64(len(data)) {
				t.Fatalf("lenient: error %v without a valid offset", err)
			}
		}
		if err := Unmarshal(data, &v); err != nil {
			return
		}
		out, err := Marshal(v)
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("re-encoding %q gives %q, %v", data, out, err)
		}
	})
}

// FuzzValue checks that decoding into a Value accepts what decoding into an
// `any` accepts, with the same errors, and gives the same values; that the
// fast form of their first pass records what the Scanner-driven form does,
// and fails where it fails, with the same errors; and that a Value gives
// back the bytes it was decoded from.
func FuzzValue(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range []DecodeOptions{{}, {Lenient: true}, {MaxDepth: 3}} {
			var v Value
			err := o.Unmarshal(data, &v)
			var a any
			anyErr := o.Unmarshal(data, &a)
			var te *UnmarshalTypeError
			if errors.As(err, &te) {
				if !errors.As(anyErr, &te) {
					t.Fatalf("%+v: Value %v, any %v", o, err, anyErr)
				}
			} else if fmt.Sprint(err) != fmt.Sprint(anyErr) {
				t.Fatalf("%+v: Value %v, any %v", o, err, anyErr)
			}
			fast, fastErr := firstPass(o, data, false)
			slow, slowErr := firstPass(o, data, true)
			if fmt.Sprint(fastErr) != fmt.Sprint(slowErr) || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%+v: fast %v, slow %v", o, fastErr, slowErr)
			}
			if err != nil {
				continue
			}
			if !reflect.DeepEqual(v.Any(), a) {
				t.Fatalf("%+v: Any %v, any %v", o, v.Any(), a)
			}
			if raw := v.Raw(); !bytes.Contains(data, raw) || !o.Lenient && !bytes.Equal(raw, data) {
				t.Fatalf("%+v: Raw %q", o, raw)
			}
			if out, err := Marshal(v); err != nil || !bytes.Equal(out, v.Raw()) {
				t.Fatalf("%+v: Marshal %q, %v", o, out, err)
			}
		}
	})
}

// FuzzJSON checks that bencode to JSON and back gives the same bytes, in
// strict and in lenient mode (less the whitespace lenient mode reports it
// skipped), and that the encoder never panics on its own output mangled.
func FuzzJSON(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var warnings []Warning
		lax := &Codec{opts: DecodeOptions{Lenient: true, Warn: func(w Warning) { warnings = append(warnings, w) }}}
		for _, c := range []*Codec{NewCodec(), lax, {form: hexForm}} {
			js, err := io.ReadAll(c.NewDecodeReader(bytes.NewReader(data)))
			if err != nil {
				continue
			}
			back, err := io.ReadAll(c.NewEncodeReader(bytes.NewReader(js)))
			if want := withoutWarned(t, data, warnings); err != nil || !bytes.Equal(back, want) {
				t.Fatalf("lenient=%v: %q -> %q -> %q, %v; want %q", c.opts.Lenient, data, js, back, err, want)
			}
		}
		// The data taken as JSON: no panic, and what encodes decodes back.
		b, err := io.ReadAll(NewCodec().NewEncodeReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		if err := checkValue(b); err != nil {
			t.Fatalf("JSON %q encodes to invalid bencode %q: %v", data, b, err)
		}
	})
}

// withoutWarned returns data without the whitespace that warnings report,
// checking that each is whitespace.
func withoutWarned(t *testing.T, data []byte, warnings []Warning) []byte {
	t.Helper()
	var out []byte
	var at int64
	for _, w := range warnings {
		if w.Kind != TrailingSpace && w.Kind != LeadingSpace || w.Offset < at || w.Len <= 0 || w.Offset+w.Len > int64(len(data)) ||
			len(bytes.Trim(data[w.Offset:w.Offset+w.Len], " \t\r\n")) > 0 {
			t.Fatalf("%q: bad warning %+v", data, w)
		}
		out = append(out, data[at:w.Offset]...)
		at = w.Offset + w.Len
	}
	return append(out, data[at:]...)
}

// FuzzScanner checks that the token layer and the value layer agree: they
// accept the same inputs, Skip spans what Unmarshal into RawMessage keeps,
// and scanning in pieces gives the tokens scanning at once gives.
func FuzzScanner(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range []DecodeOptions{{}, {Lenient: true}, {MaxDepth: 3}} {
			toks, scanErr := tokens(o.NewScanner(data))
			var raw RawMessage
			rawErr := o.Unmarshal(data, &raw)
			var v any
			anyErr := o.Unmarshal(data, &v)
			var te *UnmarshalTypeError
			if errors.As(anyErr, &te) { // an integer too long for a big.Int
				anyErr = nil
			}
			if (rawErr == nil) != (anyErr == nil) {
				t.Fatalf("%+v: RawMessage %v, any %v", o, rawErr, anyErr)
			}
			if !o.Lenient && (scanErr == nil) != (anyErr == nil) {
				t.Fatalf("%+v: scanner %v, Unmarshal %v", o, scanErr, anyErr)
			}
			if o.Lenient && scanErr == nil && anyErr != nil && toks != "" {
				// (Unmarshal needs a value; a lenient scanner accepts none.)
				t.Fatalf("lenient: scanner accepts, Unmarshal says %v", anyErr)
			}
			if rawErr == nil && !o.Lenient && !bytes.Equal(raw, data) {
				t.Fatalf("RawMessage %q of %q", raw, data)
			}
			pieces, pieceErr := scanInPieces(data, 3, o)
			if pieces != toks || fmt.Sprint(pieceErr) != fmt.Sprint(scanErr) {
				t.Fatalf("%+v: in pieces %q, %v; at once %q, %v", o, pieces, pieceErr, toks, scanErr)
			}
			if anyErr == nil {
				var again any
				if err := NewDecoder(bytes.NewReader(data)).Decode(&again); !o.Lenient && (err != nil || !reflect.DeepEqual(again, v)) {
					t.Fatalf("Decoder gives %v, %v; Unmarshal %v", again, err, v)
				}
			}
		}
	})
}

// FuzzEncodeJSON checks the JSON side: encoding never panics, what strict
// encoding writes is canonical bencode whose JSON form encodes to it again,
// and writing the JSON one byte at a time gives the same result.
func FuzzEncodeJSON(f *testing.F) {
	for _, tt := range jsonForms {
		f.Add([]byte(tt.json))
	}
	for _, s := range []string{`{"b":1,"a":[{"d":2,"c":"base64:AA=="}]}`, `"\ud83d\ude00\u0000\n"`, `[1, 2 , -3]`, `{"a":1,"a":2}`, `1.5`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewCodec()
		b, err := io.ReadAll(c.NewEncodeReader(bytes.NewReader(data)))
		var out bytes.Buffer
		w := c.NewEncodeWriter(&out)
		var werr error
		for i := range data {
			if _, werr = w.Write(data[i : i+1]); werr != nil {
				break
			}
		}
		if werr == nil {
			werr = w.Close()
		}
		if fmt.Sprint(err) != fmt.Sprint(werr) || (err == nil && !bytes.Equal(out.Bytes(), b)) {
			t.Fatalf("reader gives %q, %v; one-byte writes give %q, %v", b, err, out.Bytes(), werr)
		}
		if err != nil {
			return
		}
		var raw RawMessage
		if err := Unmarshal(b, &raw); err != nil {
			t.Fatalf("%q encodes to %q, not strict bencode: %v", data, b, err)
		}
		js, err := io.ReadAll(c.NewDecodeReader(bytes.NewReader(b)))
		if err != nil {
			t.Fatal(err)
		}
		again, err := io.ReadAll(c.NewEncodeReader(bytes.NewReader(js)))
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("%q -> %q -> %q -> %q, %v", data, b, js, again, err)
		}
	})
}
