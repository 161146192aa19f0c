package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// An AVX-512 step handles 8 groups, one in each 64-bit lane: 56 bytes and
// 64 bytes of units.

// encodeAVX512 emits encodeAVX512. A step gathers group g's bytes into
// qword g with vpermb so that the qword, read as a little-endian number, is
// the group's 56-bit big-endian value V. One vpmultishiftqb with the shift
// counts {50, 42, 36, 28, 22, 14, 8, 0} then takes, for each of the four
// fields V>>42, V>>28, V>>14, V, its high and its low byte, already in
// big-endian order; an AND with 0xFF3F per 16-bit lane drops the two bits
// above each field and adding 0x004E per lane adds 0x4E00 to each unit.
func encodeAVX512() {
	TEXT("encodeAVX512", NOSPLIT, "func(dst, src []byte) int")
	Pragma("noescape")
	Doc("encodeAVX512 encodes len(dst)/8 groups",
		"from src into dst and returns the number of groups encoded.")
	k, n := newKernel("encodeAVX512", "dst", 8, 56, 64)

	var gather []byte
	for g := range byte(8) {
		gather = append(gather, 7*g+6, 7*g+5, 7*g+4, 7*g+3, 7*g+2, 7*g+1, 7*g, 7*g)
	}
	perm, shift, mask, base := ZMM(), ZMM(), ZMM(), ZMM()
	VMOVDQU64(table("encAVX512Gather", gather), perm)
	VPBROADCASTQ(table("encAVX512Shift", []byte{50, 42, 36, 28, 22, 14, 8, 0}), shift)
	VPBROADCASTQ(table("encAVX512Mask", repeat(words(0xFF3F), 8)), mask)
	VPBROADCASTQ(table("encAVX512Base", repeat(words(0x004E), 8)), base)

	units := func(x reg.VecVirtual) {
		VPMULTISHIFTQB(x, shift, x)
		VPANDQ(mask, x, x)
		VPADDW(base, x, x)
	}
	// The 64-byte load of a step reads 8 bytes past the step's input: keep
	// two more groups in src.
	k.loops(2, func(in, out Mem) {
		x := ZMM()
		VPERMB(in, perm, x)
		units(x)
		VMOVDQU64(x, out)
	}, nil)

	// The exact step loads its 56 bytes as [0:32] and [24:56], gathered by
	// splitPerm.
	var split []byte
	for _, s := range gather {
		if s >= 32 {
			s += 8
		}
		split = append(split, s)
	}
	splitPerm := ZMM()
	VMOVDQU64(table("encAVX512GatherSplit", split), splitPerm)
	k.exactTail(n, func(in, out Mem) {
		x := ZMM()
		VMOVDQU64(in, x.AsY())
		VINSERTI64X4(U8(1), in.Offset(24), x, x)
		VPERMB(x, splitPerm, x)
		units(x)
		VMOVDQU64(x, out)
	}, func() {
		k.tail(func(in, out Mem, load, store reg.OpmaskVirtual) {
			x := ZMM()
			VMOVDQU8_Z(in, load, x)
			VPERMB(x, perm, x)
			units(x)
			VMOVDQU8(x, store, out)
		})
	})
	k.epilogue(n)
}

