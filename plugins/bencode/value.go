package bencode

import (
	"iter"
	"math/big"
	"reflect"
	"slices"
)

// A Value is a bencoded value of any kind, decoded for reading without a Go
// type: what decoding into an `any` gives, in a form that takes a fraction
// of the time and memory to make. Unmarshal into a *Value (or into a struct
// field of type Value) checks the input as decoding into an `any` does,
// records where each integer, string, list and dictionary lies in one array
// that holds no pointers (16 bytes a value or key), and converts nothing:
// integers are parsed and strings handed out when they are asked for. A
// torrent decodes in three allocations, whatever its size, where an `any`
// takes two a dictionary.
//
// A Value is small and is passed by value; a decoded Value is never
// modified, so any number of goroutines may read it at once. Its methods:
// Kind, Int, BigInt, Bytes, Text, Len, Index, Get, Items, Entries, Raw, and
// Any, which makes the `any` form. Asked for what it does not hold (Get of
// a list, Index past the end), a method returns the zero Value, or nil, 0 or
// false, and never panics, so that paths into untrusted input chain:
//
//	length, ok := v.Get("info").Get("files").Index(0).Get("length").Int()
//
// Unmarshal into a Value accepts what Unmarshal into an `any` accepts (in
// strict mode, dictionary keys strictly ascending; integers of up to 10,000
// digits) with the same errors at the same offsets. Like the []byte values
// Unmarshal stores, a Value refers to its input, unless DecodeOptions.Copy
// is set (then to one copy of it): the caller must not modify the input
// while the Value is in use, and any part of the Value kept alive keeps all
// of the input alive. A Value decoded by a Decoder refers to a copy.
//
// Marshal writes a Value as the exact bytes it was decoded from (Raw).
//
// The zero Value holds no value: its Kind is 0 and IsValid reports false.
// Marshal leaves a struct field that holds it out, as it does a nil
// pointer, and refuses it elsewhere.
type Value struct {
	doc *valueDoc
	i   int // the index of the value's node in doc.nodes
}

// A valueDoc is the decoded form of one input: its nodes, one for each value
// and dictionary key, in which the items of each list, and the keys and
// values of each dictionary (alternately), lie next to each other.
type valueDoc struct {
	data   []byte // the input (or a copy of it) the nodes refer to
	nodes  []vnode
	sorted bool // every dictionary's keys are strictly ascending (strict input)
}

// A vnode is one value or key in a valueDoc. It holds no pointers.
//
//   - Integer: a is the offset in data of its digits (after the 'i'), the
//     length is their number ('-' included);
//   - String (and keys): a is the offset of its bytes, the length is theirs;
//   - ListStart, DictStart: the length is the number of items or entries; a
//     is the index of the first of them in nodes, or, for an empty list or
//     dictionary, the offset of its 'l' or 'd'.
type vnode struct {
	a int
	b uint64 // the kind << kindShift | the length
}

const (
	kindShift = 56
	lenMask   = 1<<kindShift - 1
)

func (n vnode) kind() Kind { return Kind(n.b >> kindShift) }
func (n vnode) len() int   { return int(n.b & lenMask) }

var valueType = reflect.TypeFor[Value]()

// node returns v's node; v is valid.
func (v Value) node() vnode { return v.doc.nodes[v.i] }

// IsValid reports whether v holds a value: false only for the zero Value (and
// what the methods return for what is not there).
func (v Value) IsValid() bool { return v.doc != nil }

// Kind returns Integer, String, ListStart (a list) or DictStart (a
// dictionary), or 0 for the zero Value.
func (v Value) Kind() Kind {
	if v.doc == nil {
		return 0
	}
	return v.node().kind()
}

// span returns v's bytes in its data: an Integer's digits, a String's bytes.
func (v Value) span() []byte {
	n := v.node()
	return v.doc.data[n.a : n.a+n.len() : n.a+n.len()]
}

// Int returns the value of an integer that fits in an int64; ok is false for
// other integers and other kinds.
func (v Value) Int() (n int64, ok bool) {
	if v.Kind() != Integer {
		return 0, false
	}
	return parseInt(v.span())
}

