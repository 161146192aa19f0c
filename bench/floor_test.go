package bench

import (
	"bytes"
	"testing"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// BenchmarkFloor measures, on the same corpus, the part of a benchmark's
// work that no library can skip, to show how far the libraries are from it:
//
//   - DecodeAny: making the maps that decoding the corpus into any makes
//     (one per dictionary, with its keys), and nothing else;
//   - EncodeAny and EncodeTorrent: allocating and filling the slices that
//     Marshal returns, copies of outputs made beforehand.
func BenchmarkFloor(b *testing.B) {
	b.Run("of=DecodeAny", func(b *testing.B) {
		mapsFloor(b, anyCorpus(b))
	})
	copyFloor := func(b *testing.B, values []any) {
		outs, size := marshalAll(b, values)
		b.SetBytes(size)
		b.ReportAllocs()
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			for _, out := range outs {
				_ = bytes.Clone(out)
			}
		}
	}
	b.Run("of=EncodeAny", func(b *testing.B) {
		files := anyCorpus(b)
		values := make([]any, len(files))
		for i, f := range files {
			if err := bencode.Unmarshal(f, &values[i]); err != nil {
				b.Fatal(err)
			}
		}
		copyFloor(b, values)
	})
	b.Run("of=EncodeTorrent", func(b *testing.B) {
		_, torrents := structCorpus(b)
		values := make([]any, len(torrents))
		for i := range torrents {
			values[i] = &torrents[i]
		}
		copyFloor(b, values)
	})
}

// marshalAll returns the encodings of values and their total size.
func marshalAll(b *testing.B, values []any) (outs [][]byte, size int64) {
	outs = make([][]byte, len(values))
	for i, v := range values {
		var err error
		if outs[i], err = bencode.Marshal(v); err != nil {
			b.Fatal(err)
		}
		size += int64(len(outs[i]))
	}
	return outs, size
}

// mapsFloor measures the floor of decoding files into any: making the maps
// that decoding them makes (one per dictionary, with its keys, each holding
// one placeholder value), and nothing else.
func mapsFloor(b *testing.B, files [][]byte) {
	dicts := make([][][]string, len(files)) // each file's dictionaries' keys
	for i, f := range files {
		var v any
		if err := bencode.Unmarshal(f, &v); err != nil {
			b.Fatal(err)
		}
		dicts[i] = dictKeys(v, nil)
	}
	b.SetBytes(totalSize(files))
	b.ReportAllocs()
	defer reportCPU(b, cpuTime())
	placeholder := any(0)
	for b.Loop() {
		for _, file := range dicts {
			for _, keys := range file {
				m := make(map[string]any, len(keys))
				for _, k := range keys {
					m[k] = placeholder
				}
				floorSink = m
			}
		}
	}
}

// floorSink keeps the compiler from making the floor's maps on the stack.
var floorSink map[string]any

// dictKeys appends the keys of every dictionary in v to keys.
func dictKeys(v any, keys [][]string) [][]string {
	switch x := v.(type) {
	case map[string]any:
		ks := make([]string, 0, len(x))
		for k, elem := range x {
			ks = append(ks, k)
			keys = dictKeys(elem, keys)
		}
		keys = append(keys, ks)
	case []any:
		for _, elem := range x {
			keys = dictKeys(elem, keys)
		}
	}
	return keys
}