// decodeAVX512 emits decodeAVX512. A step adds -0x4E to the high byte of
// every unit (a unit is valid exactly when the result is below 0x40) and
// OR-s the result into an accumulator tested once a pass; a failed test
// returns the groups before the pass. Two vpmultishiftqb with the shift
// counts {14, 20, 28, 34, 42, 48, 56, 0} and {62, 6, 12, 20, 26, 34, 56, 0}
// merged by a vpternlogq bit select with the masks {03, 03, 0F, 0F, 3F, 3F,
// FF, FF} build the 7 bytes of each group in qword order, and vpermb packs
// them to 56 contiguous bytes.
func decodeAVX512() {
	TEXT("decodeAVX512", NOSPLIT, "func(dst, src []byte) int")
	Pragma("noescape")
	Doc("decodeAVX512 decodes len(src)/8 groups from src into dst, stopping",
		"before the pass of up to 32 groups holding the first bad unit, and",
		"returns the number of groups decoded. It may write anywhere in dst.")
	k, n := newKernel("decodeAVX512", "src", 8, 64, 56)

	d := newAVX512Decoder("decAVX512", reg.VecVirtual.AsZ)
	acc := ZMM()
	VPXORQ(acc, acc, acc)

	// The 64-byte store of a step writes 8 bytes past the step's output:
	// keep two more groups in dst.
	k.loops(2, func(in, out Mem) {
		x := ZMM()
		VPADDB(in, d.bias, x)
		VPORQ(x, acc, acc)
		d.bytes(x, reg.VecVirtual.AsZ)
		VMOVDQU64(x, out)
	}, func() {
		bad := K()
		VPTESTMB(d.test, acc, bad)
		KORTESTQ(bad, bad)
		JNZ(k.returnLabel())
	})
	k.exactTail(n, func(in, out Mem) {
		d.exactStep(in, out, k.returnLabel())
	}, func() {
		k.tail(func(in, out Mem, load, store reg.OpmaskVirtual) {
			x, bad := ZMM(), K()
			VMOVDQU8_Z(in, load, x)
			VPADDB(d.bias, x, x)
			VPTESTMB(d.test, x, load, bad)
			KORTESTQ(bad, bad)
			JNZ(k.returnLabel())
			d.bytes(x, reg.VecVirtual.AsZ)
			VMOVDQU8(x, store, out)
		})
	})
	k.epilogue(n)
}

// avx512Decoder holds the constants of the AVX-512 VBMI decoding step in
// registers, for the kernels and for decodeRaw.
type avx512Decoder struct{ bias, hi, lo, sel, compact, test reg.VecVirtual }

// newAVX512Decoder loads the constants of the decoding step, from tables
// whose names start with prefix, as wide as width (reg.VecVirtual.AsY for
// the steps of 4 groups alone, whose loads are half those of zmm loads;
// AsZ).
func newAVX512Decoder(prefix string, width func(reg.VecVirtual) reg.Register) avx512Decoder {
	var pack []byte
	for g := range byte(8) {
		pack = append(pack, 8*g, 8*g+1, 8*g+2, 8*g+3, 8*g+4, 8*g+5, 8*g+6)
	}
	pack = append(pack, make([]byte, 8)...)
	d := avx512Decoder{ZMM(), ZMM(), ZMM(), ZMM(), ZMM(), ZMM()}
	VPBROADCASTQ(table(prefix+"Bias", repeat([]byte{0x100 - 0x4E, 0}, 8)), width(d.bias))
	VPBROADCASTQ(table(prefix+"ShiftHi", []byte{14, 20, 28, 34, 42, 48, 56, 0}), width(d.hi))
	VPBROADCASTQ(table(prefix+"ShiftLo", []byte{62, 6, 12, 20, 26, 34, 56, 0}), width(d.lo))
	VPBROADCASTQ(table(prefix+"Select", []byte{0x03, 0x03, 0x0F, 0x0F, 0x3F, 0x3F, 0xFF, 0xFF}), width(d.sel))
	VMOVDQU64(table(prefix+"Pack", pack), width(d.compact))
	VPBROADCASTQ(table(prefix+"Test", repeat([]byte{0xC0, 0}, 8)), width(d.test))
	return d
}

// bytes turns the biased units in x into 7 bytes a group, packed at the
// start of x; width (reg.VecVirtual.AsY or AsZ) says whether x holds 4
// groups or 8.
func (d avx512Decoder) bytes(x reg.VecVirtual, width func(reg.VecVirtual) reg.Register) {
	y := ZMM()
	VPMULTISHIFTQB(width(x), width(d.lo), width(y))
	VPMULTISHIFTQB(width(x), width(d.hi), width(x))
	// x = sel ? x : y, bit by bit.
	VPTERNLOGQ(U8(0xE4), width(d.sel), width(y), width(x))
	VPERMB(width(x), width(d.compact), width(x))
}

