//go:build unix

package difftest

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
)

// Kind names an operation.
type Kind string

// The kinds of operations. Those up to KindSeek act on the descriptor in
// an Op's Slot, the others on its Name.
const (
	KindOpen      Kind = "open"      // OpenFile(Name, Flag, 0644) into Slot
	KindClose     Kind = "close"     // Close
	KindRead      Kind = "read"      // Read of Len bytes
	KindReadAt    Kind = "pread"     // ReadAt of Len bytes at Off
	KindWrite     Kind = "write"     // Write of Len bytes of Op.Data
	KindWriteAt   Kind = "pwrite"    // WriteAt of Len bytes of Op.Data at Off
	KindFtruncate Kind = "ftruncate" // Truncate to Off bytes
	KindFsync     Kind = "fsync"     // Sync
	KindFstat     Kind = "fstat"     // Stat
	KindSeek      Kind = "seek"      // Seek to Off from Whence
	KindTruncate  Kind = "truncate"  // Truncate(Name, Off)
	KindRename    Kind = "rename"    // Rename(Name, To)
	KindRemove    Kind = "remove"    // Remove(Name)
	KindStat      Kind = "stat"      // Stat(Name)
	KindReadFile  Kind = "readfile"  // ReadFile(Name)
	KindLink      Kind = "link"      // Link(Name, To), with Config.Links
	KindLinks     Kind = "nlink"     // Links(Name), with Config.Links
)

// onSlot reports whether k acts on a descriptor rather than a name.
func (k Kind) onSlot() bool {
	switch k {
	case KindTruncate, KindRename, KindRemove, KindStat, KindReadFile, KindLink, KindLinks:
		return false
	}
	return true
}

// An Op is one operation of a sequence. Its fields are plain values, so
// that fmt's %#v prints it as a Go literal.
type Op struct {
	Index  int    // position in the sequence, which selects the data written
	Kind   Kind   //
	Slot   int    // the descriptor slot of a descriptor's operation
	Name   string // the file of an open or an operation by name
	To     string // the new name of a rename or a link
	Flag   int    // the flags of an open
	Off    int64  // the offset of a pread, pwrite or seek, or the size of a truncate
	Whence int    // the whence of a seek: io.SeekStart, io.SeekCurrent or io.SeekEnd
	Len    int    // the byte count of a read or write
}

// String returns the operation as, for example, "#12 pwrite [3] off=100 len=7".
func (op Op) String() string {
	s := fmt.Sprintf("#%d %s", op.Index, op.Kind)
	if op.Kind.onSlot() {
		s += fmt.Sprintf(" [%d]", op.Slot)
	}
	switch op.Kind {
	case KindOpen:
		s += " " + op.Name + " " + flagString(op.Flag)
	case KindRead, KindWrite:
		s += fmt.Sprintf(" len=%d", op.Len)
	case KindReadAt, KindWriteAt:
		s += fmt.Sprintf(" off=%d len=%d", op.Off, op.Len)
	case KindFtruncate:
		s += fmt.Sprintf(" size=%d", op.Off)
	case KindSeek:
		whence := fmt.Sprint(op.Whence)
		if op.Whence >= 0 && op.Whence < 3 {
			whence = [...]string{"SEEK_SET", "SEEK_CUR", "SEEK_END"}[op.Whence]
		}
		s += fmt.Sprintf(" off=%d whence=%s", op.Off, whence)
	case KindTruncate:
		s += fmt.Sprintf(" %s size=%d", op.Name, op.Off)
	case KindRename, KindLink:
		s += " " + op.Name + " " + op.To
	case KindRemove, KindStat, KindReadFile, KindLinks:
		s += " " + op.Name
	}
	return s
}

func flagString(flag int) string {
	s := [...]string{"O_RDONLY", "O_WRONLY", "O_RDWR", "O_WRONLY|O_RDWR"}[flag&accessMode]
	for _, f := range []struct {
		flag int
		name string
	}{{os.O_CREATE, "O_CREATE"}, {os.O_EXCL, "O_EXCL"}, {os.O_TRUNC, "O_TRUNC"}, {os.O_APPEND, "O_APPEND"}} {
		if flag&f.flag != 0 {
			s += "|" + f.name
		}
	}
	return s
}

