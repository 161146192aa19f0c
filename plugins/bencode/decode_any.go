package bencode

import (
	"math/big"
	"reflect"
)

// Decoding into an `any` and into a Value share their first pass, which
// scans a list or dictionary and records it as nodes (see valueDoc): the
// items of each list and the entries of each dictionary next to each other,
// in an array that holds no pointers. A Value is those nodes. The `any`
// form is then built from them (build): every map at its final size, all
// the lists in one array, the []byte, int64 and []any values boxed into
// interfaces many at a time (see boxer).
//
// The first pass has two forms. scanFast reads the input directly, with no
// Token and no pointer written per token; it accepts exactly what the
// Scanner accepts (and integers that fit the `any` form) and gives up on
// anything else. Then the Scanner scans the value again (scanSlow), which
// reports the same error at the same offset as it always has.

// anyFrom decodes the value begun by tok as an int64 (a *big.Int beyond 64
// bits), a []byte, a []any or a map[string]any.
func (d *decodeState) anyFrom(tok Token) (any, error) {
	switch tok.Kind {
	case Integer:
		if v := anyInt(tok.Value); v != nil {
			return v, nil
		}
		return nil, d.typeError(tok, bigIntPtrType)
	case String:
		return d.bytes(tok.Value), nil
	}
	if err := d.nodes(tok, true, bigIntPtrType); err != nil {
		return nil, err
	}
	return d.build(), nil
}

// anyInt returns the value of an Integer token's digits as an int64, or a
// *big.Int when it does not fit, or nil when it has more than maxBigDigits.
func anyInt(digits []byte) any {
	if n, ok := parseInt(digits); ok {
		return n
	}
	if digitCount(digits) > maxBigDigits {
		return nil
	}
	n, _ := new(big.Int).SetString(string(digits), 10)
	return n
}

// A valueTape holds what the first pass records, and its buffers, kept
// with the decodeState between uses. It holds no pointers, so that keeping
// it in a pool keeps nothing alive, and filling it costs no write barriers.
type valueTape struct {
	nodes   []vnode  // the nodes of the lists and dictionaries closed, then the value's
	pending []vnode  // the nodes of the items and entries of those open
	open    []vframe // the lists and dictionaries open

	// For building the `any` form (when leaves is set): in input order, the
	// strings that are values (not keys), the integers that fit an int64,
	// the number of items of each list; and the number of lists' items.
	leaves bool
	strs   []vnode
	ints   []int64
	lists  []int
	items  int
}

// A vframe is a list or dictionary open in the first pass.
type vframe struct {
	at     int // where its items or entries begin in pending
	off    int // the offset of its 'l' or 'd' in the data
	kind   Kind
	list   int // the index of its length in lists
	keyOff int // the offset of its last key in the data, or -1
	keyLen int
}

// nodes records the value begun by tok, a ListStart or DictStart the
// scanner has just read, in d.vtape; leaves records what build needs. An
// integer too long for a big.Int is an error naming the type t.
func (d *decodeState) nodes(tok Token, leaves bool, t reflect.Type) error {
	vt := &d.vtape
	vt.leaves = leaves
	s := &d.scan
	start := int(tok.Offset - s.base)
	if s.fixed && !slowOnly {
		if end, ok := vt.scanFast(s.data, start, len(s.stack)-1, s.maxDepth, s.lenient); ok {
			// The scanner passes over the value as if it had read it.
			s.stack = s.stack[:len(s.stack)-1]
			s.off = end
			if len(s.stack) == 0 {
				s.done = true
			}
			return nil
		}
	}
	return vt.scanSlow(d, tok, t)
}

// slowOnly makes the first pass always take its slow form, for the tests
// that compare the two.
var slowOnly = false

