package main

import (
	"encoding/binary"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

const (
	// prefetchFrom is the input size in bytes from which the kernels
	// prefetch: below it, input and output stay in L1 and the prefetch
	// instructions only cost issue slots.
	prefetchFrom = 16 << 10
	// prefetchAhead is how far ahead of the current input the kernels
	// prefetch, in bytes.
	prefetchAhead = 2 << 10
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
// k.left counting the groups of the failed pass. With prefetch, every pass
// first prefetches the input prefetchAhead bytes ahead, one cache line at a
// time.
func (k kernel) loop(label string, unroll, slack int, prefetch bool, step func(in, out Mem), check func()) {
	top, done := k.name+"_"+label, k.name+"_"+label+"_done"
	Label(top)
	CMPQ(k.left, U32(unroll*k.groups+slack))
	JB(LabelRef(done))
	if prefetch {
		for off := 0; off < unroll*k.in; off += 64 {
			PREFETCHT0(Mem{Base: k.src, Disp: off + prefetchAhead})
		}
	}
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

// loops emits the kernel's loops over n groups: 4 steps a pass with
// prefetch when the input is at least prefetchFrom bytes, 4 steps a pass
// without, then single steps.
func (k kernel) loops(n reg.GPVirtual, slack int, step func(in, out Mem), check func()) {
	small := k.name + "_small"
	CMPQ(n, U32(prefetchFrom/k.in*k.groups))
	JB(LabelRef(small))
	k.loop("prefetch", 4, slack, true, step, check)
	Label(small)
	k.loop("x4", 4, slack, false, step, check)
	k.loop("x1", 1, slack, false, step, check)
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

// table declares a read-only table holding b, whose length is a multiple
// of 8.
func table(name string, b []byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
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