const accessMode = os.O_RDONLY | os.O_WRONLY | os.O_RDWR

// recordSize is the length of the records of Op.Data.
const recordSize = 16

// Data returns the Len bytes a write writes: 16-byte records such as
// "#12+32..........", which name the operation and the offset within its
// data, so that misplaced data shows where it came from.
func (op Op) Data() []byte {
	b := make([]byte, 0, op.Len+recordSize)
	for pos := 0; len(b) < op.Len; pos += recordSize {
		end := len(b) + recordSize - 1
		b = strconv.AppendInt(append(b, '#'), int64(op.Index), 10)
		b = strconv.AppendInt(append(b, '+'), int64(pos), 10)
		b = b[:min(len(b), end)]
		for len(b) < end {
			b = append(b, '.')
		}
		b = append(b, '\n')
	}
	return b[:op.Len]
}

// Ops returns the sequence Run applies for cfg: cfg.Ops random operations,
// a check after every cfg.CheckEvery of them (a stat and a readfile of
// every name, and its link count with cfg.Links; an fstat of every open
// descriptor), then a close of every
// open descriptor and a last check. The sequence depends on nothing but
// cfg, and its first operations on nothing but cfg.Seed and the fields
// that shape operations: with more Ops, a sequence extends the shorter
// one's random operations.
//
// The operations are chosen from a model of the files under POSIX
// semantics, so that offsets fall near the ends of files and descriptor
// operations act on open descriptors; the results of the filesystems play
// no part. Opens never combine O_RDONLY with O_TRUNC, nor O_EXCL with no
// O_CREATE (POSIX leaves both undefined), and WriteAt is never issued on a
// descriptor opened with O_APPEND.
func Ops(cfg Config) []Op {
	cfg = cfg.withDefaults()
	g := &generator{
		cfg:   cfg,
		rng:   rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15)),
		names: map[string]*inode{},
		slots: make([]*desc, cfg.MaxFiles),
	}
	for _, w := range weights {
		if (w.kind != KindLink || cfg.Links) && (w.kind != KindRename || !cfg.NoRename) {
			g.weights = append(g.weights, w)
			g.total += w.weight
		}
	}
	for i := range cfg.Ops {
		g.add(g.next())
		if (i+1)%cfg.CheckEvery == 0 {
			g.check()
		}
	}
	for k, d := range g.slots {
		if d != nil {
			g.add(Op{Kind: KindClose, Slot: k})
		}
	}
	g.check()
	return g.ops
}

// generator builds a sequence over a model of the files.
type generator struct {
	cfg   Config
	rng   *rand.Rand
	names map[string]*inode
	slots []*desc // nil for a free slot
	ops   []Op
	// weights are those of the kinds cfg allows, total their sum.
	weights []weight
	total   int
}

type inode struct{ size int64 }

type desc struct {
	ino  *inode
	flag int
	off  int64
}

func (d *desc) readable() bool { return d.flag&accessMode != os.O_WRONLY }
func (d *desc) writable() bool { return d.flag&accessMode != os.O_RDONLY }

// A weight is the relative frequency of a kind of random operation.
type weight struct {
	kind   Kind
	weight int
}

// weights are the relative frequencies of the random operations. A link
// comes only with Config.Links, and adds itself to the others, so that
// the sequences without links stay those they were.
var weights = []weight{
	{KindOpen, 8}, {KindClose, 4}, {KindRead, 8}, {KindReadAt, 8},
	{KindWrite, 10}, {KindWriteAt, 10}, {KindFtruncate, 3}, {KindFsync, 2},
	{KindFstat, 3}, {KindSeek, 4}, {KindTruncate, 2}, {KindRename, 2},
	{KindRemove, 2}, {KindStat, 2}, {KindReadFile, 2}, {KindLink, 3},
}