// scanFast records the value that starts at data[i], with depth lists and
// dictionaries open around it, checking it as a Scanner with the depth limit
// maxDepth does (lenient: as one that accepts keys in any order), and
// returns the offset just past it. It returns ok == false, having recorded
// nothing of use, for anything the Scanner would reject, and for integers
// of more than maxBigDigits digits, which decoding into an `any` refuses.
func (t *valueTape) scanFast(data []byte, i, depth, maxDepth int, lenient bool) (end int, ok bool) {
	nodes, pending, open := t.nodes[:0], t.pending[:0], t.open[:0]
	// (What only building the any form needs is appended to t's fields,
	// which leaves the loop's registers to the rest.)
	t.strs, t.ints, t.lists, t.items = t.strs[:0], t.ints[:0], t.lists[:0], 0
	leaves := t.leaves
	defer func() { t.nodes, t.pending, t.open = nodes, pending, open }()
	for {
		// A value, or the end of a list, starts at data[i].
		if i >= len(data) {
			return 0, false
		}
		switch c := data[i]; {
		case '0' <= c && c <= '9':
			at, n, ok := scanString(data, i)
			if !ok {
				return 0, false
			}
			node := vnode{at, uint64(String)<<kindShift | uint64(n)}
			if leaves {
				t.strs = append(t.strs, node)
			}
			pending = append(pending, node)
			i = at + n
		case c == 'i':
			j := i + 1
			if j < len(data) && data[j] == '-' {
				j++
			}
			digits := j
			for j < len(data) && '0' <= data[j] && data[j] <= '9' {
				j++
			}
			switch {
			case j == len(data) || data[j] != 'e' || j == digits:
				return 0, false
			case data[digits] == '0' && (digits > i+1 || j > digits+1): // -0, leading zero
				return 0, false
			case j-digits > maxBigDigits:
				return 0, false
			}
			if leaves {
				if n, ok := parseInt(data[i+1 : j]); ok {
					t.ints = append(t.ints, n)
				}
			}
			pending = append(pending, vnode{i + 1, uint64(Integer)<<kindShift | uint64(j-i-1)})
			i = j + 1
		case c == 'l' || c == 'd':
			if depth+len(open) >= maxDepth {
				return 0, false
			}
			f := vframe{at: len(pending), off: i, kind: ListStart, keyOff: -1}
			if c == 'd' {
				f.kind = DictStart
			} else if leaves {
				f.list = len(t.lists)
				t.lists = append(t.lists, 0)
			}
			open = append(open, f)
			i++
			if c == 'l' {
				continue
			}
		case c == 'e' && len(open) > 0 && open[len(open)-1].kind == ListStart:
			f := open[len(open)-1]
			open = open[:len(open)-1]
			n := len(pending) - f.at
			if leaves {
				t.lists[f.list] = n
				t.items += n
			}
			node := vnode{f.off, uint64(ListStart)<<kindShift | uint64(n)}
			if n > 0 {
				node.a = len(nodes)
				nodes = append(nodes, pending[f.at:]...)
			}
			pending = append(pending[:f.at], node)
			i++
		default:
			return 0, false
		}
		// A value is complete, or a dictionary has just opened: what comes
		// next in the dictionaries it completes.
		for {
			if len(open) == 0 {
				nodes = append(nodes, pending[0])
				return i, true
			}
			f := &open[len(open)-1]
			if f.kind == ListStart {
				break
			}
			// A key, or the end of the dictionary.
			if i >= len(data) {
				return 0, false
			}
			if c := data[i]; c == 'e' {
				n := (len(pending) - f.at) / 2
				node := vnode{f.off, uint64(DictStart)<<kindShift | uint64(n)}
				if n > 0 {
					node.a = len(nodes)
					nodes = append(nodes, pending[f.at:]...)
				}
				pending = append(pending[:f.at], node)
				open = open[:len(open)-1]
				i++
				continue
			} else if c < '0' || c > '9' {
				return 0, false
			}
			at, n, ok := scanString(data, i)
			if !ok || !lenient && f.keyOff >= 0 && string(data[f.keyOff:f.keyOff+f.keyLen]) >= string(data[at:at+n]) {
				return 0, false
			}
			f.keyOff, f.keyLen = at, n
			pending = append(pending, vnode{at, uint64(String)<<kindShift | uint64(n)})
			i = at + n
			break
		}
	}
}

// scanString returns the offset and length of the bytes of the string that
// starts at data[i], a digit, or ok == false if the Scanner would reject it.
func scanString(data []byte, i int) (at, n int, ok bool) {
	if data[i] == '0' {
		// "0:" is the only length that starts with a zero.
		if i+1 < len(data) && data[i+1] == ':' {
			return i + 2, 0, true
		}
		return 0, 0, false
	}
	j := i
	for ; j < len(data) && '0' <= data[j] && data[j] <= '9'; j++ {
		if n > (maxInt-9)/10 {
			return 0, 0, false
		}
		n = n*10 + int(data[j]-'0')
	}
	if j == len(data) || data[j] != ':' || n > len(data)-j-1 {
		return 0, 0, false
	}
	return j + 1, n, true
}

