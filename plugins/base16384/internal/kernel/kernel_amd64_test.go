//go:build !purego && gc

package kernel

import (
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// TestSlowPDEP checks which processors BMI2 leaves pdep and pext off for:
// AMD's and Hygon's before Zen 3.
func TestSlowPDEP(t *testing.T) {
	for _, tt := range []struct {
		cpu    string
		vendor cpuid.Vendor
		family int
		slow   bool
	}{
		{"Intel Haswell and later", cpuid.Intel, 6, false},
		{"AMD Excavator", cpuid.AMD, 0x15, true},
		{"AMD Zen 1 and 2", cpuid.AMD, 0x17, true},
		{"Hygon Dhyana", cpuid.Hygon, 0x18, true},
		{"AMD Zen 3 and 4", cpuid.AMD, 0x19, false},
		{"AMD Zen 5", cpuid.AMD, 0x1A, false},
		{"a hypervisor's own vendor", cpuid.KVM, 0x17, false},
	} {
		if got := slowPDEP(tt.vendor, tt.family); got != tt.slow {
			t.Errorf("%s (family %#x): slowPDEP %v, want %v", tt.cpu, tt.family, got, tt.slow)
		}
	}
	t.Logf("this processor: %s, family %#x: BMI2 %v", cpuid.CPU.VendorString, cpuid.CPU.Family, BMI2)
}

// godebugTests returns the GODEBUG settings TestGODEBUG checks on this
// processor: those that turn off AVX2 or AVX-512, when AVX2 runs.
func godebugTests() []godebugTest {
	if !hasAVX2 {
		return nil
	}
	tests := []godebugTest{
		{"cpu.avx2=off", "generic"},
		{"cpu.avx512=off", "avx2"},
		{"cpu.avx512f=off", "avx2"},
		{"cpu.avx512vbmi=off", "avx2"},
		{"cpu.avx512bw=off", "avx2"},
		{"cpu.bmi2=off", "avx2"},
	}
	if hasAVX512 {
		tests = append(tests, godebugTest{"", "avx512vbmi"})
	}
	return tests
}

// BenchmarkShape sets the AVX-512 kernels beside the floor of their loops,
// shapeEncodeAVX512 and shapeDecodeAVX512 (the same loads and stores,
// nothing coded), and copy() of the same plain bytes: what the memory
// traffic of a kernel's shape leaves of copy's speed (docs/benchmarks.md).
// exact-shape is the floor of a decoding loop that stores exactly its
// output, 7 vectors for 8 steps; copy-units is copy() of the units of the
// same plain bytes, 8/7 as many.
func BenchmarkShape(b *testing.B) {
	if !hasAVX512 {
		b.Skip("no AVX-512 VBMI here")
	}
	for _, size := range []int{4 << 10, 32 << 10, 1 << 20} {
		n := size / 7 * 7
		raw := pseudoRandom(n, 6)
		units := make([]byte, 8*(n/7))
		EncodeGeneric(units, raw)
		unitsOut, rawOut := make([]byte, len(units)), make([]byte, n)
		for _, c := range []struct {
			name string
			run  func()
		}{
			{"encode/avx512vbmi", func() { encodeAVX512(unitsOut, raw) }},
			{"encode/shape", func() { shapeEncodeAVX512(unitsOut, raw) }},
			{"decode/avx512vbmi", func() { decodeAVX512(rawOut, units) }},
			{"decode/shape", func() { shapeDecodeAVX512(rawOut, units) }},
			{"decode/exact-shape", func() { shapeDecodeExactAVX512(rawOut, units) }},
			{"copy", func() { copy(rawOut, raw) }},
			{"copy-units", func() { copy(unitsOut, units) }},
		} {
			b.Run(c.name+"/"+sizeName(size), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					c.run()
				}
			})
		}
	}
}