// next returns a random operation.
func (g *generator) next() Op {
	r := g.rng.IntN(g.total)
	kind := g.weights[len(g.weights)-1].kind
	for _, w := range g.weights {
		if r < w.weight {
			kind = w.kind
			break
		}
		r -= w.weight
	}
	var open, free []int
	for k, d := range g.slots {
		if d != nil {
			open = append(open, k)
		} else {
			free = append(free, k)
		}
	}
	switch {
	case kind == KindOpen && len(free) == 0:
		kind = KindClose
	case kind.onSlot() && kind != KindOpen && len(open) == 0:
		kind = KindOpen
	}
	if kind == KindOpen {
		return g.open(free[g.rng.IntN(len(free))])
	}
	if !kind.onSlot() {
		return g.byName(kind)
	}
	k := g.pick(kind, open)
	return g.onDesc(kind, k, g.slots[k])
}

// pick returns one of the open slots for an operation of the given kind:
// mostly one whose access mode allows it, so that few operations fail.
func (g *generator) pick(kind Kind, open []int) int {
	var fit []int
	for _, k := range open {
		d := g.slots[k]
		switch kind {
		case KindRead, KindReadAt:
			if d.readable() {
				fit = append(fit, k)
			}
		case KindWrite, KindWriteAt, KindFtruncate:
			if d.writable() {
				fit = append(fit, k)
			}
		}
	}
	if len(fit) == 0 || g.chance(0.1) {
		fit = open
	}
	return fit[g.rng.IntN(len(fit))]
}

func (g *generator) name() string { return g.cfg.Names[g.rng.IntN(len(g.cfg.Names))] }

// chance returns true with probability p.
func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func (g *generator) open(k int) Op {
	flag := [...]int{os.O_RDONLY, os.O_WRONLY, os.O_RDWR}[g.rng.IntN(3)]
	if g.chance(0.7) {
		flag |= os.O_CREATE
		if g.chance(0.15) {
			flag |= os.O_EXCL
		}
	}
	if flag&accessMode != os.O_RDONLY && g.chance(0.2) {
		flag |= os.O_TRUNC
	}
	if g.chance(0.25) {
		flag |= os.O_APPEND
	}
	return Op{Kind: KindOpen, Slot: k, Name: g.name(), Flag: flag}
}

func (g *generator) byName(kind Kind) Op {
	op := Op{Kind: kind, Name: g.name()}
	switch kind {
	case KindTruncate:
		var size int64
		if ino := g.names[op.Name]; ino != nil {
			size = ino.size
		}
		op.Off = g.newSize(size)
	case KindRename, KindLink:
		op.To = g.name()
	}
	return op
}

func (g *generator) onDesc(kind Kind, k int, d *desc) Op {
	op := Op{Kind: kind, Slot: k}
	size := d.ino.size
	switch kind {
	case KindRead:
		op.Len = g.length()
	case KindReadAt:
		op.Off, op.Len = g.rng.Int64N(size+101), g.length()
	case KindWrite, KindWriteAt:
		if kind == KindWriteAt && d.flag&os.O_APPEND == 0 {
			op.Off = g.rng.Int64N(min(size+3001, int64(g.cfg.MaxSize)))
		} else {
			op.Kind = KindWrite
		}
		pos := op.Off
		if op.Kind == KindWrite {
			pos = d.off
			if d.flag&os.O_APPEND != 0 {
				pos = size
			}
		}
		op.Len = g.length()
		if d.writable() {
			op.Len = min(op.Len, g.cfg.MaxSize-int(pos))
		}
		if op.Len < 1 { // the file is full: make room instead
			if d.flag&os.O_APPEND != 0 {
				return Op{Kind: KindFtruncate, Slot: k, Off: g.rng.Int64N(size + 1)}
			}
			return Op{Kind: KindSeek, Slot: k, Off: g.rng.Int64N(size + 1), Whence: io.SeekStart}
		}
	case KindFtruncate:
		op.Off = g.newSize(size)
	case KindSeek:
		op.Whence = g.rng.IntN(3)
		switch op.Whence {
		case io.SeekStart:
			op.Off = g.rng.Int64N(size + 101)
		case io.SeekCurrent: // to [-10, size+100]: a negative offset is an error
			op.Off = g.rng.Int64N(size+111) - d.off - 10
		case io.SeekEnd:
			op.Off = g.rng.Int64N(size+111) - size - 10
		}
	}
	return op
}

