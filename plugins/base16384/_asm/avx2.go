package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// An AVX2 step handles 4 groups, 2 in each 128-bit lane: 28 bytes and 32
// bytes of units. The AVX2 kernels name their vector registers: avo's
// allocator may hand out Y16-Y31, which VEX-encoded instructions cannot use.

// encodeAVX2 emits encodeAVX2. Each 16-bit lane k of a group gets unit k
// as (A_k*mulA_k mod 2^16) & 0x3FFF | (B_k*mulB_k >> 16), where the shuffles
// A and B gather the two bytes holding the bits of the field:
//
//	k  A      mulA  B      mulB
//	0  0      1     b0 b1  1<<14 (b0b1 >> 2)
//	1  b1 b2  16    b3 0   16    (b3 >> 4)
//	2  b3 b4  4     b5 0   4     (b5 >> 6)
//	3  b5 b6  1     0      0
//
// then adds 0x4E00 and swaps the bytes of every unit to big-endian.
func encodeAVX2() {
	TEXT("encodeAVX2", NOSPLIT, "func(dst, src []byte) int")
	Pragma("noescape")
	Doc("encodeAVX2 encodes len(dst)/8 groups from src into dst, 4 a step",
		"(none if there are fewer than 4), and returns the number of groups",
		"encoded.")
	k, n := newKernel("encodeAVX2", "dst", 4, 28, 32)

	// Lane 0 holds src bytes 0..15, lane 1 bytes 12..27: the groups sit at
	// lane offsets 0, 7 and 2, 9.
	var shufA, shufB []byte
	for _, o := range []byte{0, 7, 2, 9} {
		const z = 0x80 // pshufb index giving a zero byte
		shufA = append(shufA, z, z, o+2, o+1, o+4, o+3, o+6, o+5)
		shufB = append(shufB, o+1, o, z, o+3, z, o+5, z, z)
	}
	sa, sb := Y0, Y1
	VMOVDQU(table("encAVX2ShufA", shufA), sa)
	VMOVDQU(table("encAVX2ShufB", shufB), sb)
	mulA, mulB := Y2, Y3
	VMOVDQU(table("encAVX2MulA", repeat(words(1, 16, 4, 1), 32)), mulA)
	VMOVDQU(table("encAVX2MulB", repeat(words(1<<14, 16, 4, 0), 32)), mulB)
	mask, base, swap := Y4, Y5, Y6
	VMOVDQU(table("encAVX2Mask", repeat(words(0x3FFF), 32)), mask)
	VMOVDQU(table("encAVX2Base", repeat(words(0x4E00), 32)), base)
	VMOVDQU(swapTable(), swap)

	step := func(in, out Mem) {
		x, a := Y7, Y8
		VMOVDQU(in, x.AsX())
		VINSERTI128(U8(1), in.Offset(12), x, x)
		VPSHUFB(sa, x, a)
		VPSHUFB(sb, x, x)
		VPMULLW(mulA, a, a)
		VPMULHUW(mulB, x, x)
		VPAND(mask, a, a)
		VPOR(a, x, x)
		VPADDW(base, x, x)
		VPSHUFB(swap, x, x)
		VMOVDQU(x, out)
	}
	k.loops(0, step, nil)
	// A step reads and writes exactly its groups' bytes: the last one
	// moves back over groups already done. With fewer than a step's
	// groups in all, the caller encodes them.
	k.exactTail(n, step, func() {})
	k.epilogue(n)
}

