package bencode

import (
	"bytes"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A Marshaler encodes itself as one bencoded value.
type Marshaler interface {
	MarshalBencode() ([]byte, error)
}

// An UnsupportedTypeError reports a Go type that has no bencoded form.
type UnsupportedTypeError struct {
	Type reflect.Type
}

// Error names the type.
func (e *UnsupportedTypeError) Error() string {
	return "bencode: unsupported type: " + e.Type.String()
}

// An UnsupportedValueError reports a Go value that has no bencoded form, such
// as nil or a value nested too deeply (a cycle).
type UnsupportedValueError struct {
	Str string // what the value is
}

// Error describes the value.
func (e *UnsupportedValueError) Error() string {
	return "bencode: unsupported value: " + e.Str
}

// A MarshalerError reports an error from a Marshaler, or output of one that is
// not a single bencoded value.
type MarshalerError struct {
	Type reflect.Type
	Err  error
}

// Error names the type and the cause.
func (e *MarshalerError) Error() string {
	return "bencode: error calling MarshalBencode for type " + e.Type.String() + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *MarshalerError) Unwrap() error { return e.Err }

// maxEncodeDepth bounds nesting while encoding, so that a cyclic value is
// an error rather than a stack overflow.
const maxEncodeDepth = DefaultMaxDepth

// Marshal returns the bencoding of v:
//
//   - integer kinds, big.Int and *big.Int as integers; bools as i0e and i1e;
//   - strings, []byte and byte arrays as strings;
//   - slices and arrays as lists;
//   - maps with string keys as dictionaries, keys sorted;
//   - structs as dictionaries whose keys are the field names, or the names
//     given by tags (`bencode:"name"`), sorted; "-" leaves a field out,
//     ",omitempty" leaves it out when it is false, 0, nil or has length 0;
//     nil pointer and interface fields are left out too;
//   - RawMessage and Marshaler values as the bytes they hold or return, a
//     Value as the bytes it was decoded from.
//
// Floats, channels, functions, complex numbers, nil and the zero Value have
// no bencoded form; struct fields that hold a nil pointer or interface, or
// the zero Value, are left out.
func Marshal(v any) ([]byte, error) {
	e := encodeStatePool.Get().(*encodeState)
	defer e.release()
	if err := e.marshal(v); err != nil {
		return nil, err
	}
	return bytes.Join(e.chunks(), nil), nil // one allocation, not zeroed first
}

// An encodeState holds the encoding of a value being marshaled: buf, with
// the long byte strings the value holds left out and listed in refs, so that
// each of them is copied only once, into the result (an Encoder writes them
// without copying).
//
// The encoding functions append to a buffer they are given and return it,
// rather than appending to buf: storing to a slice in the heap costs a write
// barrier while the garbage collector runs, a local variable does not.
type encodeState struct {
	buf   []byte
	refs  []bytesRef
	parts [][]byte // buf and refs in output order
	depth int      // the lists and dictionaries open
	// indirect counts the pointers and interfaces being followed, which a
	// cycle may go through alone (var p any; p = &p).
	indirect int
}

// A bytesRef is a long byte string that belongs at buf[at].
type bytesRef struct {
	at int
	b  []byte
}

// longString is the length from which byte strings are referenced, not
// copied.
const longString = 1024

var encodeStatePool = sync.Pool{New: func() any { return new(encodeState) }}

// release returns e to the pool, unless it grew too big to keep, keeping
// nothing of the value encoded.
func (e *encodeState) release() {
	if cap(e.buf) > 256<<10 {
		return
	}
	clear(e.refs) // past their lengths they were cleared before
	clear(e.parts)
	e.buf, e.refs, e.parts, e.depth, e.indirect = e.buf[:0], e.refs[:0], e.parts[:0], 0, 0
	encodeStatePool.Put(e)
}

// marshal encodes v into buf and refs.
func (e *encodeState) marshal(v any) error {
	b, err := e.appendAny(e.buf[:0], v)
	e.buf = b
	return err
}

// chunks returns the pieces of the encoding in order.
func (e *encodeState) chunks() [][]byte {
	parts := e.parts[:0]
	prev := 0
	for _, r := range e.refs {
		parts = append(parts, e.buf[prev:r.at], r.b)
		prev = r.at
	}
	e.parts = append(parts, e.buf[prev:])
	return e.parts
}

// writeTo writes the encoding to w.
func (e *encodeState) writeTo(w io.Writer) error {
	for _, p := range e.chunks() {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// appendAny appends the encoding of v to b, that of the common dynamic types
// without reflection.
func (e *encodeState) appendAny(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return appendString(b, x), nil
	case []byte:
		return e.appendBytes(b, x), nil
	case int64:
		return appendInt(b, x), nil
	case int:
		return appendInt(b, int64(x)), nil
	case []any:
		if err := e.enter(); err != nil {
			return b, err
		}
		b = append(b, 'l')
		for _, elem := range x {
			var err error
			if b, err = e.appendAny(b, elem); err != nil {
				return b, err
			}
		}
		e.depth--
		return append(b, 'e'), nil
	case map[string]any:
		return e.appendMap(b, x)
	case Value:
		return e.appendValue(b, x)
	case nil:
		return b, &UnsupportedValueError{Str: "nil"}
	}
	rv := reflect.ValueOf(v)
	return typeEncoder(rv.Type())(e, b, rv)
}

// A mapEntry is one entry of a map[string]any.
type mapEntry struct {
	key   string
	value any
}

// appendMap appends the encoding of m. Most dictionaries have one or two
// entries, which are taken from the map straight into place; more are
// collected in one pass over the map and sorted (appendEntries).
func (e *encodeState) appendMap(b []byte, m map[string]any) ([]byte, error) {
	if err := e.enter(); err != nil {
		return b, err
	}
	b = append(b, 'd')
	var err error
	switch len(m) {
	case 0:
	case 1:
		for k, v := range m {
			b = appendString(b, k)
			b, err = e.appendAny(b, v)
			break // (which spares the iterator a look for another)
		}
	case 2:
		var k0, k1 string
		var v0, v1 any
		n := 0
		for k, v := range m {
			if n == 0 {
				k0, v0 = k, v
				n++
				continue
			}
			k1, v1 = k, v
			break
		}
		if k1 < k0 {
			k0, k1, v0, v1 = k1, k0, v1, v0
		}
		b = appendString(b, k0)
		if b, err = e.appendAny(b, v0); err == nil {
			b = appendString(b, k1)
			b, err = e.appendAny(b, v1)
		}
	default:
		b, err = e.appendEntries(b, m)
	}
	if err != nil {
		return b, err
	}
	e.depth--
	return append(b, 'e'), nil
}

// appendEntries appends the entries of m, collected in one pass over the
// map (on the stack unless there are more than 8) and sorted.
func (e *encodeState) appendEntries(b []byte, m map[string]any) ([]byte, error) {
	var small [8]mapEntry
	entries := small[:0]
	if len(m) > len(small) {
		entries = make([]mapEntry, 0, len(m))
	}
	for k, v := range m {
		entries = append(entries, mapEntry{k, v})
	}
	for _, entry := range sortEntries(entries) {
		b = appendString(b, entry.key)
		var err error
		if b, err = e.appendAny(b, entry.value); err != nil {
			return b, err
		}
	}
	return b, nil
}

// sortEntries returns entries sorted by key: the few entries most
// dictionaries have sorted in place by insertion, more by sorting integers
// that pack the first bytes of a key (which often tell keys apart) with the
// entry's index, then runs of keys that begin alike by whole keys.
func sortEntries(entries []mapEntry) []mapEntry {
	const indexBits = 16
	switch {
	case len(entries) <= 8:
		for i := 1; i < len(entries); i++ {
			for j := i; j > 0 && entries[j].key < entries[j-1].key; j-- {
				entries[j], entries[j-1] = entries[j-1], entries[j]
			}
		}
		return entries
	case len(entries) > 1<<indexBits:
		slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
		return entries
	}
	order := make([]uint64, len(entries))
	for i, entry := range entries {
		var prefix uint64
		for j := range 64/8 - indexBits/8 {
			prefix <<= 8
			if j < len(entry.key) {
				prefix |= uint64(entry.key[j])
			}
		}
		order[i] = prefix<<indexBits | uint64(i)
	}
	slices.Sort(order)
	keyOf := func(o uint64) string { return entries[o&(1<<indexBits-1)].key }
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j]>>indexBits == order[i]>>indexBits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(order[i:j], func(a, b uint64) int { return strings.Compare(keyOf(a), keyOf(b)) })
		}
		i = j
	}
	sorted := make([]mapEntry, len(entries))
	for i, o := range order {
		sorted[i] = entries[o&(1<<indexBits-1)]
	}
	return sorted
}

