package bencode

import (
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// A Marshaler encodes itself as one bencoded value.
type Marshaler interface {
	MarshalBencode() ([]byte, error)
}

// An UnsupportedTypeError reports a Go type that has no bencoded form.
type UnsupportedTypeError struct {
	Type reflect.Type
}

func (e *UnsupportedTypeError) Error() string {
	return "bencode: unsupported type: " + e.Type.String()
}

// An UnsupportedValueError reports a Go value that has no bencoded form, such
// as nil or a value nested too deeply (a cycle).
type UnsupportedValueError struct {
	Str string
}

func (e *UnsupportedValueError) Error() string {
	return "bencode: unsupported value: " + e.Str
}

// A MarshalerError reports an error from a Marshaler, or output of one that is
// not a single bencoded value.
type MarshalerError struct {
	Type reflect.Type
	Err  error
}

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
	var e encodeState
	if err := e.marshal(v); err != nil {
		return nil, err
	}
	return e.buf, nil
}

type encodeState struct {
	buf   []byte
	depth int
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
	default:
		return e.reflectValue(reflect.ValueOf(v))
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
	e.buf = append(e.buf, s...)
}

func (e *encodeState) bytes(b []byte) {
	e.buf = strconv.AppendInt(e.buf, int64(len(b)), 10)
	e.buf = append(e.buf, ':')
	e.buf = append(e.buf, b...)
}

var marshalerType = reflect.TypeFor[Marshaler]()

func (e *encodeState) reflectValue(v reflect.Value) error {
	if !v.IsValid() {
		return &UnsupportedValueError{Str: "nil"}
	}
	t := v.Type()
	switch {
	case t == rawMessageType:
		return e.raw(t, v.Bytes(), nil)
	case t == bigIntType:
		if !v.CanAddr() {
			v = ptrTo(v).Elem()
		}
		e.buf = append(e.buf, 'i')
		e.buf = v.Addr().Interface().(*big.Int).Append(e.buf, 10)
		e.buf = append(e.buf, 'e')
		return nil
	case t.Implements(marshalerType):
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return &UnsupportedValueError{Str: "nil " + t.String()}
		}
		b, err := v.Interface().(Marshaler).MarshalBencode()
		return e.raw(t, b, err)
	case v.CanAddr() && reflect.PointerTo(t).Implements(marshalerType):
		b, err := v.Addr().Interface().(Marshaler).MarshalBencode()
		return e.raw(t, b, err)
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = append(e.buf, 'i')
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
		e.buf = append(e.buf, 'e')
	case reflect.Bool:
		e.buf = append(e.buf, 'i', '0', 'e')
		if v.Bool() {
			e.buf[len(e.buf)-2] = '1'
		}
	case reflect.String:
		e.str(v.String())
	case reflect.Slice, reflect.Array:
		return e.list(v)
	case reflect.Map:
		return e.mapEntries(v)
	case reflect.Struct:
		return e.structFields(v)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return &UnsupportedValueError{Str: "nil " + t.String()}
		}
		return e.reflectValue(v.Elem())
	default:
		return &UnsupportedTypeError{Type: t}
	}
	return nil
}

// ptrTo returns a pointer to a copy of v.
func ptrTo(v reflect.Value) reflect.Value {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p
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
	e.buf = append(e.buf, b...)
	return nil
}

func (e *encodeState) list(v reflect.Value) error {
	if v.Type().Elem().Kind() == reflect.Uint8 {
		if v.Kind() == reflect.Slice {
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
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, 'l')
	for i := range v.Len() {
		if err := e.reflectValue(v.Index(i)); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, 'e')
	e.depth--
	return nil
}

func (e *encodeState) mapEntries(v reflect.Value) error {
	if v.Type().Key().Kind() != reflect.String {
		return &UnsupportedTypeError{Type: v.Type()}
	}
	if err := e.enter(); err != nil {
		return err
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	e.buf = append(e.buf, 'd')
	for _, k := range keys {
		e.str(k.String())
		if err := e.reflectValue(v.MapIndex(k)); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, 'e')
	e.depth--
	return nil
}

func (e *encodeState) structFields(v reflect.Value) error {
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, 'd')
	for i := range cachedFields(v.Type()).list {
		f := &cachedFields(v.Type()).list[i]
		fv, ok := fieldValue(v, f.index)
		if !ok || (f.omitEmpty && isEmpty(fv)) || ((fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface) && fv.IsNil()) {
			continue
		}
		e.str(f.name)
		if err := e.reflectValue(fv); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, 'e')
	e.depth--
	return nil
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
