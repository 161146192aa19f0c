package main

import (
	"encoding/binary"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// kernel holds what the loops of one kernel share: the dst and src
// pointers, the number of groups left and the shape of a step.
type kernel struct {
	name           string
	dst, src, left reg.Register
	groups         int // groups a step handles
	in, out        int // bytes a step reads and writes
}

// newKernel starts the kernel name: it loads the dst and src pointers and
// sets k.left and n to the number of groups, the length of the unit
// buffer (the slice argument units, "dst" or "src") divided by 8. A step
// handles groups groups, reading in and writing out bytes.
func newKernel(name, units string, groups, in, out int) (k kernel, n reg.GPVirtual) {
	k = kernel{
		name:   name,
		dst:    Load(Param("dst").Base(), GP64()),
		src:    Load(Param("src").Base(), GP64()),
		left:   Load(Param(units).Len(), GP64()),
		groups: groups, in: in, out: out,
	}
	SHRQ(U8(3), k.left)
	n = GP64()
	MOVQ(k.left, n)
	return k, n
}

// loop emits a loop that runs unroll steps a pass while at least
// unroll*k.groups+slack groups are left, then advances the pointers. A step
// whose loads or stores reach past its own bytes sets slack so that the
// bytes touched stay inside the buffers. check, if not nil, runs after the
// steps of a pass and before the pointers move, so a failed check leaves
// k.left counting the groups of the failed pass.
func (k kernel) loop(label string, unroll, slack int, step func(in, out Mem), check func()) {
	top, done := k.name+"_"+label, k.name+"_"+label+"_done"
	// The loop on a line of its own, so that its speed does not move with
	// the code before it.
	pcalign(32)
	Label(top)
	CMPQ(k.left, U32(unroll*k.groups+slack))
	JB(LabelRef(done))
	for i := 0; i < unroll; i++ {
		step(Mem{Base: k.src, Disp: i * k.in}, Mem{Base: k.dst, Disp: i * k.out})
	}
	if check != nil {
		check()
	}
	ADDQ(U32(unroll*k.in), k.src)
	ADDQ(U32(unroll*k.out), k.dst)
	SUBQ(U32(unroll*k.groups), k.left)
	JMP(LabelRef(top))
	Label(done)
}

// loops emits the kernel's loops: 4 steps a pass, then single steps.
// (Software prefetch, tried 0.5 to 8 KiB ahead from 16 KiB of input, made
// 1 MiB inputs up to 15% slower and 32 KiB ones no faster here: the
// hardware prefetchers already follow these linear streams.)
func (k kernel) loops(slack int, step func(in, out Mem), check func()) {
	k.loop("x4", 4, slack, step, check)
	k.loop("x1", 1, slack, step, check)
}

// exactTail emits the end of a kernel whose loops leave fewer than
// k.groups+slack groups: with a step's groups or more in all, steps whose
// loads and stores touch exactly their groups' bytes (step), the last one
// moved back to end at the last group, over groups already done; with
// fewer, the masked steps of masked. (Masked loads and stores whose
// masked-off bytes reach into another page, as they do at the end of
// page-aligned buffers, cost a microcode assist of about 200 ns here.)
// A step that returns early does so with k.left counting its own groups.
func (k kernel) exactTail(n reg.GPVirtual, step func(in, out Mem), masked func()) {
	top, full, small := k.name+"_exact", k.name+"_exact_step", k.name+"_masked"
	CMPQ(n, U8(k.groups))
	JB(LabelRef(small))
	Label(top)
	TESTQ(k.left, k.left)
	JZ(k.returnLabel())
	CMPQ(k.left, U8(k.groups))
	JAE(LabelRef(full))
	// Back up over groups - left groups already done.
	back, t := GP64(), GP64()
	MOVQ(U32(k.groups), back)
	SUBQ(k.left, back)
	IMUL3Q(U8(k.in/k.groups), back, t)
	SUBQ(t, k.src)
	IMUL3Q(U8(k.out/k.groups), back, t)
	SUBQ(t, k.dst)
	MOVQ(U32(k.groups), k.left)
	Label(full)
	step(Mem{Base: k.src}, Mem{Base: k.dst})
	ADDQ(U32(k.in), k.src)
	ADDQ(U32(k.out), k.dst)
	SUBQ(U32(k.groups), k.left)
	JMP(LabelRef(top))
	Label(small)
	masked()
}

// returnLabel is the label of the kernel's epilogue.
func (k kernel) returnLabel() LabelRef { return LabelRef(k.name + "_return") }

// epilogue emits the kernel's return: the groups handled, n - k.left.
func (k kernel) epilogue(n reg.GPVirtual) {
	Label(string(k.returnLabel()))
	SUBQ(k.left, n)
	Store(n, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// pcalign emits the padding that puts the next instruction at a multiple
// of n bytes. A label right before a PCALIGN would get a wrong address
// (go.dev/issue/74648): the zero-width NOP before it keeps any label off.
func pcalign(n uint64) {
	NOP()
	Instruction(&ir.Instruction{Opcode: "PCALIGN", Operands: []Op{Imm(n)}})
}

// tables are the tables declared, by name.
var tables = map[string]Mem{}

// table declares a read-only table holding b, whose length is a multiple
// of 8, or returns the one declared before under name.
func table(name string, b []byte) Mem {
	if m, ok := tables[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	tables[name] = m
	for i := 0; i < len(b); i += 8 {
		DATA(i, U64(binary.LittleEndian.Uint64(b[i:])))
	}
	return m
}

// repeat returns pattern repeated to n bytes.
func repeat(pattern []byte, n int) []byte {
	b := make([]byte, 0, n)
	for len(b) < n {
		b = append(b, pattern...)
	}
	return b[:n]
}

// words returns the little-endian bytes of 16-bit lanes.
func words(w ...uint16) []byte {
	b := make([]byte, 0, 2*len(w))
	for _, x := range w {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}
