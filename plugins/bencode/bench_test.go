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

// BenchmarkUnmarshalAny decodes the corpus into any, and measures its
// stages apart: stage=scan runs the Scanner over it (checking everything,
// as the first pass does, but token by token), stage=tape runs the first
// pass of decoding into any (scanFast, which checks everything and records
// the values as nodes; a Value is those nodes), stage=all is Unmarshal,
// which then builds the values. all less tape is the time building takes:
// making the maps (BenchmarkFloor in bench/ measures that alone), the lists
// and the boxed values.
func BenchmarkUnmarshalAny(b *testing.B) {
	files := corpus(b, "valid")
	for _, stage := range []string{"scan", "tape", "all"} {
		b.Run("stage="+stage, func(b *testing.B) {
			b.SetBytes(corpusSize(files))
			b.ReportAllocs()
			for b.Loop() {
				for _, f := range files {
					if err := unmarshalStage(stage, f.data); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// unmarshalStage runs Unmarshal of data into any up to stage (see
// BenchmarkUnmarshalAny).
func unmarshalStage(stage string, data []byte) error {
	if stage == "all" {
		var v any
		return Unmarshal(data, &v)
	}
	d := decodeStatePool.Get().(*decodeState)
	defer d.release()
	d.data = data
	d.scan.init(DecodeOptions{}, false)
	d.scan.setData(data, 0, true)
	d.scan.fixed = true
	tok, err := d.scan.Next()
	if err != nil {
		return err
	}
	if stage == "tape" {
		return d.nodes(tok, true, nil)
	}
	_, err = d.scan.Skip(tok)
	return err
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

// BenchmarkUnmarshalValue decodes the corpus into Values: the first pass
// of decoding into any (stage=tape above) and a copy of its nodes.
func BenchmarkUnmarshalValue(b *testing.B) {
	files := corpus(b, "valid")
	b.SetBytes(corpusSize(files))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			var v Value
			if err := Unmarshal(f.data, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
