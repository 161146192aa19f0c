package bencode

import (
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
//   - RawMessage and Marshaler values as the bytes they hold or return.
//
// Floats, channels, functions, complex numbers and nil have no bencoded form.
func Marshal(v any) ([]byte, error) {
	e := encodeStatePool.Get().(*encodeState)
	defer e.release()
	if err := e.marshal(v); err != nil {
		return nil, err
	}
	return e.result(), nil
}

// An encodeState holds the encoding of a value being marshaled: buf, with
// the long strings the value holds left out and listed in refs, so that each
// of them is copied only once, into the result.
type encodeState struct {
	buf     []byte
	refs    []stringRef
	refSize int
	depth   int
}

// A stringRef is a long string that belongs at buf[at]; one of b and s is set.
type stringRef struct {
	at int
	b  []byte
	s  string
}

// longString is the length from which strings are referenced, not copied.
const longString = 1024

var encodeStatePool = sync.Pool{New: func() any { return new(encodeState) }}

// release returns e to the pool, unless it grew too big to keep.
func (e *encodeState) release() {
	if cap(e.buf) > 256<<10 {
		return
	}
	e.buf, e.refs, e.refSize, e.depth = e.buf[:0], e.refs[:0], 0, 0
	clear(e.refs[:cap(e.refs)])
	encodeStatePool.Put(e)
}

// result returns the encoding as a new slice.
func (e *encodeState) result() []byte {
	out := make([]byte, 0, len(e.buf)+e.refSize)
	prev := 0
	for _, r := range e.refs {
		out = append(out, e.buf[prev:r.at]...)
		out = append(out, r.b...)
		out = append(out, r.s...)
		prev = r.at
	}
	return append(out, e.buf[prev:]...)
}

// writeTo writes the encoding to w.
func (e *encodeState) writeTo(w io.Writer) error {
	prev := 0
	for _, r := range e.refs {
		if _, err := w.Write(e.buf[prev:r.at]); err != nil {
			return err
		}
		var err error
		if r.b != nil {
			_, err = w.Write(r.b)
		} else {
			_, err = io.WriteString(w, r.s)
		}
		if err != nil {
			return err
		}
		prev = r.at
	}
	_, err := w.Write(e.buf[prev:])
	return err
}

// marshal encodes the common dynamic types without reflection.
func (e *encodeState) marshal(v any) error {
	switch x := v.(type) {
	case string:
		e.str(x)
	case []byte:
		e.bytes(x)
	case int64:
		e.int(x)
	case int:
		e.int(int64(x))
	case []any:
		if err := e.enter(); err != nil {
			return err
		}
		e.buf = append(e.buf, 'l')
		for _, elem := range x {
			if err := e.marshal(elem); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, 'e')
		e.depth--
	case map[string]any:
		if err := e.enter(); err != nil {
			return err
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		e.buf = append(e.buf, 'd')
		for _, k := range keys {
			e.str(k)
			if err := e.marshal(x[k]); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, 'e')
		e.depth--
	case nil:
		return &UnsupportedValueError{Str: "nil"}
	default:
		rv := reflect.ValueOf(v)
		return typeEncoder(rv.Type())(e, rv)
	}
	return nil
}

func (e *encodeState) enter() error {
	if e.depth++; e.depth > maxEncodeDepth {
		return &UnsupportedValueError{Str: "nested deeper than " + strconv.Itoa(maxEncodeDepth) + " levels (a cycle?)"}
	}
	return nil
}

func (e *encodeState) int(n int64) {
	e.buf = append(e.buf, 'i')
	e.buf = strconv.AppendInt(e.buf, n, 10)
	e.buf = append(e.buf, 'e')
}

func (e *encodeState) str(s string) {
	e.buf = strconv.AppendInt(e.buf, int64(len(s)), 10)
	e.buf = append(e.buf, ':')
	if len(s) >= longString {
		e.refs = append(e.refs, stringRef{at: len(e.buf), s: s})
		e.refSize += len(s)
		return
	}
	e.buf = append(e.buf, s...)
}

func (e *encodeState) bytes(b []byte) {
	e.buf = strconv.AppendInt(e.buf, int64(len(b)), 10)
	e.buf = append(e.buf, ':')
	if len(b) >= longString {
		e.refs = append(e.refs, stringRef{at: len(e.buf), b: b})
		e.refSize += len(b)
		return
	}
	e.buf = append(e.buf, b...)
}

// raw appends the output of a Marshaler or a RawMessage of type t, checking
// that it is one value.
func (e *encodeState) raw(t reflect.Type, b []byte, err error) error {
	if err == nil {
		err = checkValue(b)
	}
	if err != nil {
		return &MarshalerError{Type: t, Err: err}
	}
	if len(b) >= longString {
		e.refs = append(e.refs, stringRef{at: len(e.buf), b: b})
		e.refSize += len(b)
		return nil
	}
	e.buf = append(e.buf, b...)
	return nil
}

// An encoderFunc appends the encoding of v to e.
type encoderFunc func(e *encodeState, v reflect.Value) error

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
	fi, loaded := encoderCache.LoadOrStore(t, encoderFunc(func(e *encodeState, v reflect.Value) error {
		wg.Wait()
		return f(e, v)
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
	case t == bigIntType:
		return encodeBig
	case t.Implements(marshalerType):
		return encodeMarshaler
	case allowAddr && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(marshalerType):
		other := newTypeEncoder(t, false)
		return func(e *encodeState, v reflect.Value) error {
			if v.CanAddr() {
				return encodeMarshaler(e, v.Addr())
			}
			return other(e, v)
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
		return func(e *encodeState, v reflect.Value) error {
			if v.IsNil() {
				return &UnsupportedValueError{Str: "nil " + t.String()}
			}
			return elem(e, v.Elem())
		}
	case reflect.Interface:
		return func(e *encodeState, v reflect.Value) error {
			if v.IsNil() {
				return &UnsupportedValueError{Str: "nil " + t.String()}
			}
			return e.marshal(v.Elem().Interface())
		}
	}
	return func(e *encodeState, v reflect.Value) error {
		return &UnsupportedTypeError{Type: t}
	}
}

func encodeRaw(e *encodeState, v reflect.Value) error {
	return e.raw(v.Type(), v.Bytes(), nil)
}

func encodeBig(e *encodeState, v reflect.Value) error {
	if !v.CanAddr() {
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		v = p.Elem()
	}
	e.buf = append(e.buf, 'i')
	e.buf = v.Addr().Interface().(*big.Int).Append(e.buf, 10)
	e.buf = append(e.buf, 'e')
	return nil
}

func encodeMarshaler(e *encodeState, v reflect.Value) error {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return &UnsupportedValueError{Str: "nil " + v.Type().String()}
	}
	b, err := v.Interface().(Marshaler).MarshalBencode()
	return e.raw(v.Type(), b, err)
}

func encodeInt(e *encodeState, v reflect.Value) error {
	e.int(v.Int())
	return nil
}

func encodeUint(e *encodeState, v reflect.Value) error {
	e.buf = append(e.buf, 'i')
	e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	e.buf = append(e.buf, 'e')
	return nil
}

func encodeBool(e *encodeState, v reflect.Value) error {
	if v.Bool() {
		e.buf = append(e.buf, "i1e"...)
	} else {
		e.buf = append(e.buf, "i0e"...)
	}
	return nil
}

func encodeString(e *encodeState, v reflect.Value) error {
	e.str(v.String())
	return nil
}

func encodeBytes(e *encodeState, v reflect.Value) error {
	e.bytes(v.Bytes())
	return nil
}

func encodeByteArray(e *encodeState, v reflect.Value) error {
	if v.CanAddr() {
		e.bytes(v.Bytes())
		return nil
	}
	e.buf = strconv.AppendInt(e.buf, int64(v.Len()), 10)
	e.buf = append(e.buf, ':')
	for i := range v.Len() {
		e.buf = append(e.buf, byte(v.Index(i).Uint()))
	}
	return nil
}

func listEncoder(t reflect.Type) encoderFunc {
	elem := typeEncoder(t.Elem())
	return func(e *encodeState, v reflect.Value) error {
		if err := e.enter(); err != nil {
			return err
		}
		e.buf = append(e.buf, 'l')
		for i := range v.Len() {
			if err := elem(e, v.Index(i)); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, 'e')
		e.depth--
		return nil
	}
}

func mapEncoder(t reflect.Type) encoderFunc {
	elem := typeEncoder(t.Elem())
	return func(e *encodeState, v reflect.Value) error {
		if err := e.enter(); err != nil {
			return err
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		e.buf = append(e.buf, 'd')
		for _, k := range keys {
			e.str(k.String())
			if err := elem(e, v.MapIndex(k)); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, 'e')
		e.depth--
		return nil
	}
}

func structEncoder(t reflect.Type) encoderFunc {
	type fieldEncoder struct {
		key       []byte // the bencoded key
		index     []int
		omitEmpty bool
		nilable   bool
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
			enc:       typeEncoder(ft),
		}
	}
	return func(e *encodeState, v reflect.Value) error {
		if err := e.enter(); err != nil {
			return err
		}
		e.buf = append(e.buf, 'd')
		for i := range list {
			f := &list[i]
			fv, ok := fieldValue(v, f.index)
			if !ok || (f.omitEmpty && isEmpty(fv)) || (f.nilable && fv.IsNil()) {
				continue
			}
			e.buf = append(e.buf, f.key...)
			if err := f.enc(e, fv); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, 'e')
		e.depth--
		return nil
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
