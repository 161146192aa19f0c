package bencode

import (
	"math/big"
	"reflect"
)

// anyFrom decodes the value begun by tok as an int64 (a *big.Int beyond 64
// bits), a []byte, a []any or a map[string]any.
//
// A list or dictionary is decoded in two passes, neither recursive, so that
// deep input costs heap, not goroutine stack. The first scans the value,
// checking it, and records it in d.tape; the second builds it from the tape
// with half the allocations one per Go value would take: every map is made at
// its final size, all the lists share one backing array, and the []byte,
// int64 and []any values are boxed into interfaces many at a time (see
// boxer).
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
	if err := d.tape.record(d, tok); err != nil {
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
	if len(digits) > maxBigDigits {
		return nil
	}
	n, _ := new(big.Int).SetString(string(digits), 10)
	return n
}

// An anyTape records a list or dictionary for decoding into any: its tokens
// and what they hold, in input order. It holds no pointers but to big
// integers, so that keeping it in a pool keeps nothing alive, and filling it
// costs next to no write barriers.
type anyTape struct {
	kinds    []Kind // the value's tokens' kinds, bigInteger for integers beyond int64
	listLens []int  // the number of items in each list
	dictLens []int  // the number of values in each dictionary
	keys     []span
	strs     []span
	ints     []int64
	bigs     []*big.Int
	open     []openContainer // while recording: the lists and dictionaries open
}

// bigInteger is the kind an anyTape records for an integer beyond int64.
const bigInteger = End + 1

// A span is the place of a string's bytes in the input.
type span struct {
	off, n int
}

// An openContainer is a list or dictionary being recorded: its index in
// listLens or dictLens.
type openContainer struct {
	dict bool
	i    int
}

// record scans the rest of the list or dictionary begun by tok into t.
func (t *anyTape) record(d *decodeState, tok Token) error {
	kinds, listLens, dictLens, open := t.kinds[:0], t.listLens[:0], t.dictLens[:0], t.open[:0]
	keys, strs, ints, bigs := t.keys[:0], t.strs[:0], t.ints[:0], t.bigs[:0]
	defer func() {
		t.kinds, t.listLens, t.dictLens, t.open = kinds, listLens, dictLens, open
		t.keys, t.strs, t.ints, t.bigs = keys, strs, ints, bigs
	}()
	for {
		kind := tok.Kind
		if n := len(open); n > 0 && kind != Key && kind != End {
			if parent := open[n-1]; parent.dict {
				dictLens[parent.i]++
			} else {
				listLens[parent.i]++
			}
		}
		switch kind {
		case Integer:
			if n, ok := parseInt(tok.Value); ok {
				ints = append(ints, n)
				break
			}
			n, ok := anyInt(tok.Value).(*big.Int)
			if !ok {
				return d.typeError(tok, bigIntPtrType)
			}
			bigs = append(bigs, n)
			kind = bigInteger
		case String:
			strs = append(strs, d.span(tok.Value))
		case Key:
			keys = append(keys, d.span(tok.Value))
		case ListStart:
			open = append(open, openContainer{false, len(listLens)})
			listLens = append(listLens, 0)
		case DictStart:
			open = append(open, openContainer{true, len(dictLens)})
			dictLens = append(dictLens, 0)
		case End:
			open = open[:len(open)-1]
		}
		kinds = append(kinds, kind)
		if len(open) == 0 {
			return nil
		}
		if err := d.scan.read(&tok); err != nil {
			return err
		}
	}
}

// span returns the place of b, a slice of d.data, in d.data.
func (d *decodeState) span(b []byte) span {
	return span{cap(d.data) - cap(b), len(b)}
}

// build returns the value recorded in d.tape.
func (d *decodeState) build() any {
	t := &d.tape
	total := 0
	for _, n := range t.listLens {
		total += n
	}
	items := make([]any, total) // the items of all the lists
	listAt := func(i int) []any {
		n := t.listLens[i] // called in order: the list starts items
		list := items[:n:n]
		items = items[n:]
		return list
	}
	strAt := func(i int) []byte {
		s := t.strs[i]
		return d.bytes(d.data[s.off : s.off+s.n])
	}
	intAt := func(i int) int64 { return t.ints[i] }
	boxedLists := boxer[[]any]{count: len(t.listLens)}
	boxedStrs := boxer[[]byte]{count: len(t.strs)}
	boxedInts := boxer[int64]{count: len(t.ints)}

	// The innermost open list or dictionary is in list and i, or in dict
	// and key; the others are on frames, on the stack unless deep.
	type frame struct {
		list []any
		i    int
		dict map[string]any
		key  string
	}
	var (
		root          any
		list          []any
		dict          map[string]any
		key           string
		i, iKey, iBig int
		iDict         int
		frames        = make([]frame, 0, 16)
	)
	for _, kind := range t.kinds {
		var v any
		switch kind {
		case Integer:
			v = boxedInts.next(intAt)
		case bigInteger:
			v = t.bigs[iBig]
			iBig++
		case String:
			v = boxedStrs.next(strAt)
		case Key:
			k := t.keys[iKey]
			key = d.keys.intern(d.data[k.off : k.off+k.n])
			iKey++
			continue
		case ListStart:
			v = boxedLists.next(listAt)
		case DictStart:
			v = make(map[string]any, t.dictLens[iDict])
			iDict++
		case End:
			f := &frames[len(frames)-1]
			list, i, dict, key = f.list, f.i, f.dict, f.key
			frames = frames[:len(frames)-1]
			continue
		}
		switch {
		case len(frames) == 0:
			root = v
		case dict != nil:
			dict[key] = v
		default:
			list[i] = v
			i++
		}
		switch kind {
		case ListStart:
			frames = append(frames, frame{list, i, dict, key})
			list, i, dict = v.([]any), 0, nil
		case DictStart:
			frames = append(frames, frame{list, i, dict, key})
			list, dict = nil, v.(map[string]any)
		}
	}
	return root
}

// release empties t, keeping its buffers unless they grew large.
func (t *anyTape) release() {
	if cap(t.kinds) > 1<<16 {
		*t = anyTape{}
		return
	}
	clear(t.bigs)
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
	h := (len(b)*7 + int(b[0])*31 + int(b[len(b)-1])) % len(c)
	if c[h] != string(b) {
		c[h] = string(b)
	}
	return c[h]
}