func (e *encodeState) enter() error {
	if e.depth++; e.depth > maxEncodeDepth {
		return &UnsupportedValueError{Str: "nested deeper than " + strconv.Itoa(maxEncodeDepth) + " levels (a cycle?)"}
	}
	return nil
}

// follow counts a pointer or interface followed (the caller takes it off
// e.indirect after), failing past maxEncodeDepth of them: a cycle.
func (e *encodeState) follow() error {
	if e.indirect++; e.indirect > maxEncodeDepth {
		return &UnsupportedValueError{Str: "pointers followed deeper than " + strconv.Itoa(maxEncodeDepth) + " levels (a cycle?)"}
	}
	return nil
}

func appendInt(b []byte, n int64) []byte {
	b = append(b, 'i')
	if 0 <= n && n < 100 {
		b = appendSmall(b, int(n))
	} else {
		b = strconv.AppendInt(b, n, 10)
	}
	return append(b, 'e')
}

// appendLength appends n, a string's length, in decimal.
func appendLength(b []byte, n int) []byte {
	if n < 100 {
		return appendSmall(b, n)
	}
	return strconv.AppendInt(b, int64(n), 10)
}

// appendSmall appends n, from 0 to 99, in decimal, more quickly than
// strconv does: most lengths and many integers are that small.
func appendSmall(b []byte, n int) []byte {
	if n < 10 {
		return append(b, byte('0'+n))
	}
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

func appendString(b []byte, s string) []byte {
	b = appendLength(b, len(s))
	b = append(b, ':')
	return append(b, s...)
}

func (e *encodeState) appendBytes(b, s []byte) []byte {
	b = appendLength(b, len(s))
	b = append(b, ':')
	if len(s) >= longString {
		e.refs = append(e.refs, bytesRef{at: len(b), b: s})
		return b
	}
	return append(b, s...)
}

// appendRaw appends the output of a Marshaler or a RawMessage of type t,
// checking that it is one value. A long RawMessage (owned, part of the
// value encoded) is referenced rather than copied, as byte strings are; a
// Marshaler's output is copied, as it may be a buffer the Marshaler uses
// again.
func (e *encodeState) appendRaw(b []byte, t reflect.Type, raw []byte, err error, owned bool) ([]byte, error) {
	if err == nil {
		err = checkValue(raw)
	}
	if err != nil {
		return b, &MarshalerError{Type: t, Err: err}
	}
	if owned && len(raw) >= longString {
		e.refs = append(e.refs, bytesRef{at: len(b), b: raw})
		return b, nil
	}
	return append(b, raw...), nil
}

// appendValue appends v's bytes, which it was decoded from, and so are one
// value.
func (e *encodeState) appendValue(b []byte, v Value) ([]byte, error) {
	if !v.IsValid() {
		return b, errZeroValue
	}
	raw := v.Raw()
	if len(raw) >= longString {
		e.refs = append(e.refs, bytesRef{at: len(b), b: raw})
		return b, nil
	}
	return append(b, raw...), nil
}

// An encoderFunc appends the encoding of v to b.
type encoderFunc func(e *encodeState, b []byte, v reflect.Value) ([]byte, error)

var encoderCache sync.Map // reflect.Type -> encoderFunc

// typeEncoder returns the encoder of type t, building it once.
func typeEncoder(t reflect.Type) encoderFunc {
	if f, ok := encoderCache.Load(t); ok {
		return f.(encoderFunc)
	}
	// A recursive type meets itself while its encoder is being built: it
	// gets an encoder that waits for the real one.
	var wg sync.WaitGroup
	var f encoderFunc
	wg.Add(1)
	fi, loaded := encoderCache.LoadOrStore(t, encoderFunc(func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
		wg.Wait()
		return f(e, b, v)
	}))
	if loaded {
		return fi.(encoderFunc)
	}
	f = newTypeEncoder(t, true)
	wg.Done()
	encoderCache.Store(t, f)
	return f
}

