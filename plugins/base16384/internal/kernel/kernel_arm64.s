//go:build !purego && gc

#include "textflag.h"

// Each 64-bit lane holds one group: its 56-bit big-endian value V, read as a
// little-endian number. Two shift-and-insert steps move between V and the
// four 14-bit fields v0..v3 (v0 most significant) in 16-bit lanes:
//
//	64-bit lanes: V = A<<28 | B       <->  A<<32 | B      (A = v0<<14 | v1)
//	32-bit lanes: A = v0<<14 | v1     <->  v0<<16 | v1    (B likewise)
//
// A byte reversal of each lane then gives the units in big-endian order.

// func encodeSteps(dst, src *byte, n int)
TEXT ·encodeSteps(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2

	// Group g of a 16-byte load: its 7 bytes reversed into lane g, top byte 0.
	VMOVQ $0xff00010203040506, $0xff0708090a0b0c0d, V16
	VMOVQ $0x3fff3fff3fff3fff, $0x3fff3fff3fff3fff, V17
	VMOVQ $0x4e004e004e004e00, $0x4e004e004e004e00, V18

encodeLoop:
	// Four loads 14 bytes apart: two groups each.
	ADD  $14, R1, R3
	ADD  $28, R1, R4
	ADD  $42, R1, R5
	VLD1 (R1), [V0.B16]
	VLD1 (R3), [V1.B16]
	VLD1 (R4), [V2.B16]
	VLD1 (R5), [V3.B16]
	ADD  $56, R1

	VTBL   V16.B16, [V0.B16], V0.B16
	VTBL   V16.B16, [V1.B16], V1.B16
	VTBL   V16.B16, [V2.B16], V2.B16
	VTBL   V16.B16, [V3.B16], V3.B16

	// V -> A<<32 | B. Bits 28-31 of the low half keep 4 stray bits of A.
	VUSHR $28, V0.D2, V4.D2
	VUSHR $28, V1.D2, V5.D2
	VUSHR $28, V2.D2, V6.D2
	VUSHR $28, V3.D2, V7.D2
	VSLI  $32, V4.D2, V0.D2
	VSLI  $32, V5.D2, V1.D2
	VSLI  $32, V6.D2, V2.D2
	VSLI  $32, V7.D2, V3.D2

	// A -> v0<<16 | v1 (B likewise); bits 14-15 of each 16-bit lane are stray.
	VUSHR $14, V0.S4, V4.S4
	VUSHR $14, V1.S4, V5.S4
	VUSHR $14, V2.S4, V6.S4
	VUSHR $14, V3.S4, V7.S4
	VSLI  $16, V4.S4, V0.S4
	VSLI  $16, V5.S4, V1.S4
	VSLI  $16, V6.S4, V2.S4
	VSLI  $16, V7.S4, V3.S4

	// Clear the stray bits, add 0x4E00, store the units big-endian.
	VAND   V17.B16, V0.B16, V0.B16
	VAND   V17.B16, V1.B16, V1.B16
	VAND   V17.B16, V2.B16, V2.B16
	VAND   V17.B16, V3.B16, V3.B16
	VADD   V18.H8, V0.H8, V0.H8
	VADD   V18.H8, V1.H8, V1.H8
	VADD   V18.H8, V2.H8, V2.H8
	VADD   V18.H8, V3.H8, V3.H8
	VREV64 V0.B16, V0.B16
	VREV64 V1.B16, V1.B16
	VREV64 V2.B16, V2.B16
	VREV64 V3.B16, V3.B16
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(R0)

	SUBS $1, R2, R2
	BNE  encodeLoop
	RET

// func decodeSteps(dst, src *byte, n int) int
TEXT ·decodeSteps(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	MOVD $0, R3

	VMOVQ $0x4e004e004e004e00, $0x4e004e004e004e00, V18
	VMOVQ $0xc000c000c000c000, $0xc000c000c000c000, V19

	// The 14 bytes of a vector's two groups: byte i of a group is byte 6-i of
	// its lane. The last vector's also get the 2 bytes before them from the
	// vector before, so that four stores write exactly 56 bytes.
	VMOVQ $0x0e00010203040506, $0xffff08090a0b0c0d, V20
	VMOVQ $0x1112131415160809, $0x18191a1b1c1d1e10, V21

decodeLoop:
	// Units as little-endian 16-bit lanes, v0 in the top lane of each group.
	VLD1.P 64(R1), [V0.B16, V1.B16, V2.B16, V3.B16]
	VREV64 V0.B16, V0.B16
	VREV64 V1.B16, V1.B16
	VREV64 V2.B16, V2.B16
	VREV64 V3.B16, V3.B16

	// A unit is valid exactly when unit-0x4E00 (mod 2^16) is below 0x4000.
	VSUB V18.H8, V0.H8, V0.H8
	VSUB V18.H8, V1.H8, V1.H8
	VSUB V18.H8, V2.H8, V2.H8
	VSUB V18.H8, V3.H8, V3.H8
	VORR V0.B16, V1.B16, V4.B16
	VORR V2.B16, V3.B16, V5.B16
	VORR V4.B16, V5.B16, V4.B16
	VAND V19.B16, V4.B16, V4.B16
	VMOV V4.D[0], R4
	VMOV V4.D[1], R5
	ORR  R4, R5, R5
	CBNZ R5, decodeDone

	// v0<<16 | v1 -> A = v0<<14 | v1 (B likewise).
	VUSHR $16, V0.S4, V4.S4
	VUSHR $16, V1.S4, V5.S4
	VUSHR $16, V2.S4, V6.S4
	VUSHR $16, V3.S4, V7.S4
	VSLI  $14, V4.S4, V0.S4
	VSLI  $14, V5.S4, V1.S4
	VSLI  $14, V6.S4, V2.S4
	VSLI  $14, V7.S4, V3.S4

	// A<<32 | B -> V = A<<28 | B.
	VUSHR $32, V0.D2, V4.D2
	VUSHR $32, V1.D2, V5.D2
	VUSHR $32, V2.D2, V6.D2
	VUSHR $32, V3.D2, V7.D2
	VSLI  $28, V4.D2, V0.D2
	VSLI  $28, V5.D2, V1.D2
	VSLI  $28, V6.D2, V2.D2
	VSLI  $28, V7.D2, V3.D2

	// Seven big-endian bytes of each lane, packed; stores 14 bytes apart,
	// each overwriting the 2 stray bytes of the one before.
	VTBL V20.B16, [V0.B16], V0.B16
	VTBL V20.B16, [V1.B16], V1.B16
	VTBL V20.B16, [V2.B16], V4.B16
	VTBL V21.B16, [V2.B16, V3.B16], V3.B16
	ADD  $14, R0, R4
	ADD  $28, R0, R5
	ADD  $40, R0, R6
	VST1 [V0.B16], (R0)
	VST1 [V1.B16], (R4)
	VST1 [V4.B16], (R5)
	VST1 [V3.B16], (R6)
	ADD  $56, R0

	ADD $1, R3, R3
	CMP R3, R2
	BNE decodeLoop

decodeDone:
	MOVD R3, ret+24(FP)
	RET
