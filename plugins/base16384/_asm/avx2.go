package main

import (
	"encoding/binary"
	"slices"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// An AVX2 step handles 4 groups, 2 in each 128-bit lane: 28 bytes and 32
// bytes of units. The AVX2 kernels name their vector registers: avo's
// allocator may hand out Y16-Y31, which VEX-encoded instructions cannot use.

// encodeAVX2 emits encodeAVX2 (avx2Encoder).
func encodeAVX2() {
	TEXT("encodeAVX2", NOSPLIT, "func(dst, src []byte) int")
	Pragma("noescape")
	Doc("encodeAVX2 encodes len(dst)/8 groups from src into dst, 4 a step",
		"(none if there are fewer than 4), and returns the number of groups",
		"encoded.")
	k, n := newKernel("encodeAVX2", "dst", 4, 28, 32)
	newAVX2Encoder().encode(k, n)
	k.epilogue(n)
}

// avx2Encoder holds the constants of the AVX2 encoding step in Y0..Y6, for
// encodeAVX2 and encodeRaw. Each 16-bit lane k of a group gets unit k as
// (A_k*mulA_k mod 2^16) & 0x3FFF | (B_k*mulB_k >> 16), where the shuffles
// A and B gather the two bytes holding the bits of the field:
//
//	k  A      mulA  B      mulB
//	0  0      1     b0 b1  1<<14 (b0b1 >> 2)
//	1  b1 b2  16    b3 0   16    (b3 >> 4)
//	2  b3 b4  4     b5 0   4     (b5 >> 6)
//	3  b5 b6  1     0      0
//
// then adds 0x4E00 and swaps the bytes of every unit to big-endian.
type avx2Encoder struct{ shufA, shufB, mulA, mulB, mask, base, swap VecPhysical }

// newAVX2Encoder loads the constants of the encoding step.
func newAVX2Encoder() avx2Encoder {
	// Lane 0 holds src bytes 0..15, lane 1 bytes 12..27: the groups sit at
	// lane offsets 0, 7 and 2, 9.
	var shufA, shufB []byte
	for _, o := range []byte{0, 7, 2, 9} {
		const z = 0x80 // pshufb index giving a zero byte
		shufA = append(shufA, z, z, o+2, o+1, o+4, o+3, o+6, o+5)
		shufB = append(shufB, o+1, o, z, o+3, z, o+5, z, z)
	}
	e := avx2Encoder{Y0, Y1, Y2, Y3, Y4, Y5, Y6}
	VMOVDQU(table("encAVX2ShufA", shufA), e.shufA)
	VMOVDQU(table("encAVX2ShufB", shufB), e.shufB)
	VMOVDQU(table("encAVX2MulA", repeat(words(1, 16, 4, 1), 32)), e.mulA)
	VMOVDQU(table("encAVX2MulB", repeat(words(1<<14, 16, 4, 0), 32)), e.mulB)
	VMOVDQU(table("encAVX2Mask", repeat(words(0x3FFF), 32)), e.mask)
	VMOVDQU(table("encAVX2Base", repeat(words(0x4E00), 32)), e.base)
	VMOVDQU(swapTable(), e.swap)
	return e
}

// encode emits the loops of k, a kernel of 4-group steps, over its n
// groups: a step reads and writes exactly its groups' bytes, so the last
// one moves back over groups already done. With fewer than 4 groups in
// all, it encodes none and leaves k.left at n.
func (e avx2Encoder) encode(k kernel, n GPVirtual) {
	k.loops(0, e.step, nil)
	k.exactTail(n, e.step, func() {})
}

// step encodes the 4 groups, 28 bytes, at in into the 32 bytes at out,
// with Y7 and Y8. It reads and writes exactly those bytes.
func (e avx2Encoder) step(in, out Mem) {
	x, a := Y7, Y8
	VMOVDQU(in, x.AsX())
	VINSERTI128(U8(1), in.Offset(12), x, x)
	VPSHUFB(e.shufA, x, a)
	VPSHUFB(e.shufB, x, x)
	VPMULLW(e.mulA, a, a)
	VPMULHUW(e.mulB, x, x)
	VPAND(e.mask, a, a)
	VPOR(a, x, x)
	VPADDW(e.base, x, x)
	VPSHUFB(e.swap, x, x)
	VMOVDQU(x, out)
}

// decodeAVX2 emits decodeAVX2 (avx2Decoder).
func decodeAVX2() {
	TEXT("decodeAVX2", NOSPLIT, "func(dst, src []byte) int")
	Pragma("noescape")
	Doc("decodeAVX2 decodes len(src)/8 groups from src into dst, 4 a step",
		"(none if there are fewer than 4), stopping before the pass of up to 16",
		"groups holding the first bad unit, and returns the number of groups",
		"decoded. It may write anywhere in dst.")
	k, n := newKernel("decodeAVX2", "src", 4, 32, 28)
	newAVX2Decoder().decode(k, n, k.returnLabel())
	k.epilogue(n)
}

// avx2Decoder holds the constants of the AVX2 decoding step in Y0..Y3 and
// Y5, for decodeAVX2 and decodeRaw. A step subtracts 0x4E from the high byte
// of every unit (a unit is valid exactly when the result is below 0x40),
// swaps the units to little-endian 14-bit values v0..v3, joins them in
// pairs with vpmaddwd (D0 = v0<<14 | v1, D1 = v2<<14 | v3), joins the
// pairs into the 56-bit group value D0<<28 | D1 with vpmuludq and a
// shift, and writes its 7 bytes big-endian.
type avx2Decoder struct{ bias, swap, pairs, join, test Op }

// newAVX2Decoder loads the constants of the decoding step.
func newAVX2Decoder() avx2Decoder {
	d := avx2Decoder{bias: Y0, swap: Y1, pairs: Y2, join: Y3, test: Y5}
	tables := avx2DecoderTables(false)
	VMOVDQU(tables.bias, d.bias)
	VMOVDQU(tables.swap, d.swap)
	VMOVDQU(tables.pairs, d.pairs)
	VPBROADCASTQ(tables.join, d.join)
	VMOVDQU(tables.test, d.test)
	return d
}

// avx2DecoderTables returns the decoding step's constants in memory: its
// join as the 8 bytes to broadcast, or as all 32 bytes when wide, for a
// single step, which takes them as operands.
func avx2DecoderTables(wide bool) avx2Decoder {
	join := binary.LittleEndian.AppendUint64(nil, 1<<28)
	name := "decAVX2Join"
	if wide {
		join, name = repeat(join, 32), "decAVX2Join4"
	}
	return avx2Decoder{
		bias:  table("decAVX2Bias", repeat([]byte{0x100 - 0x4E, 0}, 32)),
		swap:  swapTable(),
		pairs: table("decAVX2Pairs", repeat(words(1<<14, 1), 32)),
		join:  table(name, join),
		test:  table("decAVX2Test", repeat([]byte{0xC0, 0}, 32)),
	}
}

// decode emits the loops of k, a kernel of 4-group steps, over its n
// groups, with Y4 and Y6 too. The loops' steps OR the biased units into an
// accumulator tested once a pass, and store the groups' bytes as [0:16]
// and [14:30], 2 bytes past them: they run while a group follows. The
// last step, moved back over groups already done to end at the last
// group, stores exactly its bytes (exactStep). A bad unit jumps to bad
// with k.left counting the groups from the pass or step holding it. With
// fewer than 4 groups in all, it decodes none and leaves k.left at n.
func (d avx2Decoder) decode(k kernel, n GPVirtual, bad LabelRef) {
	compact, acc := Y4, Y6
	VMOVDQU(table("decAVX2Pack", decAVX2Pack(false)), compact)
	VPXOR(acc, acc, acc)
	k.loops(1, func(in, out Mem) {
		x := Y7
		VPADDB(in, d.bias, x)
		VPOR(x, acc, acc)
		d.bytes(x, compact)
		VMOVDQU(x.AsX(), out)
		VEXTRACTI128(U8(1), x, out.Offset(14))
	}, func() {
		VPTEST(d.test, acc)
		JNZ(bad)
	})
	k.exactTail(n, func(in, out Mem) { d.exactStep(in, out, bad) }, func() {})
}

// decAVX2Pack returns the vpshufb table that packs each lane's two
// decoded groups, 14 bytes, at the bottom of the lane, or with top lane
// 1's at its top.
func decAVX2Pack(top bool) []byte {
	lane := []byte{6, 5, 4, 3, 2, 1, 0, 14, 13, 12, 11, 10, 9, 8}
	pack := append(slices.Clone(lane), 0x80, 0x80)
	if top {
		return append(append(pack, 0x80, 0x80), lane...)
	}
	return append(append(pack, lane...), 0x80, 0x80)
}

// bytes turns the biased units in x into 7 bytes a group, each lane's two
// groups packed by the vpshufb table pack. It uses Y8.
func (d avx2Decoder) bytes(x VecPhysical, pack Op) {
	t := Y8
	VPSHUFB(d.swap, x, x)
	VPMADDWD(d.pairs, x, x)
	VPMULUDQ(d.join, x, t)
	VPSRLQ(U8(32), x, x)
	VPOR(t, x, x)
	VPSHUFB(pack, x, x)
}

// exactStep decodes the 4 groups at in into exactly the 28 bytes at out,
// or jumps to bad if a unit is out of range, with Y7..Y9: lane 1's 14
// bytes, at the top of the lane, take in the last two bytes of lane 0,
// and lane 1 is stored at [12:28] after lane 0 at [0:16].
func (d avx2Decoder) exactStep(in, out Mem, bad LabelRef) {
	x, t, hi := Y7, Y8, Y9
	VPADDB(in, d.bias, x)
	VPTEST(d.test, x)
	JNZ(bad)
	d.bytes(x, table("decAVX2PackTop", decAVX2Pack(true)))
	VEXTRACTI128(U8(1), x, hi.AsX())
	VPSRLDQ(U8(12), x.AsX(), t.AsX())
	VPOR(t.AsX(), hi.AsX(), hi.AsX())
	VMOVDQU(x.AsX(), out)
	VMOVDQU(hi.AsX(), out.Offset(12))
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
