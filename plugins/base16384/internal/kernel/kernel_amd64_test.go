//go:build !purego && gc

package kernel

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
