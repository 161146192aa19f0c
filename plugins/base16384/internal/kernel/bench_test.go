package kernel

import (
	"encoding/base64"
	"fmt"
	"testing"
)

// benchSizes are the raw sizes benchmarked, each cut down to whole groups.
var benchSizes = []int{16, 256, 4 << 10, 32 << 10, 1 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// benchmarkKernels runs run for Encode and Decode ("selected"), every
// implementation and every size, beside encoding/base64 and copy on the same
// number of raw bytes.
func benchmarkKernels(b *testing.B, run func(impl Impl, raw, units []byte) func(), base64Run func(raw, text []byte) func()) {
	for _, size := range benchSizes {
		n := size / 7 * 7
		raw := pseudoRandom(n, 6)
		units := make([]byte, 8*(n/7))
		EncodeGeneric(units, raw)
		text := []byte(base64.StdEncoding.EncodeToString(raw))
		bench := func(name string, f func()) {
			b.Run(name+"/"+sizeName(size), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					f()
				}
			})
		}
		for _, impl := range append([]Impl{{Name: "selected", Encode: Encode, Decode: Decode}}, Impls()...) {
			bench(impl.Name, run(impl, raw, units))
		}
		bench("base64", base64Run(raw, text))
		dst := make([]byte, n)
		bench("copy", func() { copy(dst, raw) })
	}
}

func BenchmarkEncode(b *testing.B) {
	benchmarkKernels(b, func(impl Impl, raw, units []byte) func() {
		dst := make([]byte, len(units))
		return func() { impl.Encode(dst, raw) }
	}, func(raw, text []byte) func() {
		dst := make([]byte, len(text))
		return func() { base64.StdEncoding.Encode(dst, raw) }
	})
}

func BenchmarkDecode(b *testing.B) {
	benchmarkKernels(b, func(impl Impl, raw, units []byte) func() {
		dst := make([]byte, len(raw))
		return func() { impl.Decode(dst, units) }
	}, func(raw, text []byte) func() {
		dst := make([]byte, len(raw))
		return func() { base64.StdEncoding.Decode(dst, text) }
	})
}
