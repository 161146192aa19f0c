package base16384

import (
	"bytes"
	"encoding/base64"
	"io"
	"math/rand/v2"
	"testing"
)

// benchSizes are the plain sizes benchmarks run at.
var benchSizes = []struct {
	name string
	n    int
}{
	{"16", 16}, {"256", 256}, {"4K", 4 << 10}, {"32K", 32 << 10}, {"1M", 1 << 20},
}

// benchData returns n random bytes.
func benchData(n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{}).Read(b)
	return b
}

// runSizes runs bench at every benchmark size, counting plain bytes.
func runSizes(b *testing.B, name string, bench func(b *testing.B, plain []byte)) {
	for _, s := range benchSizes {
		plain := benchData(s.n)
		b.Run("impl="+name+"/size="+s.name, func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			bench(b, plain)
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	runSizes(b, "base64", func(b *testing.B, plain []byte) {
		dst := make([]byte, base64.StdEncoding.EncodedLen(len(plain)))
		for b.Loop() {
			base64.StdEncoding.Encode(dst, plain)
		}
	})
	runSizes(b, "EncodeTo", func(b *testing.B, plain []byte) {
		dst := make([]byte, EncodeLen(len(plain)))
		for b.Loop() {
			if err := EncodeTo(plain, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
	runSizes(b, "Encoder", func(b *testing.B, plain []byte) {
		src := bytes.NewReader(plain)
		e := NewEncoder(src)
		for b.Loop() {
			src.Reset(plain)
			e.Reset(src)
			if _, err := io.Copy(io.Discard, e); err != nil {
				b.Fatal(err)
			}
		}
	})
	runSizes(b, "EncodeWriter", func(b *testing.B, plain []byte) {
		w := NewEncodeWriter(io.Discard)
		for b.Loop() {
			w.Reset(io.Discard)
			if _, err := w.Write(plain); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	runSizes(b, "base64", func(b *testing.B, plain []byte) {
		enc := []byte(base64.StdEncoding.EncodeToString(plain))
		dst := make([]byte, len(plain))
		for b.Loop() {
			if _, err := base64.StdEncoding.Decode(dst, enc); err != nil {
				b.Fatal(err)
			}
		}
	})
	runSizes(b, "DecodeTo", func(b *testing.B, plain []byte) {
		enc := Encode(plain)
		dst := make([]byte, len(plain))
		for b.Loop() {
			if err := DecodeTo(enc, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
	runSizes(b, "Decoder", func(b *testing.B, plain []byte) {
		enc := Encode(plain)
		src := bytes.NewReader(enc)
		d := NewDecoder(src)
		for b.Loop() {
			src.Reset(enc)
			d.Reset(src)
			if _, err := io.Copy(io.Discard, d); err != nil {
				b.Fatal(err)
			}
		}
	})
	runSizes(b, "DecodeWriter", func(b *testing.B, plain []byte) {
		enc := Encode(plain)
		w := NewDecodeWriter(io.Discard)
		for b.Loop() {
			w.Reset(io.Discard)
			if _, err := w.Write(enc); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
