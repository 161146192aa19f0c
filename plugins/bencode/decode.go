package bencode

import (
	"io"
	"math/big"
	"reflect"
	"strconv"
	"strings"
)

// DecodeOptions control how input is checked. The zero value is strict with
// the default depth limit.
type DecodeOptions struct {
	// Lenient accepts dictionary keys that are unsorted or repeated (later
	// values replace earlier ones in maps and structs; RawMessage keeps the
	// bytes as they are) and data after the first top-level value: a Scanner
	// goes on to the next value, Unmarshal ignores it.
	Lenient bool
	// MaxDepth limits how deeply lists and dictionaries nest; 0 means
	// DefaultMaxDepth.
	MaxDepth int
}

func (o DecodeOptions) depth() int {
	if o.MaxDepth <= 0 {
		return DefaultMaxDepth
	}
	return o.MaxDepth
}

// NewScanner returns a scanner of data that applies the options.
func (o DecodeOptions) NewScanner(data []byte) *Scanner {
	s := new(Scanner)
	s.init(o, o.Lenient)
	s.setData(data, 0, true)
	return s
}

// An Unmarshaler decodes a bencoded value of its own. UnmarshalBencode gets
// the exact bytes of one valid value; it must copy them to keep them after
// returning.
type Unmarshaler interface {
	UnmarshalBencode(data []byte) error
}

// An UnmarshalTypeError describes a bencoded value that does not fit the Go
// value it is decoded into.
type UnmarshalTypeError struct {
	Value  string       // the bencoded value: "integer 300", "string", "list", "dictionary"
	Type   reflect.Type // the Go type it could not be stored in
	Offset int64        // byte offset of the value in the input
	Field  string       // dotted path of dictionary keys from the top-level value to the field
}

func (e *UnmarshalTypeError) Error() string {
	where := ""
	if e.Field != "" {
		where = " (field " + strconv.Quote(e.Field) + ")"
	}
	return "bencode: cannot unmarshal " + e.Value + " into Go value of type " + e.Type.String() + where +
		" at byte offset " + strconv.FormatInt(e.Offset, 10)
}

// An InvalidUnmarshalError reports a value passed to Unmarshal or Decode that
// is not a non-nil pointer.
type InvalidUnmarshalError struct {
	Type reflect.Type
}

func (e *InvalidUnmarshalError) Error() string {
	if e.Type == nil {
		return "bencode: Unmarshal(nil)"
	}
	if e.Type.Kind() != reflect.Pointer {
		return "bencode: Unmarshal(non-pointer " + e.Type.String() + ")"
	}
	return "bencode: Unmarshal(nil " + e.Type.String() + ")"
}

// Unmarshal decodes the single bencoded value in data, strictly, into the
// value v points to. See DecodeOptions.Unmarshal.
func Unmarshal(data []byte, v any) error {
	return DecodeOptions{}.Unmarshal(data, v)
}

// Unmarshal decodes the bencoded value in data into the value v points to,
// allocating maps, slices and pointers as needed:
//
//   - an integer into any integer kind (an error if it overflows), a bool
//     (0 or 1), a float, a big.Int or *big.Int;
//   - a string into a string, a []byte, or a byte array of the same length;
//   - a list into a slice or an array;
//   - a dictionary into a map with string keys, or a struct, whose fields
//     are matched to keys exactly (see Marshal for the field names); keys
//     with no field are skipped;
//   - any value into a RawMessage (its exact bytes) or an Unmarshaler;
//   - any value into an empty interface: int64 (or *big.Int beyond 64 bits),
//     []byte, []any, map[string]any.
//
// The []byte and RawMessage values Unmarshal stores share one copy of data
// it makes when it first needs one, so data may be changed afterwards.
func (o DecodeOptions) Unmarshal(data []byte, v any) error {
	return o.decode(data, 0, v)
}