// length returns the length of a read or write: often small, sometimes
// several pages.
func (g *generator) length() int {
	switch r := g.rng.IntN(10); {
	case r < 5:
		return 1 + g.rng.IntN(64)
	case r < 8:
		return 1 + g.rng.IntN(4096)
	}
	return 1 + g.rng.IntN(20000)
}

// newSize returns a size to truncate a file of the given size to: zero,
// smaller or larger.
func (g *generator) newSize(size int64) int64 {
	switch r := g.rng.IntN(20); {
	case r < 3:
		return 0
	case r < 11:
		return g.rng.Int64N(size + 1)
	}
	return size + g.rng.Int64N(min(5000, max(0, int64(g.cfg.MaxSize)-size))+1)
}

// check adds the operations of a check.
func (g *generator) check() {
	for _, name := range g.cfg.Names {
		g.add(Op{Kind: KindStat, Name: name})
		g.add(Op{Kind: KindReadFile, Name: name})
		if g.cfg.Links {
			g.add(Op{Kind: KindLinks, Name: name})
		}
	}
	for k, d := range g.slots {
		if d != nil {
			g.add(Op{Kind: KindFstat, Slot: k})
		}
	}
}

// add appends op to the sequence and applies it to the model.
func (g *generator) add(op Op) {
	op.Index = len(g.ops)
	g.ops = append(g.ops, op)
	if op.Kind.onSlot() && op.Kind != KindOpen {
		g.applyDesc(op, g.slots[op.Slot])
		return
	}
	ino := g.names[op.Name]
	switch op.Kind {
	case KindOpen:
		create := op.Flag&os.O_CREATE != 0
		if ino == nil && !create || ino != nil && create && op.Flag&os.O_EXCL != 0 {
			return
		}
		if ino == nil {
			ino = &inode{}
			g.names[op.Name] = ino
		}
		d := &desc{ino: ino, flag: op.Flag}
		if op.Flag&os.O_TRUNC != 0 && d.writable() {
			ino.size = 0
		}
		g.slots[op.Slot] = d
	case KindTruncate:
		if ino != nil {
			ino.size = op.Off
		}
	case KindRename:
		// Renaming a name over another of the same file does nothing.
		if ino != nil && g.names[op.To] != ino {
			g.names[op.To] = ino
			delete(g.names, op.Name)
		}
	case KindLink:
		if ino != nil && g.names[op.To] == nil {
			g.names[op.To] = ino
		}
	case KindRemove:
		delete(g.names, op.Name)
	}
}

func (g *generator) applyDesc(op Op, d *desc) {
	switch op.Kind {
	case KindClose:
		g.slots[op.Slot] = nil
	case KindRead:
		if d.readable() {
			d.off += max(0, min(int64(op.Len), d.ino.size-d.off))
		}
	case KindWrite:
		if d.writable() {
			if d.flag&os.O_APPEND != 0 {
				d.off = d.ino.size
			}
			d.off += int64(op.Len)
			d.ino.size = max(d.ino.size, d.off)
		}
	case KindWriteAt:
		if d.writable() {
			d.ino.size = max(d.ino.size, op.Off+int64(op.Len))
		}
	case KindFtruncate:
		if d.writable() {
			d.ino.size = op.Off
		}
	case KindSeek:
		pos := op.Off + [...]int64{0, d.off, d.ino.size}[op.Whence]
		if pos >= 0 {
			d.off = pos
		}
	}
}