var marshalerType = reflect.TypeFor[Marshaler]()

// newTypeEncoder builds the encoder of type t; allowAddr says whether to use
// a Marshaler method of *t when the value is addressable.
func newTypeEncoder(t reflect.Type, allowAddr bool) encoderFunc {
	switch {
	case t == rawMessageType:
		return encodeRaw
	case t == valueType:
		return func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
			if v.CanAddr() {
				return e.appendValue(b, *v.Addr().Interface().(*Value))
			}
			return e.appendValue(b, v.Interface().(Value))
		}
	case t == bigIntType:
		return encodeBig
	case t.Implements(marshalerType):
		return encodeMarshaler
	case allowAddr && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(marshalerType):
		other := newTypeEncoder(t, false)
		return func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
			if v.CanAddr() {
				return encodeMarshaler(e, b, v.Addr())
			}
			return other(e, b, v)
		}
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return encodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return encodeUint
	case reflect.Bool:
		return encodeBool
	case reflect.String:
		return encodeString
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return encodeBytes
		}
		return listEncoder(t)
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return encodeByteArray
		}
		return listEncoder(t)
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return mapEncoder(t)
		}
	case reflect.Struct:
		return structEncoder(t)
	case reflect.Pointer:
		elem := typeEncoder(t.Elem())
		return func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
			if v.IsNil() {
				return b, &UnsupportedValueError{Str: "nil " + t.String()}
			}
			if err := e.follow(); err != nil {
				return b, err
			}
			b, err := elem(e, b, v.Elem())
			e.indirect--
			return b, err
		}
	case reflect.Interface:
		return func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
			if v.IsNil() {
				return b, &UnsupportedValueError{Str: "nil " + t.String()}
			}
			if err := e.follow(); err != nil {
				return b, err
			}
			b, err := e.appendAny(b, v.Elem().Interface())
			e.indirect--
			return b, err
		}
	}
	return func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
		return b, &UnsupportedTypeError{Type: t}
	}
}