// exactStep decodes the 8 groups at in into exactly the 56 bytes at out,
// stored as [0:32] and [24:56], or jumps to bad if a unit is out of range.
func (d avx512Decoder) exactStep(in, out Mem, bad LabelRef) {
	x, y, k := ZMM(), ZMM(), K()
	VPADDB(in, d.bias, x)
	VPTESTMB(d.test, x, k)
	KORTESTQ(k, k)
	JNZ(bad)
	d.bytes(x, reg.VecVirtual.AsZ)
	VALIGNQ(U8(3), x, x, y)
	VMOVDQU64(x.AsY(), out)
	VMOVDQU64(y.AsY(), out.Offset(24))
}

// tail emits a loop over the groups the kernel's loops leave, at most a
// step at a time, whose loads and stores are masked to the groups' bytes.
// step gets the opmasks of the bytes to load and to store.
func (k kernel) tail(step func(in, out Mem, load, store reg.OpmaskVirtual)) {
	top, ones := k.name+"_tail", GP64()
	MOVQ(I32(-1), ones)
	Label(top)
	TESTQ(k.left, k.left)
	JZ(k.returnLabel())
	groups := GP64()
	MOVQ(U32(k.groups), groups)
	CMPQ(k.left, groups)
	CMOVQLT(k.left, groups)
	inBytes, outBytes, mask := GP64(), GP64(), GP64()
	load, store := K(), K()
	IMUL3Q(U8(k.in/k.groups), groups, inBytes)
	BZHIQ(inBytes, ones, mask)
	KMOVQ(mask, load)
	IMUL3Q(U8(k.out/k.groups), groups, outBytes)
	BZHIQ(outBytes, ones, mask)
	KMOVQ(mask, store)
	step(Mem{Base: k.src}, Mem{Base: k.dst}, load, store)
	ADDQ(inBytes, k.src)
	ADDQ(outBytes, k.dst)
	SUBQ(groups, k.left)
	JMP(LabelRef(top))
}

// shapeAVX512 emits name, the floor of the loops of encodeAVX512 (in 56,
// out 64) or decodeAVX512 (in 64, out 56): the same loops with steps that
// only load their 64 bytes and store them, without encoding, decoding or
// checking, for the benchmarks that compare the kernels with the memory
// traffic of their shape.
func shapeAVX512(name, units string, in, out int) {
	TEXT(name, NOSPLIT, "func(dst, src []byte) int")
	Pragma("noescape")
	Doc(name+" moves the bytes the loops of the kernel of its shape would",
		"for len("+units+")/8 groups, coding nothing, and returns the number",
		"of groups moved: all but the last few, as those loops leave them.")
	k, n := newKernel(name, units, 8, in, out)
	k.loops(2, func(in, out Mem) {
		x := ZMM()
		VMOVDQU64(in, x)
		VMOVDQU64(x, out)
	}, nil)
	k.epilogue(n)
}

// shapeDecodeExactAVX512 emits shapeDecodeExactAVX512, the floor of a
// decoding loop that stores exactly its output: 8 steps' 512 bytes of
// units loaded, 448 bytes stored, as 7 whole vectors.
func shapeDecodeExactAVX512() {
	const name = "shapeDecodeExactAVX512"
	TEXT(name, NOSPLIT, "func(dst, src []byte) int")
	Pragma("noescape")
	Doc(name+" moves the bytes a decoding loop storing exactly its output",
		"would for len(src)/8 groups, 64 a pass, coding nothing, and returns",
		"the number of groups moved.")
	k, n := newKernel(name, "src", 64, 512, 448)
	k.loop("x1", 1, 0, func(in, out Mem) {
		var x [8]reg.VecVirtual
		for i := range x {
			x[i] = ZMM()
			VMOVDQU64(in.Offset(64*i), x[i])
		}
		for i := range 7 {
			VMOVDQU64(x[i], out.Offset(64*i))
		}
	}, nil)
	k.epilogue(n)
}
