//go:build !purego && gc

package base16384

import "github.com/b14fs/b14fs/plugins/base16384/internal/kernel"

// useAVX512 turns on the AVX-512 steps of encodeRaw and decodeRaw: where
// the block kernels are the AVX-512 VBMI ones, and the processor has the
// 256- and 128-bit forms of their instructions (AVX-512 VL).
var useAVX512 = kernel.AVX512VL

// useAVX2 turns on the AVX2 steps of encodeRaw and decodeRaw where
// useAVX512 is not set: where the block kernels are the AVX2 ones (or the
// AVX-512 ones without AVX-512 VL).
var useAVX2 = kernel.AVX2

// useBMI2 turns on pdep and pext in encodeRaw and decodeRaw, in place of
// the shifts and masks of a word: where the processor runs them fast.
var useBMI2 = kernel.BMI2

// encodeStd is encodeStdGo, in raw_amd64.s: the raw form of small inputs
// in one call without a frame, the rest by a jump to encodeStdGo.
func encodeStd(dst, src []byte) (n int, err error)

// decodeStd is decodeStdGo, in raw_amd64.s: small valid inputs in the raw
// form in one call without a frame, the rest by a jump to decodeStdGo.
func decodeStd(dst, src []byte) (n int, err error)

// encodeRaw is encodeRawGo, in raw_amd64.s: the raw form of small inputs
// in one call without a frame, the rest by a jump to encodeRawGo.
func encodeRaw(e *Encoding, dst, src []byte) (n int, err error)

// decodeRaw is decodeRawGo, in raw_amd64.s: small valid inputs in the raw
// form in one call without a frame, the rest by a jump to decodeRawGo.
func decodeRaw(e *Encoding, dst, src []byte) (n int, err error)

// appendEncode is appendEncodeGo, in raw_amd64.s: the raw form of small
// inputs into the room past len(dst) in one call without a frame, the rest
// by a jump to appendEncodeGo.
func appendEncode(e *Encoding, dst, src []byte) (out []byte)

// appendDecode is appendDecodeGo, in raw_amd64.s: small valid inputs in
// the raw form into the room past len(dst) in one call without a frame,
// the rest by a jump to appendDecodeGo.
func appendDecode(e *Encoding, dst, src []byte) (out []byte, err error)
