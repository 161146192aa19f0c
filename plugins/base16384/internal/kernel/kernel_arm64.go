//go:build !purego && gc

package kernel

import "golang.org/x/sys/cpu"

// neonGroups is the number of groups the NEON kernels handle a step:
// 56 raw bytes, 64 encoded bytes.
const neonGroups = 8

// hasNEON reports whether the NEON kernels can run. Every arm64 processor
// has Advanced SIMD; following golang.org/x/sys/cpu lets
// GODEBUG=cpu.asimd=off select the generic code.
var hasNEON = cpu.ARM64.HasASIMD

// vectorImpls returns the vector implementations this processor runs,
// fastest first.
func vectorImpls() []Impl {
	if !hasNEON {
		return nil
	}
	return []Impl{{Name: "neon", Encode: encodeNEON, Decode: decodeNEON,
		StepGroups: neonGroups, genericBelow: neonGroups, id: idNEON}}
}

// encodeSelected is Encode with the selected implementation.
func encodeSelected(dst, src []byte) int {
	if selected.id == idNEON {
		return encodeNEON(dst, src)
	}
	return EncodeGeneric(dst, src)
}

// decodeSelected is Decode with the selected implementation.
func decodeSelected(dst, src []byte) int {
	if selected.id == idNEON {
		return decodeNEON(dst, src)
	}
	return DecodeGeneric(dst, src)
}

// encodeSteps encodes n steps of 8 groups, reading 56*n+2 bytes of src
// (the last step loads 2 bytes past its groups) and writing 64*n bytes of
// dst.
//
//go:noescape
func encodeSteps(dst, src *byte, n int)

// decodeSteps decodes up to n steps of 8 groups, reading 64 bytes of
// src and writing 56 bytes of dst a step. It stops before the first step
// that holds a unit outside U+4E00..U+8DFF, writing nothing for it, and
// returns the number of steps decoded.
//
//go:noescape
func decodeSteps(dst, src *byte, n int) int

// encodeNEON is Encode with NEON for whole steps and the generic code for
// the groups after them.
func encodeNEON(dst, src []byte) int {
	if len(src) < 7*neonGroups+2 {
		return EncodeGeneric(dst, src)
	}
	dst = dst[:8*(len(src)/7)]
	n := (len(src) - 2) / (7 * neonGroups)
	encodeSteps(&dst[0], &src[0], n)
	done := neonGroups * n
	return done + EncodeGeneric(dst[8*done:], src[7*done:])
}

// decodeNEON is Decode with NEON for whole steps and the generic code for
// the groups after them, or for the step holding the first bad unit.
func decodeNEON(dst, src []byte) int {
	if len(src) < 8*neonGroups {
		return DecodeGeneric(dst, src)
	}
	dst = dst[:7*(len(src)/8)]
	return decodeRest(dst, src, neonGroups*decodeSteps(&dst[0], &src[0], len(src)/(8*neonGroups)))
}
