//go:build !purego && gc

package base16384

import (
	"reflect"
	"testing"

	"github.com/b14fs/b14fs/plugins/base16384/internal/kernel"
	"golang.org/x/sys/cpu"
)

// TestUseVector checks that the assembly of raw_amd64.s takes its AVX-512
// steps, and pdep and pext, only where the block kernels are the AVX-512
// ones (so that GODEBUG=cpu.avx512f=off turns them off too), its AVX2
// steps only where they are the AVX2 or the AVX-512 ones (and always with
// the AVX2 ones, so that the tests under GODEBUG=cpu.avx512f=off run them),
// and BMI2's instructions only where the processor has them (and runs them
// fast).
func TestUseVector(t *testing.T) {
	name := kernel.Name()
	if useAVX512 && name != "avx512vbmi" {
		t.Fatalf("useAVX512 with the %s kernels", name)
	}
	if useAVX2 != (name == "avx2" || name == "avx512vbmi") {
		t.Fatalf("useAVX2 %v with the %s kernels", useAVX2, name)
	}
	if useBMI2 != kernel.BMI2 || useBMI2 && !cpu.X86.HasBMI2 {
		t.Fatalf("useBMI2 %v, kernel.BMI2 %v, BMI2 %v", useBMI2, kernel.BMI2, cpu.X86.HasBMI2)
	}
	t.Logf("kernels %s, AVX-512 steps for small inputs: %v, AVX2 steps: %v, pdep and pext: %v",
		name, useAVX512, useAVX2, useBMI2)
}

// TestConfigOffsets checks the offsets in an Encoding of the options that
// raw_amd64.s reads (the constants cfgUTF8, cfgBOM, cfgStrict and
// cfgChecksum of _asm/raw.go): the bools first in config, config first in
// Encoding.
func TestConfigOffsets(t *testing.T) {
	if f, _ := reflect.TypeFor[Encoding]().FieldByName("cfg"); f.Offset != 0 {
		t.Errorf("Encoding.cfg at offset %d, want 0", f.Offset)
	}
	for name, want := range map[string]uintptr{"utf8": 0, "bom": 1, "strict": 2, "checksum": 3} {
		f, _ := reflect.TypeFor[config]().FieldByName(name)
		if f.Offset != want || f.Type.Kind() != reflect.Bool {
			t.Errorf("config.%s: %s at offset %d, want a bool at %d", name, f.Type, f.Offset, want)
		}
	}
}
