package bencode

import (
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