// scanSlow records the value begun by tok, as scanFast does, reading it from
// the Scanner, which reports the errors scanFast gives up on.
func (t *valueTape) scanSlow(d *decodeState, tok Token, typ reflect.Type) error {
	nodes, pending, open := t.nodes[:0], t.pending[:0], t.open[:0]
	strs, ints, lists, items := t.strs[:0], t.ints[:0], t.lists[:0], 0
	leaves := t.leaves
	defer func() {
		t.nodes, t.pending, t.open = nodes, pending, open
		t.strs, t.ints, t.lists, t.items = strs, ints, lists, items
	}()
	for {
		switch tok.Kind {
		case Integer:
			if digitCount(tok.Value) > maxBigDigits {
				return d.typeError(tok, typ)
			}
			if n, ok := parseInt(tok.Value); ok && leaves {
				ints = append(ints, n)
			}
			pending = append(pending, vnode{d.offset(tok.Value), uint64(Integer)<<kindShift | uint64(len(tok.Value))})
		case String:
			node := vnode{d.offset(tok.Value), uint64(String)<<kindShift | uint64(len(tok.Value))}
			if leaves {
				strs = append(strs, node)
			}
			pending = append(pending, node)
		case Key:
			pending = append(pending, vnode{d.offset(tok.Value), uint64(String)<<kindShift | uint64(len(tok.Value))})
		case ListStart, DictStart:
			f := vframe{at: len(pending), off: int(tok.Offset - d.scan.base), kind: tok.Kind}
			if tok.Kind == ListStart && leaves {
				f.list = len(lists)
				lists = append(lists, 0)
			}
			open = append(open, f)
		case End:
			f := open[len(open)-1]
			open = open[:len(open)-1]
			n := len(pending) - f.at
			if f.kind == ListStart && leaves {
				lists[f.list] = n
				items += n
			}
			node := vnode{f.off, uint64(f.kind)<<kindShift | uint64(n)}
			if n > 0 {
				node.a = len(nodes)
				nodes = append(nodes, pending[f.at:]...)
				if f.kind == DictStart {
					node.b = uint64(DictStart)<<kindShift | uint64(n/2)
				}
			}
			pending = append(pending[:f.at], node)
		}
		if len(open) == 0 {
			nodes = append(nodes, pending[0])
			return nil
		}
		if err := d.scan.read(&tok); err != nil {
			return err
		}
	}
}

// fitsInt64 reports whether the digits of an integer fit an int64.
func fitsInt64(digits []byte) bool {
	_, ok := parseInt(digits)
	return ok
}

// offset returns the offset in d.data of b, a slice of it.
func (d *decodeState) offset(b []byte) int {
	return cap(d.data) - cap(b)
}