// decode unmarshals data, which starts at input offset base, into v.
func (o DecodeOptions) decode(data []byte, base int64, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidUnmarshalError{reflect.TypeOf(v)}
	}
	d := decodeState{data: data}
	d.scan.init(o, false)
	d.scan.setData(data, base, true)
	if err := d.value(rv.Elem()); err != nil {
		return err
	}
	if o.Lenient {
		return nil
	}
	if _, err := d.scan.next(); err != io.EOF {
		return err
	}
	return nil
}

// decodeState decodes one value from data.
type decodeState struct {
	scan  Scanner
	data  []byte
	owned []byte   // a copy of data that decoded values may share
	path  []string // keys from the top-level value to the value being decoded
}

// bytes returns a slice of the copy of data holding the same bytes as b, a
// slice of data.
func (d *decodeState) bytes(b []byte) []byte {
	if d.owned == nil {
		d.owned = append([]byte(nil), d.data...)
	}
	i := cap(d.data) - cap(b) // b = data[i:i+len(b)]
	return d.owned[i : i+len(b) : i+len(b)]
}

func (d *decodeState) nextToken() (Token, error) {
	tok, err := d.scan.next()
	return tok, unexpectedEOF(&d.scan, err)
}

func (d *decodeState) value(v reflect.Value) error {
	tok, err := d.nextToken()
	if err != nil {
		return err
	}
	return d.valueFrom(tok, v)
}

// skip scans past the rest of the value begun by tok and returns its bytes.
func (d *decodeState) skip(tok Token) ([]byte, error) {
	end, err := d.scan.Skip(tok)
	if err != nil {
		return nil, err
	}
	return d.scan.data[tok.Offset-d.scan.base : end-d.scan.base], nil
}

func (d *decodeState) typeError(tok Token, t reflect.Type) error {
	value := tok.Kind.String()
	if tok.Kind == Integer {
		value += " " + string(tok.Value)
	}
	return &UnmarshalTypeError{Value: value, Type: t, Offset: tok.Offset, Field: strings.Join(d.path, ".")}
}

var (
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
	rawMessageType  = reflect.TypeFor[RawMessage]()
	bigIntType      = reflect.TypeFor[big.Int]()
)

// valueFrom decodes the value begun by tok into v.
func (d *decodeState) valueFrom(tok Token, v reflect.Value) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	t := v.Type()
	switch {
	case t == rawMessageType:
		raw, err := d.skip(tok)
		if err == nil {
			v.SetBytes(d.bytes(raw))
		}
		return err
	case t == bigIntType:
		if tok.Kind != Integer {
			return d.typeError(tok, t)
		}
		v.Addr().Interface().(*big.Int).SetString(string(tok.Value), 10)
		return nil
	case v.CanAddr() && reflect.PointerTo(t).Implements(unmarshalerType):
		raw, err := d.skip(tok)
		if err == nil {
			err = v.Addr().Interface().(Unmarshaler).UnmarshalBencode(raw)
		}
		return err
	case v.Kind() == reflect.Interface && v.NumMethod() == 0:
		x, err := d.anyFrom(tok)
		if err == nil {
			v.Set(reflect.ValueOf(x))
		}
		return err
	}
	switch tok.Kind {
	case Integer:
		return d.integer(tok, v)
	case String:
		return d.str(tok, v)
	case ListStart:
		return d.list(tok, v)
	case DictStart:
		return d.dict(tok, v)
	}
	return d.scan.fail(int(tok.Offset-d.scan.base), "unexpected %v", tok.Kind)
}

func (d *decodeState) integer(tok Token, v reflect.Value) error {
	digits := tok.Value
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := parseInt(digits)
		if !ok || v.OverflowInt(n) {
			return d.typeError(tok, v.Type())
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(string(digits), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return d.typeError(tok, v.Type())
		}
		v.SetUint(n)
	case reflect.Bool:
		if len(digits) != 1 || digits[0] > '1' {
			return d.typeError(tok, v.Type())
		}
		v.SetBool(digits[0] == '1')
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(string(digits), v.Type().Bits())
		if err != nil {
			return d.typeError(tok, v.Type())
		}
		v.SetFloat(f)
	default:
		return d.typeError(tok, v.Type())
	}
	return nil
}

