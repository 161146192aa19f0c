//go:build !purego && gc

package kernel

// godebugTests returns the GODEBUG settings TestGODEBUG checks: every
// arm64 processor has Advanced SIMD, so NEON runs unless turned off.
// (.ci/arm64-test runs the tests under qemu-user both ways, where the
// test binary cannot run itself again.)
func godebugTests() []godebugTest {
	return []godebugTest{{"", "neon"}, {"cpu.asimd=off", "generic"}}
}