// build returns the `any` form of the value recorded in d.vtape, its last
// node.
func (d *decodeState) build() any {
	t := &d.vtape
	nodes := t.nodes
	data := d.shared()
	items := make([]any, t.items) // the items of all the lists
	iList := 0
	listAt := func(int) []any { // called in order: the list starts items
		n := t.lists[iList]
		iList++
		list := items[:n:n]
		items = items[n:]
		return list
	}
	strAt := func(i int) []byte {
		s := t.strs[i]
		return data[s.a : s.a+s.len() : s.a+s.len()]
	}
	intAt := func(i int) int64 { return t.ints[i] }
	boxedLists := boxer[[]any]{count: len(t.lists)}
	boxedStrs := boxer[[]byte]{count: len(t.strs)}
	boxedInts := boxer[int64]{count: len(t.ints)}
	if d.keys == nil {
		d.keys = new(keyCache)
	}
	keys := d.keys

	// The lists and dictionaries being filled, from the top down (so that
	// leaves are met in input order, as they were recorded), on the stack
	// unless deep.
	type frame struct {
		first, n int // the nodes of its items, or keys and values
		i        int // the next to fill
		list     []any
		dict     map[string]any
	}
	var (
		root   any
		frames = make([]frame, 0, 16)
		node   = nodes[len(nodes)-1]
	)
	for {
		// Make the value of node, and for a list or dictionary that is not
		// empty, a frame to fill it.
		var v any
		var f frame
		switch node.kind() {
		case Integer:
			// (As recorded in ints: an integer that fits an int64. 18 bytes
			// always do.)
			if digits := data[node.a : node.a+node.len()]; len(digits) < 19 || fitsInt64(digits) {
				v = boxedInts.next(intAt)
			} else {
				v, _ = new(big.Int).SetString(string(digits), 10)
			}
		case String:
			v = boxedStrs.next(strAt)
		case ListStart:
			list := boxedLists.next(listAt)
			v = list
			if n := node.len(); n > 0 {
				f = frame{first: node.a, n: n, list: list.([]any)}
			}
		case DictStart:
			n := node.len()
			dict := make(map[string]any, n)
			v = dict
			if n > 0 {
				f = frame{first: node.a, n: n, dict: dict}
			}
		}
		// Store v where it goes.
		if len(frames) == 0 {
			root = v
		} else {
			top := &frames[len(frames)-1]
			if top.list != nil {
				top.list[top.i] = v
			} else {
				k := nodes[top.first+2*top.i]
				top.dict[keys.intern(data[k.a:k.a+k.len()])] = v
			}
			top.i++
		}
		if f.n > 0 {
			frames = append(frames, f)
		}
		// The next node to make, leaving the lists and dictionaries filled.
		for len(frames) > 0 {
			top := &frames[len(frames)-1]
			if top.i < top.n {
				if top.list != nil {
					node = nodes[top.first+top.i]
				} else {
					node = nodes[top.first+2*top.i+1]
				}
				break
			}
			frames = frames[:len(frames)-1]
		}
		if len(frames) == 0 {
			return root
		}
	}
}

// release empties t, keeping its buffers unless they grew large.
func (t *valueTape) release() {
	if cap(t.nodes)+cap(t.pending) > 1<<16 {
		*t = valueTape{}
	}
}

// A boxer returns count elements, made one after another by the function
// passed to next, as interface values, boxing them many at a time: it copies
// a run of them into an array held in an interface, and the interface values
// of the array's elements (which reflect makes without copying, the array
// being unaddressable) point into it, so that a run costs one allocation
// instead of one per element.
// Runs are of 64, 16 or 4 elements, so that a few elements do not take a
// long array; the last three or fewer are boxed one by one.
type boxer[T any] struct {
	count int
	n     int           // the number of elements returned
	run   reflect.Value // a boxed array of elements start to end-1, or nothing
	start int
	end   int
}

// next returns the next element; elem(i) makes element i.
func (b *boxer[T]) next(elem func(i int) T) any {
	i := b.n
	b.n++
	if i < b.end {
		return b.run.Index(i - b.start).Interface()
	}
	switch left := b.count - i; {
	case left >= 64:
		var run [64]T
		b.box(run[:], i, elem)
		b.run = reflect.ValueOf(run)
	case left >= 16:
		var run [16]T
		b.box(run[:], i, elem)
		b.run = reflect.ValueOf(run)
	case left >= 4:
		var run [4]T
		b.box(run[:], i, elem)
		b.run = reflect.ValueOf(run)
	default:
		b.end = i + 1
		return elem(i)
	}
	return b.run.Index(0).Interface()
}

// box fills run with the elements from i on.
func (b *boxer[T]) box(run []T, i int, elem func(i int) T) {
	for j := range run {
		run[j] = elem(i + j)
	}
	b.start, b.end = i, i+len(run)
}

// A keyCache holds recently seen dictionary keys, so that the keys repeated
// in a list of dictionaries (such as a torrent's files) share one string.
type keyCache [64]string

// intern returns b as a string, from the cache when it is there.
func (c *keyCache) intern(b []byte) string {
	if len(b) == 0 || len(b) > 32 {
		return string(b)
	}
	h := (uint(len(b))*7 + uint(b[0])*31 + uint(b[len(b)-1])) % uint(len(c))
	if c[h] != string(b) {
		c[h] = string(b)
	}
	return c[h]
}