// BigInt returns the value of an integer, of any size, as a new big.Int; ok
// is false for other kinds.
func (v Value) BigInt() (n *big.Int, ok bool) {
	if v.Kind() != Integer {
		return nil, false
	}
	return new(big.Int).SetString(string(v.span()), 10)
}

// Bytes returns the bytes of a string, sharing the Value's memory (capped,
// so that appending to them copies them), or nil for other kinds.
func (v Value) Bytes() []byte {
	if v.Kind() != String {
		return nil
	}
	return v.span()
}

// Text returns the bytes of a string as a Go string (a copy), or "" for
// other kinds.
func (v Value) Text() string {
	return string(v.Bytes())
}

// Len returns the number of items of a list, of entries of a dictionary, of
// bytes of a string, or 0.
func (v Value) Len() int {
	if v.Kind() == Integer || v.doc == nil {
		return 0
	}
	return v.node().len()
}

// Index returns item i of a list, or the zero Value when v is not a list or
// i is out of range.
func (v Value) Index(i int) Value {
	if v.Kind() != ListStart {
		return Value{}
	}
	n := v.node()
	if uint(i) >= uint(n.len()) {
		return Value{}
	}
	return Value{v.doc, n.a + i}
}

// Get returns the value of key in a dictionary, or the zero Value when v is
// not a dictionary or has no such key. Strictly decoded dictionaries are
// searched by halves; in leniently decoded ones, whose keys may come in any
// order and repeat, the last value of the key is returned, as Unmarshal
// into a map keeps it.
func (v Value) Get(key string) Value {
	if v.Kind() != DictStart {
		return Value{}
	}
	n := v.node()
	nodes, data := v.doc.nodes, v.doc.data
	keyAt := func(i int) string { // entry i's key
		k := nodes[n.a+2*i]
		return string(data[k.a : k.a+k.len()])
	}
	if v.doc.sorted {
		lo, hi := 0, n.len()
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if keyAt(m) < key {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < n.len() && keyAt(lo) == key {
			return Value{v.doc, n.a + 2*lo + 1}
		}
		return Value{}
	}
	for i := n.len() - 1; i >= 0; i-- {
		if keyAt(i) == key {
			return Value{v.doc, n.a + 2*i + 1}
		}
	}
	return Value{}
}

// Items returns the items of a list, with their indexes, in order; nothing
// for other kinds.
func (v Value) Items() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) {
		if v.Kind() != ListStart {
			return
		}
		n := v.node()
		for i := range n.len() {
			if !yield(i, Value{v.doc, n.a + i}) {
				return
			}
		}
	}
}

// Entries returns the keys and values of a dictionary in input order (for
// strict input, ascending order of the keys); nothing for other kinds. The
// keys share the Value's memory, capped.
func (v Value) Entries() iter.Seq2[[]byte, Value] {
	return func(yield func([]byte, Value) bool) {
		if v.Kind() != DictStart {
			return
		}
		n := v.node()
		for i := range n.len() {
			k := n.a + 2*i
			if !yield(Value{v.doc, k}.span(), Value{v.doc, k + 1}) {
				return
			}
		}
	}
}

// Raw returns the exact bytes v was decoded from, sharing the Value's
// memory (capped), or nil for the zero Value.
func (v Value) Raw() RawMessage {
	if v.doc == nil {
		return nil
	}
	start, end := v.start(), v.end()
	return RawMessage(v.doc.data[start:end:end])
}

// start returns the offset in v's data of its first byte.
func (v Value) start() int {
	opening := 0 // the 'l' and 'd' bytes of the lists and dictionaries v begins
	for {
		n := v.node()
		switch k := n.kind(); {
		case k == Integer:
			return n.a - 1 - opening
		case k == String:
			return n.a - 1 - decimalLen(n.len()) - opening
		case n.len() == 0:
			return n.a - opening
		}
		v.i = n.a // the first item or key
		opening++
	}
}

