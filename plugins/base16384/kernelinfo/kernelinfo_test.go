package kernelinfo_test

import (
	"runtime"
	"slices"
	"testing"

	"github.com/b14fs/b14fs/plugins/base16384/kernelinfo"
)

// TestName checks that Name is one of the kernels of this architecture.
func TestName(t *testing.T) {
	kernels := map[string][]string{
		"amd64": {"avx512vbmi", "avx2", "generic"},
		"arm64": {"neon", "generic"},
	}[runtime.GOARCH]
	if kernels == nil {
		kernels = []string{"generic"}
	}
	if name := kernelinfo.Name(); !slices.Contains(kernels, name) {
		t.Errorf("Name() = %q, want one of %q", name, kernels)
	}
}
