//go:build !purego && gc

package kernel

import (
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// hasAVX2 and hasAVX512 report whether the AVX2 and the AVX-512 VBMI
// kernels can run (the latter also uses BMI2's bzhi). They follow
// golang.org/x/sys/cpu, so GODEBUG=cpu.avx2=off turns off both, and
// cpu.avx512f=off (or avx512, avx512bw, avx512vbmi, bmi2) the AVX-512 one.
var (
	hasAVX2   = cpu.X86.HasAVX2
	hasAVX512 = hasAVX2 && cpu.X86.HasBMI2 && cpu.X86.HasAVX512 && cpu.X86.HasAVX512F &&
		cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI
)

// AVX2 reports whether the selected implementation is the AVX2 or the
// AVX-512 VBMI one, so that the processor runs AVX2 and the assembly of
// package base16384 may use it for small inputs.
var AVX2 = selected.id == idAVX2 || selected.id == idAVX512

// AVX512VL reports whether the selected implementation is the AVX-512 VBMI
// one and the processor has AVX-512 VL too: the 256- and 128-bit forms of
// its instructions, which the assembly of package base16384 uses for small
// inputs.
var AVX512VL = selected.id == idAVX512 && cpu.X86.HasAVX512VL

// BMI2 reports whether the processor has BMI2 and runs its pdep and pext
// in a cycle or so, as Intel's do and AMD's from Zen 3 (family 19h) on, so
// that the assembly of package base16384 may use them for small inputs. It
// follows golang.org/x/sys/cpu, so GODEBUG=cpu.bmi2=off turns it off.
var BMI2 = cpu.X86.HasBMI2 && !slowPDEP(cpuid.CPU.VendorID, cpuid.CPU.Family)

// slowPDEP reports whether the processors of vendor v and family run pdep
// and pext in microcode, taking dozens of cycles: AMD's (and Hygon's, built
// on Zen 1) before Zen 3.
func slowPDEP(v cpuid.Vendor, family int) bool {
	return (v == cpuid.AMD || v == cpuid.Hygon) && family < 0x19
}

// vectorImpls returns the vector implementations this processor runs,
// fastest first.
func vectorImpls() []Impl {
	var impls []Impl
	if hasAVX512 {
		impls = append(impls, Impl{Name: "avx512vbmi", Encode: encodeWithAVX512, Decode: decodeWithAVX512,
			StepGroups: avx512Groups, genericBelow: avx512Groups, id: idAVX512})
	}
	if hasAVX2 {
		impls = append(impls, Impl{Name: "avx2", Encode: encodeWithAVX2, Decode: decodeWithAVX2,
			StepGroups: avx2Groups, genericBelow: avx2Groups, id: idAVX2})
	}
	return impls
}

// encodeSelected is Encode with the selected implementation.
func encodeSelected(dst, src []byte) int {
	switch selected.id {
	case idAVX512:
		return encodeWithAVX512(dst, src)
	case idAVX2:
		return encodeWithAVX2(dst, src)
	}
	return EncodeGeneric(dst, src)
}

// decodeSelected is Decode with the selected implementation.
func decodeSelected(dst, src []byte) int {
	switch selected.id {
	case idAVX512:
		return decodeWithAVX512(dst, src)
	case idAVX2:
		return decodeWithAVX2(dst, src)
	}
	return DecodeGeneric(dst, src)
}

// avx2Groups is the number of groups an AVX2 step handles. The AVX2
// kernels run only when src holds a step; the generic code handles smaller
// inputs. Their last step moves back over groups already done, so that it
// reads and writes exactly the bytes of the last groups. The AVX-512
// kernels handle every group, the last ones with masked loads and stores.
const avx2Groups = 4

// avx512Groups is the number of groups an AVX-512 step handles. Below it,
// the kernel and the generic code take the same time.
const avx512Groups = 8

// encodeWithAVX2 is Encode with the AVX2 kernel.
func encodeWithAVX2(dst, src []byte) int {
	n := len(src) / 7
	if n < avx2Groups {
		return EncodeGeneric(dst, src)
	}
	return encodeAVX2(dst[:8*n], src[:7*n])
}

// decodeWithAVX2 is Decode with the AVX2 kernel, and the generic code from
// the pass holding the first bad unit.
func decodeWithAVX2(dst, src []byte) int {
	n := len(src) / 8
	if n < avx2Groups {
		return DecodeGeneric(dst, src)
	}
	return decodeRest(dst, src, decodeAVX2(dst[:7*n], src[:8*n]))
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
	return decodeRest(dst, src, decodeAVX512(dst[:7*n], src[:8*n]))
}