// end returns the offset in v's data just past its last byte.
func (v Value) end() int {
	closing := 0 // the 'e' bytes of the lists and dictionaries around v
	for {
		n := v.node()
		switch k := n.kind(); {
		case k == Integer:
			return n.a + n.len() + 1 + closing
		case k == String:
			return n.a + n.len() + closing
		case n.len() == 0:
			return n.a + 2 + closing
		case k == ListStart:
			v.i = n.a + n.len() - 1
		default:
			v.i = n.a + 2*n.len() - 1
		}
		closing++
	}
}

// decimalLen returns the number of decimal digits of n >= 0.
func decimalLen(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// MarshalBencode returns Raw; the zero Value is an error, since it holds no
// value.
func (v Value) MarshalBencode() ([]byte, error) {
	if v.doc == nil {
		return nil, errZeroValue
	}
	return v.Raw(), nil
}

var errZeroValue = &UnsupportedValueError{Str: "zero bencode.Value"}

// Any returns v as Unmarshal into an `any` would decode it: an int64 (a
// *big.Int beyond 64 bits), a []byte (sharing the Value's memory), a []any,
// a map[string]any; nil for the zero Value.
func (v Value) Any() any {
	if v.doc == nil {
		return nil
	}
	// Lists and dictionaries are filled from the top down, with a stack of
	// those being filled, so that deep values cost no goroutine stack.
	type fill struct {
		v    Value
		i    int // the next item or entry
		list []any
		dict map[string]any
	}
	var stack []fill
	var root any
	put := func(x any) {
		if len(stack) == 0 {
			root = x
			return
		}
		f := &stack[len(stack)-1]
		n := f.v.node()
		if f.list != nil {
			f.list[f.i] = x
		} else {
			f.dict[string(Value{v.doc, n.a + 2*f.i}.span())] = x
		}
		f.i++
	}
	next := v
	for {
		if next.doc != nil {
			n := next.node()
			switch n.kind() {
			case Integer:
				digits := next.span()
				if x, ok := parseInt(digits); ok {
					put(x)
				} else {
					x, _ := new(big.Int).SetString(string(digits), 10)
					put(x)
				}
			case String:
				put(next.span())
			case ListStart:
				list := make([]any, n.len())
				put(list)
				stack = append(stack, fill{v: next, list: list})
			case DictStart:
				dict := make(map[string]any, n.len())
				put(dict)
				stack = append(stack, fill{v: next, dict: dict})
			}
		}
		// The next value to fill in, popping the lists and dictionaries
		// that are full.
		next = Value{}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			n := f.v.node()
			if f.i < n.len() {
				if f.list != nil {
					next = Value{v.doc, n.a + f.i}
				} else {
					next = Value{v.doc, n.a + 2*f.i + 1}
				}
				break
			}
			stack = stack[:len(stack)-1]
		}
		if next.doc == nil {
			return root
		}
	}
}

// value decodes the value begun by tok into a Value.
func (d *decodeState) value(tok Token) (Value, error) {
	doc := &valueDoc{data: d.shared(), sorted: !d.scan.lenient}
	switch tok.Kind {
	case Integer:
		if digitCount(tok.Value) > maxBigDigits {
			return Value{}, d.typeError(tok, valueType)
		}
		doc.nodes = []vnode{{d.offset(tok.Value), uint64(Integer)<<kindShift | uint64(len(tok.Value))}}
	case String:
		doc.nodes = []vnode{{d.offset(tok.Value), uint64(String)<<kindShift | uint64(len(tok.Value))}}
	default:
		if err := d.nodes(tok, false, valueType); err != nil {
			return Value{}, err
		}
		doc.nodes = slices.Clone(d.vtape.nodes) // exact size, not zeroed first
	}
	return Value{doc, len(doc.nodes) - 1}, nil
}

// shared returns the memory the decoded values share: data, or with Copy
// one copy of it.
func (d *decodeState) shared() []byte {
	if !d.copy {
		return d.data
	}
	if d.owned == nil {
		d.owned = append([]byte(nil), d.data...)
	}
	return d.owned
}

func decodeValue(d *decodeState, tok Token, v reflect.Value) error {
	x, err := d.value(tok)
	if err == nil {
		*v.Addr().Interface().(*Value) = x
	}
	return err
}