func (d *decodeState) str(tok Token, v reflect.Value) error {
	switch {
	case v.Kind() == reflect.String:
		v.SetString(string(tok.Value))
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		v.SetBytes(d.bytes(tok.Value))
	case v.Kind() == reflect.Array && v.Type().Elem().Kind() == reflect.Uint8 && v.Len() == len(tok.Value):
		reflect.Copy(v, reflect.ValueOf(tok.Value))
	default:
		return d.typeError(tok, v.Type())
	}
	return nil
}

func (d *decodeState) list(tok Token, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Slice:
		v.SetLen(0)
		elem := v.Type().Elem()
		for i := 0; ; i++ {
			tok, err := d.nextToken()
			if err != nil {
				return err
			}
			if tok.Kind == End {
				if v.IsNil() {
					v.Set(reflect.MakeSlice(v.Type(), 0, 0))
				}
				return nil
			}
			if i == v.Cap() {
				v.Set(reflect.Append(v, reflect.Zero(elem)))
			} else {
				v.SetLen(i + 1)
				v.Index(i).SetZero()
			}
			if err := d.valueFrom(tok, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Array:
		for i := 0; ; i++ {
			tok, err := d.nextToken()
			if err != nil {
				return err
			}
			if tok.Kind == End {
				for ; i < v.Len(); i++ {
					v.Index(i).SetZero()
				}
				return nil
			}
			if i >= v.Len() {
				return d.typeError(tok, v.Type())
			}
			if err := d.valueFrom(tok, v.Index(i)); err != nil {
				return err
			}
		}
	}
	return d.typeError(tok, v.Type())
}

func (d *decodeState) dict(tok Token, v reflect.Value) error {
	switch {
	case v.Kind() == reflect.Struct:
		return d.structFields(v)
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		return d.mapEntries(v)
	}
	return d.typeError(tok, v.Type())
}

func (d *decodeState) structFields(v reflect.Value) error {
	fields := cachedFields(v.Type())
	for {
		tok, err := d.nextToken()
		if err != nil || tok.Kind == End {
			return err
		}
		f, ok := fields.byName[string(tok.Value)]
		if !ok {
			if tok, err = d.nextToken(); err == nil {
				_, err = d.skip(tok)
			}
			if err != nil {
				return err
			}
			continue
		}
		d.path = append(d.path, f.name)
		err = d.value(fieldByIndex(v, f.index))
		d.path = d.path[:len(d.path)-1]
		if err != nil {
			return err
		}
	}
}

func (d *decodeState) mapEntries(v reflect.Value) error {
	t := v.Type()
	if v.IsNil() {
		v.Set(reflect.MakeMap(t))
	}
	elem := reflect.New(t.Elem()).Elem()
	for {
		tok, err := d.nextToken()
		if err != nil || tok.Kind == End {
			return err
		}
		key := reflect.ValueOf(string(tok.Value)).Convert(t.Key())
		elem.SetZero()
		d.path = append(d.path, string(tok.Value))
		err = d.value(elem)
		d.path = d.path[:len(d.path)-1]
		if err != nil {
			return err
		}
		v.SetMapIndex(key, elem)
	}
}

// fieldByIndex returns the field of struct v at index, allocating embedded
// struct pointers on the way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// parseInt parses the digits of an Integer token, reporting whether the
// value fits in an int64.
func parseInt(digits []byte) (int64, bool) {
	neg := digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	if len(digits) > 19 { // 19 digits cannot wrap a uint64
		return 0, false
	}
	var n uint64
	for _, c := range digits {
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}
