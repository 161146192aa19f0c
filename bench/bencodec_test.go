package bench

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// bencodeCFiles returns the files BenchmarkBencodeC measures: those listed,
// one path a line, in the file $B14FS_BENCODE_C_FILES (bencode-c.sh writes
// the list of the files bencode-c decodes there), else the valid corpus.
func bencodeCFiles(b *testing.B) [][]byte {
	list := os.Getenv("B14FS_BENCODE_C_FILES")
	if list == "" {
		var files [][]byte
		for _, data := range corpus(b, "valid") {
			files = append(files, data)
		}
		return files
	}
	names, err := os.ReadFile(list)
	if err != nil {
		b.Fatal(err)
	}
	var files [][]byte
	for name := range strings.Lines(string(names)) {
		data, err := os.ReadFile(strings.TrimSuffix(name, "\n"))
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	return files
}

// BenchmarkBencodeC is the Go side of bencode-c.sh, which times bencode-c
// (a C extension for Python) on the same files and prints the ratios:
// decoding the files strictly into an `any` and into a bencode.Value,
// encoding what they decode into, and the floor of decoding into an `any`
// (making its maps, and nothing else; see BenchmarkFloor), and that of
// encoding the `any` form (iterating over its maps and allocating and
// filling the outputs).
func BenchmarkBencodeC(b *testing.B) {
	files := bencodeCFiles(b)
	size := totalSize(files)
	measure(b, "op=decode/form=any", size, func() error {
		for _, f := range files {
			var v any
			if err := bencode.Unmarshal(f, &v); err != nil {
				return err
			}
		}
		return nil
	})
	measure(b, "op=decode/form=Value", size, func() error {
		for _, f := range files {
			var v bencode.Value
			if err := bencode.Unmarshal(f, &v); err != nil {
				return err
			}
		}
		return nil
	})
	anys := make([]any, len(files))
	values := make([]bencode.Value, len(files))
	for i, f := range files {
		if err := bencode.Unmarshal(f, &anys[i]); err != nil {
			b.Fatal(err)
		}
		if err := bencode.Unmarshal(f, &values[i]); err != nil {
			b.Fatal(err)
		}
	}
	measure(b, "op=encode/form=any", size, func() error {
		for _, v := range anys {
			if _, err := bencode.Marshal(v); err != nil {
				return err
			}
		}
		return nil
	})
	measure(b, "op=encode/form=Value", size, func() error {
		for _, v := range values {
			if _, err := bencode.Marshal(v); err != nil {
				return err
			}
		}
		return nil
	})
	b.Run("floor=maps", func(b *testing.B) { mapsFloor(b, files) })
	b.Run("floor=encode", func(b *testing.B) { encodeFloor(b, anys) })
}

// encodeFloor measures the floor of encoding values, what files decode
// into as an `any`: iterating over every map (which encoding a
// map[string]any must do to find its keys), and allocating and filling a
// copy of each output (made beforehand), and nothing else.
func encodeFloor(b *testing.B, values []any) {
	outs, size := marshalAll(b, values)
	var iterate func(v any) int
	iterate = func(v any) int {
		n := 0
		switch x := v.(type) {
		case map[string]any:
			for k, elem := range x {
				n += len(k) + iterate(elem)
			}
		case []any:
			for _, elem := range x {
				n += iterate(elem)
			}
		}
		return n
	}
	b.SetBytes(size)
	b.ReportAllocs()
	defer reportCPU(b, cpuTime())
	for b.Loop() {
		for i, v := range values {
			floorLen += iterate(v)
			floorOut = bytes.Clone(outs[i])
		}
	}
}

// floorLen and floorOut keep the compiler from leaving out the floor's
// work.
var (
	floorLen int
	floorOut []byte
)

// TestBencodeCForms checks that the valid corpus, which BenchmarkBencodeC
// measures by default, decodes into an any and into a Value that both
// encode back into the same bytes.
func TestBencodeCForms(t *testing.T) {
	for name, data := range corpus(t, "valid") {
		var a any
		var v bencode.Value
		if err := bencode.Unmarshal(data, &a); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := bencode.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fromAny, err := bencode.Marshal(a)
		if err != nil || !bytes.Equal(fromAny, data) {
			t.Errorf("%s: any does not encode back: %v", name, err)
		}
		fromValue, err := bencode.Marshal(v)
		if err != nil || !bytes.Equal(fromValue, data) {
			t.Errorf("%s: Value does not encode back: %v", name, err)
		}
	}
}
