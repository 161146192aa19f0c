package bencode

import (
	"bytes"
	"io"
	"testing"
)

func BenchmarkScan(b *testing.B) {
	files := corpus(b, "valid")
	b.SetBytes(corpusSize(files))
	b.ReportAllocs()
	var s Scanner
	for b.Loop() {
		for _, f := range files {
			s.init(DecodeOptions{}, false)
			s.stack, s.keys, s.done, s.err = s.stack[:0], s.keys[:0], false, nil
			s.setData(f.data, 0, true)
			for {
				if _, err := s.Next(); err != nil {
					if err != io.EOF {
						b.Fatal(err)
					}
					break
				}
			}
		}
	}
}

func BenchmarkUnmarshalAny(b *testing.B) {
	files := corpus(b, "valid")
	b.SetBytes(corpusSize(files))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			var v any
			if err := Unmarshal(f.data, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkMarshalAny(b *testing.B) {
	files := corpus(b, "valid")
	values := make([]any, len(files))
	for i, f := range files {
		if err := Unmarshal(f.data, &values[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(corpusSize(files))
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range values {
			if _, err := Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCodec measures the codec's reader forms: bencode to JSON
// (decode) and JSON to bencode (encode), in bencode bytes per second.
func BenchmarkCodec(b *testing.B) {
	files := corpus(b, "valid")
	c := NewCodec()
	jsons := make([][]byte, len(files))
	for i, f := range files {
		var err error
		if jsons[i], err = io.ReadAll(c.NewDecodeReader(bytes.NewReader(f.data))); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(corpusSize(files))
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range files {
				if _, err := io.Copy(io.Discard, c.NewDecodeReader(bytes.NewReader(f.data))); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(corpusSize(files))
		b.ReportAllocs()
		for b.Loop() {
			for _, js := range jsons {
				if _, err := io.Copy(io.Discard, c.NewEncodeReader(bytes.NewReader(js))); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