func encodeRaw(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	return e.appendRaw(b, v.Type(), v.Bytes(), nil, true)
}

func encodeBig(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	if !v.CanAddr() {
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		v = p.Elem()
	}
	b = append(b, 'i')
	b = v.Addr().Interface().(*big.Int).Append(b, 10)
	return append(b, 'e'), nil
}

func encodeMarshaler(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return b, &UnsupportedValueError{Str: "nil " + v.Type().String()}
	}
	raw, err := v.Interface().(Marshaler).MarshalBencode()
	return e.appendRaw(b, v.Type(), raw, err, false)
}

func encodeInt(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	return appendInt(b, v.Int()), nil
}

func encodeUint(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	b = append(b, 'i')
	b = strconv.AppendUint(b, v.Uint(), 10)
	return append(b, 'e'), nil
}

func encodeBool(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	if v.Bool() {
		return append(b, "i1e"...), nil
	}
	return append(b, "i0e"...), nil
}

func encodeString(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	return appendString(b, v.String()), nil
}

func encodeBytes(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	return e.appendBytes(b, v.Bytes()), nil
}

func encodeByteArray(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
	if v.CanAddr() {
		return e.appendBytes(b, v.Bytes()), nil
	}
	b = strconv.AppendInt(b, int64(v.Len()), 10)
	b = append(b, ':')
	for i := range v.Len() {
		b = append(b, byte(v.Index(i).Uint()))
	}
	return b, nil
}

func listEncoder(t reflect.Type) encoderFunc {
	elem := typeEncoder(t.Elem())
	return func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
		if err := e.enter(); err != nil {
			return b, err
		}
		b = append(b, 'l')
		for i := range v.Len() {
			var err error
			if b, err = elem(e, b, v.Index(i)); err != nil {
				return b, err
			}
		}
		e.depth--
		return append(b, 'e'), nil
	}
}

func mapEncoder(t reflect.Type) encoderFunc {
	elem := typeEncoder(t.Elem())
	return func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
		if err := e.enter(); err != nil {
			return b, err
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		b = append(b, 'd')
		for _, k := range keys {
			b = appendString(b, k.String())
			var err error
			if b, err = elem(e, b, v.MapIndex(k)); err != nil {
				return b, err
			}
		}
		e.depth--
		return append(b, 'e'), nil
	}
}

func structEncoder(t reflect.Type) encoderFunc {
	type fieldEncoder struct {
		key       []byte // the bencoded key
		index     []int
		omitEmpty bool
		nilable   bool // a pointer or interface, left out when nil
		value     bool // a Value, left out when it is the zero Value
		enc       encoderFunc
	}
	fields := cachedFields(t)
	list := make([]fieldEncoder, len(fields.list))
	for i, f := range fields.list {
		ft := t.FieldByIndex(f.index).Type
		list[i] = fieldEncoder{
			key:       fmt.Appendf(nil, "%d:%s", len(f.name), f.name),
			index:     f.index,
			omitEmpty: f.omitEmpty,
			nilable:   ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Interface,
			value:     ft == valueType,
			enc:       typeEncoder(ft),
		}
	}
	return func(e *encodeState, b []byte, v reflect.Value) ([]byte, error) {
		if err := e.enter(); err != nil {
			return b, err
		}
		b = append(b, 'd')
		for i := range list {
			f := &list[i]
			fv, ok := fieldValue(v, f.index)
			if !ok || (f.omitEmpty && isEmpty(fv)) || (f.nilable && fv.IsNil()) || (f.value && fv.IsZero()) {
				continue
			}
			b = append(b, f.key...)
			var err error
			if b, err = f.enc(e, b, fv); err != nil {
				return b, err
			}
		}
		e.depth--
		return append(b, 'e'), nil
	}
}

// fieldValue returns the field of struct v at index, or false when a nil
// embedded pointer is on the way.
func fieldValue(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
