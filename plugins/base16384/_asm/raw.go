package main

import (
	"encoding/binary"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The whole-buffer functions of package base16384 on amd64: encodeStd and
// decodeStd (for the package functions) and encodeRaw and decodeRaw (for
// the Encoding methods) encode and decode a whole input in the raw form,
// small ones in one call without a frame, and jump to the Go function of
// the same name with the suffix Go, which takes the same arguments and
// returns the same results, for everything else: other options, a
// destination too small, invalid input (for its error), and inputs of
// rawLargeGroups groups or more, which the block kernels do faster.
//
// Groups go through AVX-512 VBMI steps when the Go variable useAVX512 is
// set: 8 groups in a zmm register, the last step moved back to end at the
// last group (steps overlap rather than leave groups over), and 4 to 7
// groups as two 4-group steps in ymm registers. Loads and stores touch
// exactly the bytes of their groups: a zmm step loads or stores its 56
// bytes as two 32-byte halves that overlap by 8 bytes, a ymm step its 28
// bytes as two 16-byte halves that overlap by 4. Without AVX-512, 4 groups
// or more go through the AVX2 kernels' steps (where the Go variable useAVX2
// is set), 4 groups a step, the last moved back to end at the last group
// too. Fewer groups, or without either, go a group at a time through
// 64-bit words (the shifts and masks of the generic kernel), and so does
// the tail; except that in decoding, 1 to 3 groups and a tail go through
// one AVX-512 or AVX2 step, tail included.

// rawLargeGroups is the number of groups from which encodeRaw and
// decodeRaw leave the input to the Go code, and so to the block kernels;
// rawLargeScalar the same with words alone.
const (
	rawLargeGroups = 192
	rawLargeScalar = 16
)

// rawSignature is the signature of encodeRaw and decodeRaw (stdSignature
// that of encodeStd and decodeStd). e is an
// *Encoding; err's two words are named as go vet expects them for an
// interface result.
const rawSignature = "func(e *byte, dst, src []byte) (n int, err_itable uintptr, err_data uintptr)"

// The offsets in an Encoding of the options the assembly reads: the bool
// fields of its config, first in the struct (TestConfigOffsets checks
// them). The 32-bit word at 0 holds the first four, utf8 in its low byte.
const (
	cfgUTF8     = 0
	cfgBOM      = 1
	cfgStrict   = 2
	cfgChecksum = 3
	// The options' bytes in that word, and those that make encoding
	// write more than the raw units (not strict).
	optUTF8     = 0xFF << (8 * cfgUTF8)
	optBOM      = 0xFF << (8 * cfgBOM)
	optStrict   = 0xFF << (8 * cfgStrict)
	optChecksum = 0xFF << (8 * cfgChecksum)
	optNotRaw   = optUTF8 | optBOM | optChecksum
)

// tailJump emits a jump to the Go function name (a tail call: the
// arguments are still in place).
func tailJump(name string) {
	Instruction(&ir.Instruction{
		Opcode:     "JMP",
		Operands:   []Op{LabelRef(name + "(SB)")},
		IsTerminal: true,
	})
}

// returnNil emits the return of a nil error, with the count stored before.
func returnNil() {
	zero := GP64()
	XORL(zero.As32(), zero.As32())
	Store(zero, ReturnIndex(1))
	Store(zero, ReturnIndex(2))
	RET()
}

// useAVX512 is the Go variable that turns the AVX-512 steps on.
var useAVX512 = NewDataAddr(Symbol{Name: "·useAVX512"}, 0)

// useAVX2 is the Go variable that turns the AVX2 steps on.
var useAVX2 = NewDataAddr(Symbol{Name: "·useAVX2"}, 0)

// useBMI2 is the Go variable that turns pdep and pext on.
var useBMI2 = NewDataAddr(Symbol{Name: "·useBMI2"}, 0)

// lanes returns the table word that holds the 14-bit fields' bits of the
// four lanes, the mask of pdep and pext.
func lanes() Mem { return tailTable().Offset(tailLanes) }

// withBMI2 emits fast, code with pdep or pext, where useBMI2 is set, and
// else a jump to slow, the word code's equivalent, which it adds to later
// (with the jump back) for the caller to emit where no code falls
// through. name names the labels.
func (f rawFunc) withBMI2(name string, later *[]func(), fast, slow func()) {
	CMPB(useBMI2, U8(0))
	JE(f.ref(name + "_words"))
	fast()
	Label(f.label(name + "_done"))
	*later = append(*later, func() {
		Label(f.label(name + "_words"))
		slow()
		JMP(f.ref(name + "_done"))
	})
}

// unitsBMI2 emits unitsWord with pdep: x holds a group's 7 bytes at the
// top and becomes its 4 units; base is UnitBase.
func unitsBMI2(x reg.GPVirtual, base Op) {
	SHRQ(U8(8), x)
	PDEPQ(lanes(), x, x)
	ADDQ(base, x)
}

// fieldsBMI2 emits fieldsWord with pext: w, a group's units less
// UnitBase, becomes its 7 bytes at the top.
func fieldsBMI2(w reg.GPVirtual) {
	PEXTQ(lanes(), w, w)
	SHLQ(U8(8), w)
}

// unitsWord emits Units of the generic kernel: x holds a group's 7 bytes at
// the top (the low byte is ignored) and becomes its 4 units, first unit at
// the top. t is scratch.
func unitsWord(x, t reg.GPVirtual, c encodeConsts) {
	// x>>8 & 0x0FFFFFFF | x>>4 & 0x0FFFFFFF00000000, the second term as
	// x>>36<<32
	MOVQ(x, t)
	SHRQ(U8(8), x)
	ANDL(U32(0x0FFFFFFF), x.As32())
	SHRQ(U8(36), t)
	SHLQ(U8(32), t)
	ORQ(t, x)
	// (x & 0x00003FFF00003FFF | x<<2 & 0x3FFF00003FFF0000) + base
	MOVQ(x, t)
	ANDQ(c.lo14, x)
	SHLQ(U8(2), t)
	ANDQ(c.hi14, t)
	ORQ(t, x)
	ADDQ(c.base, x)
}

// encodeConsts are the masks and the base that unitsWord takes from
// registers.
type encodeConsts struct{ lo14, hi14, base reg.GPVirtual }

func newEncodeConsts() encodeConsts {
	c := encodeConsts{GP64(), GP64(), GP64()}
	MOVQ(U64(0x00003FFF00003FFF), c.lo14)
	MOVQ(U64(0x3FFF00003FFF0000), c.hi14)
	MOVQ(U64(0x4E004E004E004E00), c.base)
	return c
}

// A rawFunc is one of the three forms of a whole-buffer function: the
// method form (encodeRaw, decodeRaw), whose Go declaration is rawSignature;
// the form for StdEncoding (encodeStd, decodeStd), without e, which saves
// the package functions an argument and a test; and the append form
// (appendEncode, appendDecode), a method form that writes to the room past
// the length of dst and returns dst extended (appendSignature, and
// appendEncodeSignature without an error), which saves AppendEncode and
// AppendDecode a call in Go.
type rawFunc struct {
	name, fallback string
	std, append    bool
	encodes        bool // set by encodeRaw
}

// The signatures of the append forms.
const (
	appendSignature       = "func(e *byte, dst, src []byte) (out []byte, err_itable uintptr, err_data uintptr)"
	appendEncodeSignature = "func(e *byte, dst, src []byte) (out []byte)"
)

// text declares f.
func (f rawFunc) text(doc ...string) {
	sig := rawSignature
	switch {
	case f.std:
		sig = stdSignature
	case f.append && f.encodes:
		sig = appendEncodeSignature
	case f.append:
		sig = appendSignature
	}
	TEXT(f.name, NOSPLIT, sig)
	Doc(doc...)
	// Start on a cache line, so that the code's place in the lines (and
	// its speed) does not change with the code before it.
	pcalign(64)
}

// claimDst emits the claim of size bytes of output, or a jump to fail
// when there is not that much room: it loads the output's start into dst
// and its room into room (dst itself, or the room past its length in the
// append form), and stores the result for an output of size bytes (the
// count, or dst extended by size); the Go code sets it again when jumped
// to. t is scratch.
func (f rawFunc) claimDst(dst, room, size, t reg.GPVirtual, fail LabelRef) {
	if !f.append {
		Load(Param("dst").Len(), room)
		Load(Param("dst").Base(), dst)
		CMPQ(room, size)
		JB(fail)
		Store(size, ReturnIndex(0))
		return
	}
	out := ReturnIndex(0)
	Load(Param("dst").Len(), t)
	Load(Param("dst").Cap(), room)
	Load(Param("dst").Base(), dst)
	Store(dst, out.Base())
	Store(room, out.Cap())
	SUBQ(t, room)
	CMPQ(room, size)
	JB(fail)
	ADDQ(t, dst)
	ADDQ(size, t)
	Store(t, out.Len())
}

// jumpIfOption emits, in the method forms, a jump to to when one of the
// options in mask (opt constants) is set in the Encoding; StdEncoding sets
// none.
func (f rawFunc) jumpIfOption(mask uint32, to LabelRef) {
	if f.std {
		return
	}
	e := GP64()
	Load(Param("e"), e)
	TESTL(U32(mask), Mem{Base: e})
	JNZ(to)
}

// returnOK emits the return of success, the result stored before.
func (f rawFunc) returnOK() {
	if f.append && f.encodes {
		RET()
		return
	}
	returnNil()
}

// label returns the label name of f.
func (f rawFunc) label(name string) string { return f.name + "_" + name }

// ref returns a reference to the label name of f.
func (f rawFunc) ref(name string) LabelRef { return LabelRef(f.label(name)) }

// stdSignature is the signature of encodeStd and decodeStd.
const stdSignature = "func(dst, src []byte) (n int, err_itable uintptr, err_data uintptr)"

// encodeShape returns the table of encodeRaw's shape for the plain sizes
// n < 7*rawLargeGroups: the byte at n holds the groups g, the byte at
// encFull+n the groups loaded with 8 bytes (those a byte follows), the byte
// at encTail+n the tail's bytes r and the word at encSize+2n the encoded
// length.
func encodeShape() Mem {
	const m = 7 * rawLargeGroups
	if rawLargeGroups > 256 {
		panic("encodeShape: the group counts do not fit in bytes")
	}
	b := make([]byte, encSize+2*m)
	for n := range m {
		g, r := n/7, n%7
		full := g
		if r == 0 && g > 0 {
			full--
		}
		size := 8 * g
		if r > 0 {
			size += 2*((r+2)/2) + 2
		}
		b[n], b[encFull+n], b[encTail+n] = byte(g), byte(full), byte(r)
		b[encSize+2*n], b[encSize+2*n+1] = byte(size), byte(size>>8)
	}
	return table("rawEncShape", b)
}

// The offsets of the parts of encodeShape's table.
const (
	encFull = 7 * rawLargeGroups
	encTail = 2 * encFull
	encSize = 3 * encFull
)

// encodeRaw emits encodeRaw or encodeStd.
func encodeRaw(f rawFunc, shape Mem) {
	f.encodes = true
	f.text(f.name+" is "+f.fallback+": the raw form of small inputs here, the",
		"rest by a jump to it.")
	fallback := f.ref("go")
	var later []func() // code out of line, emitted at the end

	f.jumpIfOption(optNotRaw, fallback)
	n := GP64()
	Load(Param("src").Len(), n)
	CMPQ(n, U32(7*rawLargeGroups))
	JAE(fallback)
	// The shape from the table: g groups, r bytes in the tail, size.
	g, r, size, t, tab := GP64(), GP64(), GP64(), GP64(), GP64()
	LEAQ(shape, tab)
	MOVBQZX(Mem{Base: tab, Index: n, Scale: 1}, g)
	MOVBQZX(Mem{Base: tab, Index: n, Scale: 1, Disp: encTail}, r)
	MOVWQZX(Mem{Base: tab, Index: n, Scale: 2, Disp: encSize}, size)
	src, dst := GP64(), GP64()
	f.claimDst(dst, t, size, GP64(), fallback)

	Load(Param("src").Base(), src)
	c := newEncodeConsts()
	x, i := GP64(), GP64()

	// The groups: few a word at a time, more with AVX-512 or AVX2 steps.
	XORL(i.As32(), i.As32())
	CMPQ(g, U8(4))
	JB(f.ref("words"))
	CMPB(useAVX512, U8(0))
	JNE(f.ref("vector"))
	CMPB(useAVX2, U8(0))
	JNE(f.ref("avx2"))
	CMPQ(g, U8(rawLargeScalar))
	JAE(fallback)
	JMP(f.ref("words"))
	Label(f.label("vector"))
	encodeRawSteps(f, src, dst, g, i)
	JMP(f.ref("tail"))
	later = append(later, func() {
		Label(f.label("avx2"))
		k := f.avx2Kernel(src, dst, g, 28, 32)
		newAVX2Encoder().encode(k, g)
		f.kernelDone(k)
	})

	// A word a group: 8 bytes loaded for the groups a byte follows, then
	// the last group when none does. The words, the last group and the
	// tail, which no code falls through to, each start a 32-byte line:
	// encoding 7 bytes without AVX-512 went from 1.41x to 1.67x the
	// reference with it (aligning decoding's labels so made 1 and 8 bytes
	// slower).
	pcalign(32)
	Label(f.label("words"))
	full, o := GP64(), GP64()
	MOVBQZX(Mem{Base: tab, Index: n, Scale: 1, Disp: encFull}, full)
	XORL(o.As32(), o.As32())
	TESTQ(full, full)
	JZ(f.ref("last"))
	CMPB(useBMI2, U8(0))
	JE(f.ref("words_slow"))
	encodeWords(f, "pdep", src, dst, full, i, o, x, func() { unitsBMI2(x, c.base) })
	Label(f.label("words_slow"))
	encodeWords(f, "word", src, dst, full, i, o, x, func() { unitsWord(x, t, c) })
	// The last group, with no byte after it: 8 bytes to the end of src,
	// or two 4-byte loads that agree on byte 3 when src is that group.
	pcalign(32)
	Label(f.label("last"))
	CMPQ(i, g)
	JAE(f.ref("tail"))
	CMPQ(n, U8(8))
	JB(f.ref("seven"))
	MOVQ(Mem{Base: src, Index: n, Scale: 1, Disp: -8}, x)
	BSWAPQ(x)
	SHLQ(U8(8), x)
	JMP(f.ref("lastword"))
	Label(f.label("seven"))
	MOVL(Mem{Base: src}, x.As32())
	BSWAPL(x.As32())
	SHLQ(U8(32), x)
	MOVL(Mem{Base: src, Disp: 3}, t.As32())
	BSWAPL(t.As32())
	SHLQ(U8(8), t)
	ORQ(t, x)
	Label(f.label("lastword"))
	f.withBMI2("last", &later, func() { unitsBMI2(x, c.base) }, func() { unitsWord(x, t, c) })
	BSWAPQ(x)
	MOVQ(x, Mem{Base: dst, Index: i, Scale: 8})
	JMP(f.ref("return"))

	// The tail: r bytes at the top of x, zeros below.
	pcalign(32)
	Label(f.label("tail"))
	TESTQ(r, r)
	JZ(f.ref("return"))
	// shift = 64 - 8r, in CL.
	MOVQ(r, reg.RCX)
	SHLQ(U8(3), reg.RCX)
	NEGQ(reg.RCX)
	CMPQ(n, U8(8))
	JB(f.ref("short"))
	MOVQ(Mem{Base: src, Index: n, Scale: 1, Disp: -8}, x)
	BSWAPQ(x)
	SHLQ(reg.CL, x)
	JMP(f.ref("units"))
	Label(f.label("short")) // src is the tail: n = r
	CMPQ(r, U8(4))
	JB(f.ref("short2"))
	MOVL(Mem{Base: src}, x.As32())
	BSWAPL(x.As32())
	SHLQ(U8(32), x)
	MOVL(Mem{Base: src, Index: r, Scale: 1, Disp: -4}, t.As32())
	BSWAPL(t.As32())
	SHLQ(reg.CL, t)
	ORQ(t, x)
	JMP(f.ref("units"))
	Label(f.label("short2"))
	CMPQ(r, U8(2))
	JB(f.ref("short1"))
	MOVWQZX(Mem{Base: src}, x)
	ROLW(U8(8), x.As16())
	SHLQ(U8(48), x)
	MOVWQZX(Mem{Base: src, Index: r, Scale: 1, Disp: -2}, t)
	ROLW(U8(8), t.As16())
	SHLQ(reg.CL, t)
	ORQ(t, x)
	JMP(f.ref("units"))
	Label(f.label("short1"))
	MOVBQZX(Mem{Base: src}, x)
	SHLQ(U8(56), x)

	Label(f.label("units"))
	f.withBMI2("tail", &later, func() { unitsBMI2(x, c.base) }, func() { unitsWord(x, t, c) })
	out := Mem{Base: dst, Index: g, Scale: 8}
	CMPQ(r, U8(6))
	JNE(f.ref("k3"))
	BSWAPQ(x)
	MOVQ(x, out)
	MOVW(U16(0x063D), out.Offset(8)) // the marker 3D 06
	JMP(f.ref("return"))
	// k = (r+2)>>1 units, then the marker 3D 0r: keep the top 16k bits and
	// put the marker below them. s = 64 - 16k = 64 - 8*((r+2)&^1), in CL.
	Label(f.label("k3"))
	LEAQ(Mem{Base: r, Disp: 2}, reg.RCX)
	ANDQ(I8(-2), reg.RCX)
	SHLQ(U8(3), reg.RCX)
	NEGQ(reg.RCX)
	SHRQ(reg.CL, x)
	SHLQ(U8(16), x)
	LEAQ(Mem{Base: r, Disp: 0x3D00}, t)
	ORQ(t, x)
	SUBQ(U8(16), reg.RCX)
	SHLQ(reg.CL, x)
	BSWAPQ(x)
	CMPQ(r, U8(4))
	JB(f.ref("k2"))
	MOVQ(x, out) // k = 3: 8 bytes
	JMP(f.ref("return"))
	Label(f.label("k2"))
	MOVL(x.As32(), out)
	CMPQ(r, U8(2))
	JB(f.ref("return")) // k = 1: 4 bytes
	SHRQ(U8(32), x)
	MOVW(x.As16(), out.Offset(4)) // k = 2: 6 bytes

	Label(f.label("return"))
	f.returnOK()

	for _, emit := range later {
		emit()
	}
	Label(f.label("go"))
	tailJump("·" + f.fallback)
}

// encodeRawSteps emits the AVX-512 steps of encodeRaw for g >= 4 groups:
// 8-group steps, the last moved back to end at the last group, or two
// 4-group steps. It ends with VZEROUPPER.
func encodeRawSteps(f rawFunc, src, dst, g, i reg.GPVirtual) {
	// Group j's bytes s = 7j..7j+6 in the order of the qword that, read as
	// a little-endian number, is the group's value (as in encodeAVX512),
	// from a register holding the step's first half bytes and then the
	// half after the overlap.
	gather := func(groups, half, overlap int) []byte {
		var b []byte
		for j := range groups {
			for _, d := range []int{6, 5, 4, 3, 2, 1, 0, 0} {
				s := 7*j + d
				if s >= half {
					s += overlap
				}
				b = append(b, byte(s))
			}
		}
		return b
	}
	perm, shift, mask, base := ZMM(), ZMM(), ZMM(), ZMM()
	VPBROADCASTQ(table("rawEncShift", []byte{50, 42, 36, 28, 22, 14, 8, 0}), shift)
	VPBROADCASTQ(table("rawEncMask", repeat(words(0xFF3F), 8)), mask)
	VPBROADCASTQ(table("rawEncBase", repeat(words(0x004E), 8)), base)
	step := func(in, out Mem, x reg.VecVirtual) {
		VPERMB(x, perm, x)
		VPMULTISHIFTQB(x, shift, x)
		VPANDQ(mask, x, x)
		VPADDW(base, x, x)
		VMOVDQU64(x, out)
	}
	last, in, out := GP64(), GP64(), GP64()
	CMPQ(g, U8(8))
	JB(f.ref("y"))
	// zmm: the step's 56 bytes as src[0:32] and src[24:56].
	VMOVDQU64(table("rawEncGatherZ", gather(8, 32, 8)), perm)
	f.eightGroupSteps(g, i, last, func() {
		IMUL3Q(U8(7), i, in)
		ADDQ(src, in)
		LEAQ(Mem{Base: dst, Index: i, Scale: 8}, out)
		x := ZMM()
		VMOVDQU64(Mem{Base: in}, x.AsY())
		VINSERTI64X4(U8(1), Mem{Base: in, Disp: 24}, x, x)
		step(Mem{Base: in}, Mem{Base: out}, x)
	})

	// ymm, 4 to 7 groups: steps at group 0 and group g-4, each 28 bytes as
	// src[0:16] and src[12:28].
	Label(f.label("y"))
	VMOVDQU64(table("rawEncGatherY", gather(4, 16, 4)), perm.AsY())
	LEAQ(Mem{Base: g, Disp: -4}, last)
	y := ZMM()
	for _, at := range []reg.Register{nil, last} {
		if at == nil {
			MOVQ(src, in)
			MOVQ(dst, out)
		} else {
			IMUL3Q(U8(7), at, in)
			ADDQ(src, in)
			LEAQ(Mem{Base: dst, Index: at, Scale: 8}, out)
		}
		VMOVDQU64(Mem{Base: in}, y.AsX())
		VINSERTI32X4(U8(1), Mem{Base: in, Disp: 12}, y.AsY(), y.AsY())
		VPERMB(y.AsY(), perm.AsY(), y.AsY())
		VPMULTISHIFTQB(y.AsY(), shift.AsY(), y.AsY())
		VPANDQ(mask.AsY(), y.AsY(), y.AsY())
		VPADDW(base.AsY(), y.AsY(), y.AsY())
		VMOVDQU64(y.AsY(), Mem{Base: out})
	}
	VZEROUPPER()
	Label(f.label("steps_done"))
}

// decodeConsts are the constants that the words of decodeRaw take from
// registers: -UnitBase, BadBits and the mask of fieldsWord.
type decodeConsts struct{ bias, bad, hi14 Op }

func newDecodeConsts() decodeConsts { return decodeConsts{GP64(), GP64(), GP64()} }

// tableConsts returns the constants as operands in tailTable's table, whose
// address is in tab: no registers to load, for code that runs once.
func tableConsts(tab reg.GPVirtual) decodeConsts {
	at := func(off int) Mem { return Mem{Base: tab, Disp: off} }
	return decodeConsts{at(tailNegBase), at(tailBad), at(tailHi14)}
}

// load emits the loads of the constants into their registers.
func (c decodeConsts) load() {
	MOVQ(U64(-0x4E004E004E004E00&0xFFFFFFFFFFFFFFFF), c.bias)
	MOVQ(U64(0xC000C000C000C000), c.bad)
	MOVQ(U64(0x0FFFC0000FFFC000), c.hi14)
}

// fieldsWord emits Fields of the generic kernel: w, a group's units less
// UnitBase, becomes the group's 7 bytes at the top (the low byte zero). t
// is scratch.
func fieldsWord(w, t reg.GPVirtual, c decodeConsts) {
	// Each 32-bit half, a<<16 | b, becomes a<<14 | b: minus 3 a<<14.
	MOVQ(w, t)
	SHRQ(U8(2), t)
	ANDQ(c.hi14, t)
	LEAQ(Mem{Base: t, Index: t, Scale: 2}, t)
	SUBQ(t, w)
	// Then w, h<<32 | l, becomes h<<36 | l<<8: w<<4 + 240 l.
	MOVL(w.As32(), t.As32())
	IMUL3Q(U32(240), t, t)
	SHLQ(U8(4), w)
	ADDQ(t, w)
}

// decodeRaw emits decodeRaw or decodeStd. With a checksum a tail goes to
// the Go code, which checks its pad bits (whole groups have none); strict
// makes non-zero pad bits go there.
func decodeRaw(f rawFunc) {
	f.text(f.name+" is "+f.fallback+": small valid inputs in the raw form",
		"here, the rest by a jump to it.")
	fallback := f.ref("go")
	var later []func() // code out of line, emitted at the end

	// 4 <= n < 8*rawLargeGroups, n even (the tiny code checks n up to 10);
	// the rest (empty input too) is the Go code's.
	n, g, r, t := GP64(), GP64(), GP64(), GP64()
	Load(Param("src").Len(), n)
	src := GP64()
	Load(Param("src").Base(), src)
	c, dst, dlen, w := newDecodeConsts(), GP64(), GP64(), GP64()
	CMPQ(n, U8(10))
	JBE(f.ref("tiny"))
	CMPQ(n, U32(8*rawLargeGroups))
	JAE(fallback)
	TESTQ(U32(1), n)
	JNZ(fallback)

	// The shape: g groups, then r bytes in k units and the marker. With a
	// marker, 2k = n - 2 - 8g fixes k by n alone, so that the tail's loads
	// need not wait for the marker: the tail is m + 4 = ((n-4)&6) + 4
	// bytes, g = (n-4)>>3, and r must be one of those tailTable's word
	// for a tail alone of m + 4 bytes allows.
	CMPB(Mem{Base: src, Index: n, Scale: 1, Disp: -2}, U8(0x3D))
	JNE(f.ref("whole"))
	tab, m := GP64(), GP64()
	LEAQ(tailTable(), tab)
	LEAQ(Mem{Base: n, Disp: -4}, m)
	ANDQ(U8(6), m)
	MOVBQZX(Mem{Base: src, Index: n, Scale: 1, Disp: -1}, r)
	CMPQ(r, U8(7))
	JA(fallback)
	MOVQ(Mem{Base: tab, Index: m, Scale: 8, Disp: tailValid + 32}, t)
	BTQ(r, t)
	JCC(fallback)
	LEAQ(Mem{Base: n, Disp: -4}, g)
	SHRQ(U8(3), g)
	// Whole groups alone out of line: most sizes have a tail, whose path
	// then takes no jump.
	later = append(later, func() {
		Label(f.label("whole"))
		XORL(r.As32(), r.As32())
		TESTQ(U32(7), n)
		JNZ(fallback)
		MOVQ(n, g)
		SHRQ(U8(3), g)
		JMP(f.ref("shaped"))
	})
	Label(f.label("shaped"))
	size := GP64()
	LEAQ(Mem{Base: g, Index: g, Scale: 2}, size)
	LEAQ(Mem{Base: g, Index: size, Scale: 2}, size) // 7g
	ADDQ(r, size)
	f.claimDst(dst, dlen, size, t, fallback)

	// g >= 1 here: a tail alone went to tiny below.
	i := GP64()
	XORL(i.As32(), i.As32())
	CMPB(useAVX512, U8(0))
	JE(f.ref("scalar"))
	CMPQ(g, U8(4))
	JAE(f.ref("steps"))
	// Whole groups alone (7, 14, 21 bytes) go as fast a word at a time.
	TESTQ(r, r)
	JZ(f.ref("scalar"))
	decodeRawSmall(f, src, dst, n, size)
	Label(f.label("steps"))
	decodeRawSteps(f, src, dst, g, i)
	IMUL3Q(U8(7), g, t)
	ADDQ(t, dst)
	SUBQ(t, dlen)
	JMP(f.ref("tail"))
	// Without AVX-512, or a path of it that did not suit: 1 to 3 groups
	// and a tail in one AVX2 step where it suits, 4 groups or more with
	// the AVX2 kernels' steps (both out of line), the rest as words.
	Label(f.label("scalar"))
	CMPQ(g, U8(4))
	JB(f.ref("few"))
	CMPB(useAVX2, U8(0))
	JNE(f.ref("avx2"))
	CMPQ(g, U8(rawLargeScalar))
	JAE(fallback)
	later = append(later, func() {
		Label(f.label("few"))
		decodeRawSmallAVX2(f, src, dst, n, size, r)
	})
	Label(f.label("words"))
	c.load()
	CMPB(useBMI2, U8(0))
	JE(f.ref("words_slow"))
	decodeWords(f, "pext", src, dst, dlen, g, i, w, c, &later, true, func() { fieldsBMI2(w) })
	later = append(later, func() {
		Label(f.label("words_slow"))
		decodeWords(f, "words_shift", src, dst, dlen, g, i, w, c, &later, false, func() { fieldsWord(w, t, c) })
	}, func() {
		Label(f.label("avx2"))
		k := f.avx2Kernel(src, dst, g, 32, 28)
		newAVX2Decoder().decode(k, g, f.ref("vgo"))
		f.kernelDone(k)
	})

	// The tail (n >= 12 here), dst and dlen the room from its first byte:
	// its k units, the 8 bytes before the marker, moved to the top of w by
	// a multiply, zeros below. The words with pext fall through to it.
	Label(f.label("tail"))
	TESTQ(r, r)
	JZ(f.ref("return"))
	// (The shape's tab and m again: keeping them across the groups would
	// take two registers from the steps and words.)
	LEAQ(tailTable(), tab)
	LEAQ(Mem{Base: n, Disp: -4}, m)
	ANDQ(U8(6), m) // the tail's bytes, marker included, less 4
	MOVQ(Mem{Base: src, Index: n, Scale: 1, Disp: -10}, w)
	BSWAPQ(w)
	IMULQ(Mem{Base: tab, Index: m, Scale: 8, Disp: tailShift}, w)
	SUBQ(Mem{Base: tab, Index: m, Scale: 8, Disp: tailBias}, w)
	// The units' code twice, for the tail here and for a tail alone
	// below, so that neither jumps to it.
	tc := tableConsts(tab)
	units := func(name string) {
		Label(f.label(name))
		TESTQ(w, tc.bad)
		JNZ(fallback)
		f.withBMI2(name, &later, func() { fieldsBMI2(w) }, func() { fieldsWord(w, t, tc) })
		if !f.std {
			f.jumpIfOption(optStrict|optChecksum, f.ref("options"))
			Label(f.label(name + "_store"))
		}
		BSWAPQ(w)
		CMPQ(dlen, U8(8))
		JB(f.ref("exact"))
		MOVQ(w, Mem{Base: dst})
		f.returnOK()
	}
	units("tail_units")

	Label(f.label("return"))
	f.returnOK()

	// A tail alone, 1 to 6 bytes in n = 4 to 10 (the shortest messages):
	// n = 2k + 2 fixes the k units, and r must be 2k-2 or 2k-1 (n-4 or n-3)
	// and 1..6, a bit of the word at tailValid + 8n. The units are loaded
	// at the top of w and masked, zeros below, for the tail's code that
	// follows.
	Label(f.label("tiny"))
	valid := GP64()
	LEAQ(tailTable(), tab)
	MOVQ(Mem{Base: tab, Index: n, Scale: 8, Disp: tailValid}, valid)
	TESTQ(valid, valid)
	JZ(fallback) // n is not 4, 6, 8 or 10
	CMPB(Mem{Base: src, Index: n, Scale: 1, Disp: -2}, U8(0x3D))
	JNE(f.ref("group"))
	MOVBQZX(Mem{Base: src, Index: n, Scale: 1, Disp: -1}, r)
	CMPQ(r, U8(7))
	JA(fallback)
	BTQ(r, valid)
	JCC(fallback)
	f.claimDst(dst, dlen, r, t, fallback)
	// 4 bytes below n = 8 (1 to 3 bytes decoded), 8 from there.
	CMPQ(n, U8(8))
	JAE(f.ref("tiny8"))
	MOVL(Mem{Base: src}, w.As32())
	BSWAPL(w.As32())
	SHLQ(U8(32), w)
	Label(f.label("tinymask"))
	ANDQ(Mem{Base: tab, Index: n, Scale: 8, Disp: tailMask - 32}, w)
	SUBQ(Mem{Base: tab, Index: n, Scale: 8, Disp: tailBias - 32}, w)

	// The tail's k units less UnitBase at the top of w, zeros below, to
	// its r bytes at dst, with dlen bytes of room.
	units("units")
	// Exactly r bytes: two stores that overlap unless r is 2 or 4.
	Label(f.label("exact"))
	CMPQ(r, U8(2))
	JB(f.ref("exact1"))
	CMPQ(r, U8(4))
	JB(f.ref("exact2"))
	storeEnds(w, dst, r, 4)
	f.returnOK()
	Label(f.label("exact2"))
	storeEnds(w, dst, r, 2)
	f.returnOK()
	Label(f.label("exact1"))
	MOVB(w.As8(), Mem{Base: dst})
	f.returnOK()

	Label(f.label("tiny8"))
	MOVQ(Mem{Base: src}, w)
	BSWAPQ(w)
	JMP(f.ref("tinymask"))

	if !f.std {
		// A checksum is the Go code's; strict: the pad bits, all those
		// past the tail's r bytes, are zero.
		Label(f.label("options"))
		f.jumpIfOption(optChecksum, fallback)
		TESTQ(w, Mem{Base: tab, Index: r, Scale: 8, Disp: tailPad})
		JNZ(fallback)
		JMP(f.ref("units_store")) // the same code as tail_units_store
	}

	// No marker in 4 to 10 bytes: one group (7 bytes).
	Label(f.label("group"))
	CMPQ(n, U8(8))
	JNE(fallback)
	MOVL(U32(7), size.As32())
	f.claimDst(dst, dlen, size, t, fallback)
	decodeGroup(f, Mem{Base: src}, w, tc, func() {
		f.withBMI2("group", &later, func() { fieldsBMI2(w) }, func() { fieldsWord(w, t, tc) })
	})
	f.storeGroup("group7", w, dst, dlen, &later, f.returnOK, "")

	// (Code emitted here may add to later.)
	for i := 0; i < len(later); i++ {
		later[i]()
	}
	Label(f.label("go"))
	tailJump("·" + f.fallback)

	Label(f.label("vgo"))
	VZEROUPPER()
	tailJump("·" + f.fallback)
}

// encodeWords emits the words of encodeRaw: the full >= 1 groups a byte
// follows, from group i = 0 of src (at byte o = 0), a group at a time,
// each loaded as 8 bytes, units emitting Units of x, into dst; then a jump
// to the label last. name names its labels.
func encodeWords(f rawFunc, name string, src, dst, full, i, o, x reg.GPVirtual, units func()) {
	Label(f.label(name))
	MOVQ(Mem{Base: src, Index: o, Scale: 1}, x)
	BSWAPQ(x)
	units()
	BSWAPQ(x)
	MOVQ(x, Mem{Base: dst, Index: i, Scale: 8})
	ADDQ(U8(7), o)
	INCQ(i)
	CMPQ(i, full)
	JB(f.ref(name))
	JMP(f.ref("last"))
}

// decodeWords emits the words of decodeRaw: the g >= 1 groups from group
// i = 0 of src, a group at a time, into dst, with dlen bytes of room, fields
// emitting Fields of w; every group but the last stored as 8 bytes, which
// the next group's overwrite, the last as 8 where the room allows. It
// leaves dst and dlen the room past the groups, g zero, and goes on at the
// label tail: by falling through to it when toTail is set (the tail's code
// follows), else by a jump. Code out of line goes to later. name names its
// labels.
func decodeWords(f rawFunc, name string, src, dst, dlen, g, i, w reg.GPVirtual, c decodeConsts, later *[]func(), toTail bool, fields func()) {
	at := Mem{Base: src, Index: i, Scale: 8}
	next := func() {
		ADDQ(U8(7), dst)
		SUBQ(U8(7), dlen)
	}
	// The groups before the last out of line: one group alone (8 bytes
	// of input with a tail) takes no jump.
	DECQ(g)
	JNZ(f.ref(name))
	*later = append(*later, func() {
		Label(f.label(name))
		decodeGroup(f, at, w, c, fields)
		MOVQ(w, Mem{Base: dst})
		next()
		INCQ(i)
		DECQ(g)
		JNZ(f.ref(name))
		JMP(f.ref(name + "_last"))
	})
	Label(f.label(name + "_last"))
	decodeGroup(f, at, w, c, fields)
	f.storeGroup(name+"_seven", w, dst, dlen, later, next, "tail")
	if !toTail {
		JMP(f.ref("tail"))
	}
}

// decodeGroup emits the decoding of the group at at into w, its 7 bytes in
// memory order, fields emitting Fields of w; a bad unit jumps to the Go
// code.
func decodeGroup(f rawFunc, at Mem, w reg.GPVirtual, c decodeConsts, fields func()) {
	MOVQ(at, w)
	BSWAPQ(w)
	ADDQ(c.bias, w)
	TESTQ(w, c.bad)
	JNZ(f.ref("go"))
	fields()
	BSWAPQ(w)
}

// storeGroup emits the store of a decoded group, w, at dst, as 8 bytes
// where dlen leaves room for them and else as exactly 7, out of line (in
// later, from the label seven), each followed by then. The 8 bytes' code
// falls through after then; the 7 bytes' jumps to the label to after it,
// unless to is empty (then must not fall through).
func (f rawFunc) storeGroup(seven string, w, dst, dlen reg.GPVirtual, later *[]func(), then func(), to string) {
	CMPQ(dlen, U8(8))
	JB(f.ref(seven))
	MOVQ(w, Mem{Base: dst})
	then()
	*later = append(*later, func() {
		Label(f.label(seven))
		storeSeven(w, Mem{Base: dst})
		then()
		if to != "" {
			JMP(f.ref(to))
		}
	})
}

// storeEnds emits the store of the first r bytes of w (in memory order) at
// dst, for width <= r <= 2*width: width bytes at dst and the width bytes
// that end at dst+r, which overlap unless r is 2*width. It changes w and
// CX.
func storeEnds(w, dst, r reg.GPVirtual, width int) {
	store, part := MOVL, w.As32()
	if width == 2 {
		store, part = MOVW, w.As16()
	}
	store(part, Mem{Base: dst})
	LEAQ(Mem{Base: r, Disp: -width}, reg.RCX)
	SHLQ(U8(3), reg.RCX)
	SHRQ(reg.CL, w)
	store(part, Mem{Base: dst, Index: r, Scale: 1, Disp: -width})
}

// storeSeven emits the store of the 7 bytes of w (in memory order) at at:
// two 4-byte stores that overlap at byte 3. It changes w.
func storeSeven(w reg.GPVirtual, at Mem) {
	MOVL(w.As32(), at)
	SHRQ(U8(24), w)
	MOVL(w.As32(), at.Offset(3))
}

// tailTable returns the table of the tail's code in decodeRaw. For a tail
// of k units, its m = 2k + 2 bytes with the marker (4 to 10), the word at
// tailMask + 8(m-4) keeps the top 16k bits, the one at tailBias + 8(m-4)
// is UnitBase in those bits and the one at tailShift + 8(m-4) is
// 2^(64-16k), which moves them there from the bottom; for a tail of r
// bytes, the word at tailPad + 8r holds the bits of a decoded word past
// them. The word at tailValid + 8n has bit r set when a tail alone of r
// bytes is n bytes long; then come -UnitBase, BadBits and the mask of
// fieldsWord (tableConsts), and the mask of pdep and pext (lanes).
func tailTable() Mem {
	b := make([]byte, tailLanes+8)
	for m := 4; m <= 10; m += 2 {
		k := uint((m - 2) / 2)
		mask := ^uint64(0) << (64 - 16*k)
		binary.LittleEndian.PutUint64(b[tailMask+8*(m-4):], mask)
		binary.LittleEndian.PutUint64(b[tailBias+8*(m-4):], 0x4E004E004E004E00&mask)
		binary.LittleEndian.PutUint64(b[tailShift+8*(m-4):], 1<<(64-16*k))
	}
	for r := 1; r < 8; r++ {
		binary.LittleEndian.PutUint64(b[tailPad+8*r:], 1<<(64-8*uint(r))-1)
	}
	for r := 1; r <= 6; r++ {
		// A tail alone of r bytes: n = 2k + 2 = (r+2)&^1 + 2.
		n := (r+2)&^1 + 2
		b[tailValid+8*n] |= 1 << r
	}
	binary.LittleEndian.PutUint64(b[tailNegBase:], -0x4E004E004E004E00&0xFFFFFFFFFFFFFFFF)
	binary.LittleEndian.PutUint64(b[tailBad:], 0xC000C000C000C000)
	binary.LittleEndian.PutUint64(b[tailHi14:], 0x0FFFC0000FFFC000)
	binary.LittleEndian.PutUint64(b[tailLanes:], 0x3FFF3FFF3FFF3FFF)
	return table("rawDecTail", b)
}

// The offsets of the parts of tailTable's table.
const (
	tailMask    = 0
	tailBias    = 8 * 8
	tailShift   = 2 * 8 * 8
	tailPad     = 3 * 8 * 8
	tailValid   = 4 * 8 * 8
	tailNegBase = tailValid + 8*11
	tailBad     = tailNegBase + 8
	tailHi14    = tailBad + 8
	tailLanes   = tailHi14 + 8
)

// decodeRawSmall emits the AVX-512 path of decodeRaw for 1 to 3 groups
// and a tail (n <= 32 bytes, size the decoded length): one load of the
// units masked to their bytes (the marker left out), one step on 256-bit
// registers that checks the units loaded and decodes them, and one store
// masked to the decoded bytes. The tail's units go through the step as a
// group whose missing units are zeros: its first r bytes are those of its
// units alone, and the store leaves out the rest. It jumps to the label
// scalar, and the words, where the accesses' 32 bytes would reach into the
// next page (a masked access whose masked-off bytes do takes a microcode
// assist; see docs/asm.md) and, in the method form, when the Encoding is
// strict or has a checksum (the tail's word code sees to them).
func decodeRawSmall(f rawFunc, src, dst, n, size reg.GPVirtual) {
	scalar := f.ref("scalar")
	f.jumpIfOption(optStrict|optChecksum, scalar)
	t := GP64()
	jumpIfPageEnd(src, t, scalar)
	jumpIfPageEnd(dst, t, scalar)
	// The units' bytes: all but the marker's 2.
	LEAQ(Mem{Base: n, Disp: -2}, t)
	ones, m := GP64(), GP64()
	load, store, bad := K(), K(), K()
	MOVQ(I32(-1), ones)
	BZHIQ(t, ones, m)
	KMOVD(m.As32(), load)
	BZHIQ(size, ones, m)
	KMOVD(m.As32(), store)
	d := newAVX512Decoder("rawDec", reg.VecVirtual.AsY)
	x := ZMM()
	VMOVDQU8_Z(Mem{Base: src}, load, x.AsY())
	VPADDB(d.bias.AsY(), x.AsY(), x.AsY())
	VPTESTMB(d.test.AsY(), x.AsY(), load, bad)
	KORTESTD(bad, bad)
	JNZ(f.ref("vgo"))
	d.bytes(x, reg.VecVirtual.AsY)
	VMOVDQU8(x.AsY(), store, Mem{Base: dst})
	VZEROUPPER()
	f.returnOK()
}

// jumpIfPageEnd emits a jump to to where the 32 bytes at p reach into the
// next page. t is scratch.
func jumpIfPageEnd(p, t reg.GPVirtual, to LabelRef) {
	MOVL(p.As32(), t.As32())
	ANDL(U32(0xFFF), t.As32())
	CMPL(t.As32(), U32(0x1000-32))
	JA(to)
}

// decodeRawSmallAVX2 emits the AVX2 path of decodeRaw for 1 to 3 groups
// and a tail (n <= 34 bytes, size the decoded length, 8 to 27 bytes), for
// machines without AVX-512: one 32-byte load of the units, the bytes past
// them (the marker's, and those after it) masked to zeros, and one AVX2
// step that checks and decodes them, each 128-bit lane's 2 groups to 14
// bytes. The tail's units go through the step as a group whose missing
// units are zeros, as in decodeRawSmall. It stores exactly the size bytes,
// as two stores that overlap: the first 16 bytes and the 16 that end the
// output, gathered from both lanes by a shuffle each (8 and 8 below 16
// bytes). It goes on at the label words, with words, without a tail (whole
// groups go as fast a word at a time), without AVX2, when the load would
// reach into the next page, and in the method form when the Encoding is
// strict or has a checksum.
func decodeRawSmallAVX2(f rawFunc, src, dst, n, size, r reg.GPVirtual) {
	words := f.ref("words")
	TESTQ(r, r)
	JZ(words)
	CMPB(useAVX2, U8(0))
	JE(words)
	f.jumpIfOption(optStrict|optChecksum, words)
	t := GP64()
	jumpIfPageEnd(src, t, words)
	d := avx2DecoderTables(true)
	x, hi, end := reg.Y7, reg.X9, reg.X10
	// The mask of the units' bytes, n-2 of them: at 34-n in a table of 32
	// bytes of ones and 32 of zeros.
	LEAQ(table("rawDecAVX2Mask", append(repeat([]byte{0xFF}, 32), make([]byte, 32)...)), t)
	SUBQ(n, t)
	VMOVDQU(Mem{Base: src}, x)
	VPADDB(d.bias, x, x)
	VPAND(Mem{Base: t, Disp: 34}, x, x)
	VPTEST(d.test, x)
	JNZ(f.ref("vgo"))
	d.bytes(x, table("decAVX2Pack", decAVX2Pack(false)))
	// The 16 bytes that end the output, byte j the output's size-16+j:
	// from lane 0 (bytes 0 to 13) and lane 1 (14 to 27) by the shuffles
	// at size in rawDecAVX2End's two halves; lane 0's alone up to 14.
	LEAQ(table("rawDecAVX2End", decAVX2End()), t)
	ADDQ(size, t)
	VPSHUFB(Mem{Base: t}, x.AsX(), end)
	CMPQ(size, U8(14))
	JBE(f.ref("small_avx2_short"))
	VEXTRACTI128(U8(1), x, hi)
	VPSHUFB(Mem{Base: t, Disp: 48}, hi, hi)
	VPOR(hi, end, end)
	CMPQ(size, U8(16))
	JB(f.ref("small_avx2_short"))
	VMOVDQU(x.AsX(), Mem{Base: dst})
	VMOVDQU(end, Mem{Base: dst, Index: size, Scale: 1, Disp: -16})
	VZEROUPPER()
	f.returnOK()
	Label(f.label("small_avx2_short"))
	VMOVQ(x.AsX(), Mem{Base: dst})
	VPEXTRQ(U8(1), end, Mem{Base: dst, Index: size, Scale: 1, Disp: -8})
	VZEROUPPER()
	f.returnOK()
}

// decAVX2End returns the two vpshufb tables of decodeRawSmallAVX2, 48
// bytes each, whose 16 bytes at size (8 to 27) gather the 16 bytes that
// end an output of size bytes from the two lanes of a decoded step: the
// first from lane 0, the output's bytes 0 to 13, the second from lane 1,
// its bytes 14 to 27.
func decAVX2End() []byte {
	const z = 0x80 // pshufb index giving a zero byte
	var b []byte
	for _, first := range []int{0, 14} {
		for i := range 48 {
			// At size, byte j is the output's size-16+j.
			if k := i - 16 - first; k >= 0 && k < 14 {
				b = append(b, byte(k))
			} else {
				b = append(b, z)
			}
		}
	}
	return b
}

// eightGroupSteps emits the loop of 8-group steps over groups i to g of f
// (g >= 8), the last step moved back to end at group g, then VZEROUPPER and
// a jump to the label steps_done; step emits one step at group i. last is a
// register the loop may use.
func (f rawFunc) eightGroupSteps(g, i, last reg.GPVirtual, step func()) {
	LEAQ(Mem{Base: g, Disp: -8}, last)
	// The loop on a line of its own, so that its speed does not move with
	// the code before it.
	pcalign(32)
	Label(f.label("z"))
	CMPQ(i, last)
	JB(f.ref("zstep"))
	MOVQ(last, i)
	Label(f.label("zstep"))
	step()
	ADDQ(U8(8), i)
	CMPQ(i, g)
	JB(f.ref("z"))
	VZEROUPPER()
	JMP(f.ref("steps_done"))
}

// avx2Kernel returns the kernel of f's AVX2 steps over the g groups at src
// and dst, its pointers and count in registers of its own, the step
// reading in bytes and writing out.
func (f rawFunc) avx2Kernel(src, dst, g reg.GPVirtual, in, out int) kernel {
	k := kernel{name: f.label("avx2"), dst: GP64(), src: GP64(), left: GP64(), groups: 4, in: in, out: out}
	MOVQ(src, k.src)
	MOVQ(dst, k.dst)
	MOVQ(g, k.left)
	return k
}

// kernelDone emits the end of k's loops in f: VZEROUPPER and a jump to the
// label steps_done.
func (f rawFunc) kernelDone(k kernel) {
	Label(string(k.returnLabel()))
	VZEROUPPER()
	JMP(f.ref("steps_done"))
}

// decodeRawSteps emits the AVX-512 steps of decodeRaw for g >= 4 groups:
// 8-group steps, the last moved back to end at the last group, or two
// 4-group steps; a step holding a bad unit jumps to decodeRaw_vgo. It ends
// with VZEROUPPER.
func decodeRawSteps(f rawFunc, src, dst, g, i reg.GPVirtual) {
	d := newAVX512Decoder("rawDec", reg.VecVirtual.AsZ)
	vfail := f.ref("vgo")

	last, in, out := GP64(), GP64(), GP64()
	CMPQ(g, U8(8))
	JB(f.ref("y"))
	f.eightGroupSteps(g, i, last, func() {
		LEAQ(Mem{Base: src, Index: i, Scale: 8}, in)
		IMUL3Q(U8(7), i, out)
		ADDQ(dst, out)
		d.exactStep(Mem{Base: in}, Mem{Base: out}, vfail)
	})

	// 4 to 7 groups: steps at group 0 and group g-4, each 28 bytes stored
	// as [0:16] and [12:28].
	Label(f.label("y"))
	LEAQ(Mem{Base: g, Disp: -4}, last)
	for _, at := range []reg.Register{nil, last} {
		if at == nil {
			MOVQ(src, in)
			MOVQ(dst, out)
		} else {
			LEAQ(Mem{Base: src, Index: at, Scale: 8}, in)
			IMUL3Q(U8(7), at, out)
			ADDQ(dst, out)
		}
		x, y, bad := ZMM(), ZMM(), K()
		VPADDB(Mem{Base: in}, d.bias.AsY(), x.AsY())
		VPTESTMB(d.test.AsY(), x.AsY(), bad)
		KORTESTD(bad, bad)
		JNZ(vfail)
		d.bytes(x, reg.VecVirtual.AsY)
		VALIGND(U8(3), x.AsY(), x.AsY(), y.AsY())
		VMOVDQU64(x.AsX(), Mem{Base: out})
		VMOVDQU64(y.AsX(), Mem{Base: out, Disp: 12})
	}
	VZEROUPPER()
	Label(f.label("steps_done"))
}