// decodeAVX2 emits decodeAVX2. A step subtracts 0x4E from the high byte of
// every unit (a unit is valid exactly when the result is below 0x40), swaps
// the units to little-endian 14-bit values v0..v3, joins them in pairs with
// vpmaddwd (D0 = v0<<14 | v1, D1 = v2<<14 | v3), joins the pairs into the
// 56-bit group value D0<<28 | D1 with vpmuludq and a shift, and writes its
// 7 bytes big-endian. The high bytes are OR-ed into an accumulator that is
// tested once a pass; a failed test returns the groups before the pass.
func decodeAVX2() {
	TEXT("decodeAVX2", NOSPLIT, "func(dst, src []byte) int")
	Pragma("noescape")
	Doc("decodeAVX2 decodes len(src)/8 groups from src into dst, 4 a step",
		"(none if there are fewer than 4), stopping before the pass of up to 16",
		"groups holding the first bad unit, and returns the number of groups",
		"decoded. It may write anywhere in dst.")
	k, n := newKernel("decodeAVX2", "src", 4, 32, 28)

	bias, swap, pairs, join := Y0, Y1, Y2, Y3
	VMOVDQU(table("decAVX2Bias", repeat([]byte{0x100 - 0x4E, 0}, 32)), bias)
	VMOVDQU(swapTable(), swap)
	VMOVDQU(table("decAVX2Pairs", repeat(words(1<<14, 1), 32)), pairs)
	VPBROADCASTQ(ConstData("decAVX2Join", U64(1<<28)), join)
	var pack []byte
	for range 2 {
		pack = append(pack, 6, 5, 4, 3, 2, 1, 0, 14, 13, 12, 11, 10, 9, 8, 0x80, 0x80)
	}
	compact, test := Y4, Y5
	VMOVDQU(table("decAVX2Pack", pack), compact)
	VMOVDQU(table("decAVX2Test", repeat([]byte{0xC0, 0}, 32)), test)
	acc := Y6
	VPXOR(acc, acc, acc)

	step := func(in, out Mem) {
		x, t := Y7, Y8
		VPADDB(in, bias, x)
		VPOR(x, acc, acc)
		VPSHUFB(swap, x, x)
		VPMADDWD(pairs, x, x)
		VPMULUDQ(join, x, t)
		VPSRLQ(U8(32), x, x)
		VPOR(t, x, x)
		VPSHUFB(compact, x, x)
		VMOVDQU(x.AsX(), out)
		VEXTRACTI128(U8(1), x, out.Offset(14))
	}
	check := func() {
		VPTEST(test, acc)
		JNZ(k.returnLabel())
	}
	// The second 16-byte store of a step reaches two bytes past the step's
	// output: keep one more group in dst.
	k.loops(1, step, check)

	// The exact step packs lane 1's 14 bytes at its top, ORs in the two
	// last bytes of lane 0 and stores lane 1 over them: [0:16], then
	// [12:28]. With fewer than a step's groups in all, the caller decodes
	// them.
	var packTop []byte
	packTop = append(packTop, pack[:16]...)
	packTop = append(packTop, 0x80, 0x80)
	packTop = append(packTop, pack[:14]...)
	compactTop := table("decAVX2PackTop", packTop)
	k.exactTail(n, func(in, out Mem) {
		x, t, hi := Y7, Y8, Y9
		VPADDB(in, bias, x)
		VPTEST(test, x)
		JNZ(k.returnLabel())
		VPSHUFB(swap, x, x)
		VPMADDWD(pairs, x, x)
		VPMULUDQ(join, x, t)
		VPSRLQ(U8(32), x, x)
		VPOR(t, x, x)
		VPSHUFB(compactTop, x, x)
		VEXTRACTI128(U8(1), x, hi.AsX())
		VPSRLDQ(U8(12), x.AsX(), t.AsX())
		VPOR(t.AsX(), hi.AsX(), hi.AsX())
		VMOVDQU(x.AsX(), out)
		VMOVDQU(hi.AsX(), out.Offset(12))
	}, func() {})
	k.epilogue(n)
}

var swapMem *Mem

// swapTable declares, once, the vpshufb table swapping the two bytes of
// every 16-bit lane of a 256-bit vector.
func swapTable() Mem {
	if swapMem == nil {
		var swap []byte
		for i := range byte(32) {
			swap = append(swap, i%16^1)
		}
		m := table("swapBytes16", swap)
		swapMem = &m
	}
	return *swapMem
}
