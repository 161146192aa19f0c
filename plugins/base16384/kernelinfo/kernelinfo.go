// Package kernelinfo reports which block kernel package base16384 runs on
// this machine, for version strings and bug reports. The kernels
// themselves are internal to base16384.
package kernelinfo

import "github.com/b14fs/b14fs/plugins/base16384/internal/kernel"

// Name returns the name of the block kernel that base16384's encoding and
// decoding run on this machine: "avx512vbmi", "avx2" or "neon" where the
// processor has those instructions (and the purego build tag is not set),
// else "generic".
func Name() string { return kernel.Name() }
