//go:build !purego

package kernel

import "golang.org/x/sys/cpu"

// Impl is one implementation of the kernels: Encode and Decode have the
// contracts of the package functions of the same names.
type Impl struct {
	Name           string
	Encode, Decode func(dst, src []byte) int
}

var (
	encode = EncodeGeneric
	decode = DecodeGeneric
)

func init() {
	impl := Impls()[0]
	encode, decode = impl.Encode, impl.Decode
	switch {
	case hasAVX512:
		genericBelow = avx512Groups
	case hasAVX2:
		genericBelow = avx2Groups + 1
	}
}

// hasAVX2 and hasAVX512 report whether the AVX2 and the AVX-512 VBMI
// kernels can run (the latter also uses BMI2's bzhi). They follow
// golang.org/x/sys/cpu, so GODEBUG=cpu.avx2=off turns off both, and
// cpu.avx512f=off (or avx512, avx512bw, avx512vbmi, bmi2) the AVX-512 one.
var (
	hasAVX2   = cpu.X86.HasAVX2
	hasAVX512 = hasAVX2 && cpu.X86.HasBMI2 && cpu.X86.HasAVX512 && cpu.X86.HasAVX512F &&
		cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI
)

// Impls returns the implementations this processor runs, fastest first;
// the last one is the generic code. Encode and Decode use the first.
func Impls() []Impl {
	var impls []Impl
	if hasAVX512 {
		impls = append(impls, Impl{"avx512vbmi", encodeWithAVX512, decodeWithAVX512})
	}
	if hasAVX2 {
		impls = append(impls, Impl{"avx2", encodeWithAVX2, decodeWithAVX2})
	}
	return append(impls, Impl{"generic", EncodeGeneric, DecodeGeneric})
}

// avx2Groups is the number of groups an AVX2 step handles. The AVX2
// kernels run only when src holds a step (and, for decode, the group the
// last step's stores reach into); the generic code handles smaller inputs
// and the groups after the last step. The AVX-512 kernels handle every
// group, the last ones with masked loads and stores.
const avx2Groups = 4

// avx512Groups is the number of groups an AVX-512 step handles. Below it,
// the kernel and the generic code take the same time, and Encode and Decode
// save a call by going to the generic code directly.
const avx512Groups = 8

// encodeWithAVX2 is Encode with the AVX2 kernel.
func encodeWithAVX2(dst, src []byte) int {
	n := len(src) / 7
	if n < avx2Groups {
		return EncodeGeneric(dst, src)
	}
	done := encodeAVX2(dst[:8*n], src[:7*n])
	return done + EncodeGeneric(dst[8*done:], src[7*done:])
}

// decodeWithAVX2 is Decode with the AVX2 kernel.
func decodeWithAVX2(dst, src []byte) int {
	n := len(src) / 8
	if n <= avx2Groups {
		return DecodeGeneric(dst, src)
	}
	done := decodeAVX2(dst[:7*n], src[:8*n])
	return done + DecodeGeneric(dst[7*done:], src[8*done:])
}

// encodeWithAVX512 is Encode with the AVX-512 VBMI kernel.
func encodeWithAVX512(dst, src []byte) int {
	n := len(src) / 7
	return encodeAVX512(dst[:8*n], src[:7*n])
}

// decodeWithAVX512 is Decode with the AVX-512 VBMI kernel, and the generic
// code from the pass holding the first bad unit.
func decodeWithAVX512(dst, src []byte) int {
	n := len(src) / 8
	done := decodeAVX512(dst[:7*n], src[:8*n])
	if done == n {
		return n
	}
	return done + DecodeGeneric(dst[7*done:], src[8*done:])
}
