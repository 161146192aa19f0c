package bencode

import (
	"errors"
	"math/big"
	"reflect"
	"strconv"
	"sync"
)

// DecodeOptions control how input is checked. The zero value is strict with
// the default depth limit.
type DecodeOptions struct {
	// Lenient accepts dictionary keys that are unsorted or repeated (later
	// values replace earlier ones in maps and structs; RawMessage keeps the
	// bytes as they are), whitespace before and after a top-level value
	// (such as a final newline), and data after the first top-level value:
	// a Scanner, a Decoder and the codec go on to the next value, Unmarshal
	// ignores it. Whitespace and ignored data are reported to Warn.
	Lenient bool
	// MaxDepth limits how deeply lists and dictionaries nest; 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// Copy makes the []byte and RawMessage values Unmarshal stores share one
	// copy of its input instead of the input itself, so that the caller may
	// reuse the input (such as a network buffer) afterwards.
	Copy bool
	// Warn, if not nil, is called with a Warning for each run of bytes
	// that lenient mode accepts although strict mode rejects them:
	// whitespace outside the top-level values and data Unmarshal ignores. It is
	// called while decoding, in the decoding goroutine.
	Warn func(Warning)
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
	s.Reset(o, data)
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

// Error describes the value, the type, the field and the offset.
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

// Error describes the argument.
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
//     []byte, []any, map[string]any;
//   - any value into a Value, which holds the same in a form far cheaper to
//     make.
//
// The []byte, RawMessage and Value values Unmarshal stores (also inside an
// any) point into data rather than copying it, unless o.Copy is set: the
// caller must not modify data while they are in use. Strings are always
// copied.
func (o DecodeOptions) Unmarshal(data []byte, v any) error {
	return o.decode(data, 0, v)
}

// decode unmarshals data, which starts at input offset base, into v.
func (o DecodeOptions) decode(data []byte, base int64, v any) error {
	return o.decodeIn(data, base, v, false)
}

// decodeIn is decode; own says that data is the caller's to give away, so
// that with o.Copy the values share it rather than a copy.
func (o DecodeOptions) decodeIn(data []byte, base int64, v any, own bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidUnmarshalError{reflect.TypeOf(v)}
	}
	d := decodeStatePool.Get().(*decodeState)
	defer d.release()
	d.data, d.copy = data, o.Copy
	if own {
		d.owned = data
	}
	d.scan.init(o, false)
	d.scan.setData(data, base, true)
	d.scan.fixed = true
	var tok Token
	err := d.scan.read(&tok)
	if err == nil {
		err = typeDecoder(rv.Type().Elem())(d, tok, rv.Elem())
	}
	if err != nil {
		return d.syntaxFirst(err)
	}
	return d.scan.Finish()
}

// syntaxFirst returns the *SyntaxError of the input, if it has one, in place
// of err, the error that stopped decoding it: invalid input is a
// *SyntaxError whatever its value did not fit. The scan goes on to the end
// for one.
func (d *decodeState) syntaxFirst(err error) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		return err
	}
	for !d.scan.done || len(d.scan.stack) > 0 {
		if _, serr := d.scan.Next(); serr != nil {
			if errors.As(serr, &se) {
				return serr
			}
			return err
		}
	}
	if serr := d.scan.Finish(); errors.As(serr, &se) {
		return serr
	}
	return err
}

// decodeState decodes one value from data.
type decodeState struct {
	scan  Scanner
	data  []byte
	copy  bool   // decoded values must not share data
	owned []byte // a copy of data that decoded values share
	keys  *keyCache
	vtape valueTape // for decoding into any and into a Value
	// followed counts the pointers held in interfaces being decoded into
	// (interfaceDecoder), which may lead in a circle.
	followed int
}

var decodeStatePool = sync.Pool{New: func() any { return new(decodeState) }}

// release returns d to the pool, keeping its buffers (unless they grew
// large) and nothing of the input.
func (d *decodeState) release() {
	d.scan.Reset(DecodeOptions{}, nil)
	d.data, d.owned, d.followed = nil, nil, 0
	d.vtape.release()
	decodeStatePool.Put(d)
}

// bytes returns b, a slice of data, or the same bytes in a copy of data, as
// a slice that cannot be appended to in place.
func (d *decodeState) bytes(b []byte) []byte {
	if !d.copy {
		return b[:len(b):len(b)]
	}
	if d.owned == nil {
		d.owned = append([]byte(nil), d.data...)
	}
	i := cap(d.data) - cap(b) // b = data[i:i+len(b)]
	return d.owned[i : i+len(b) : i+len(b)]
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
	switch {
	case tok.Kind == Integer && len(tok.Value) > 40:
		value += " of " + strconv.Itoa(digitCount(tok.Value)) + " digits"
	case tok.Kind == Integer:
		value += " " + string(tok.Value)
	}
	return &UnmarshalTypeError{Value: value, Type: t, Offset: tok.Offset}
}

// inField adds the dictionary key of the field an *UnmarshalTypeError
// happened in to its path.
func inField(err error, key string) error {
	if e, ok := err.(*UnmarshalTypeError); ok {
		if e.Field != "" {
			key += "." + e.Field
		}
		e.Field = key
	}
	return err
}

// A decoderFunc decodes the value begun by tok into v, which is addressable.
type decoderFunc func(d *decodeState, tok Token, v reflect.Value) error

var decoderCache sync.Map // reflect.Type -> decoderFunc

// typeDecoder returns the decoder of type t, building it once.
func typeDecoder(t reflect.Type) decoderFunc {
	if f, ok := decoderCache.Load(t); ok {
		return f.(decoderFunc)
	}
	// A recursive type meets itself while its decoder is being built: it
	// gets a decoder that waits for the real one.
	var wg sync.WaitGroup
	var f decoderFunc
	wg.Add(1)
	fi, loaded := decoderCache.LoadOrStore(t, decoderFunc(func(d *decodeState, tok Token, v reflect.Value) error {
		wg.Wait()
		return f(d, tok, v)
	}))
	if loaded {
		return fi.(decoderFunc)
	}
	f = newTypeDecoder(t)
	wg.Done()
	decoderCache.Store(t, f)
	return f
}

var (
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
	rawMessageType  = reflect.TypeFor[RawMessage]()
	bigIntType      = reflect.TypeFor[big.Int]()
	bigIntPtrType   = reflect.TypeFor[*big.Int]()
)

func newTypeDecoder(t reflect.Type) decoderFunc {
	switch {
	case t == rawMessageType:
		return decodeRaw
	case t == valueType:
		return decodeValue
	case t == bigIntType:
		return decodeBig
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return decodeUnmarshaler
	}
	switch t.Kind() {
	case reflect.Pointer:
		return pointerDecoder(t)
	case reflect.Interface:
		return interfaceDecoder(t)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint
	case reflect.Bool:
		return decodeBool
	case reflect.Float32, reflect.Float64:
		return decodeFloat
	case reflect.String:
		return decodeString
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return decodeBytes
		}
		return sliceDecoder(t)
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return decodeByteArray
		}
		return arrayDecoder(t)
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return mapDecoder(t)
		}
	case reflect.Struct:
		return structDecoder(t)
	}
	return decodeNothing
}

// interfaceDecoder returns the decoder of the interface type t: into what
// a non-nil pointer the interface holds points to, as encoding/json does;
// otherwise, for an empty interface, the `any` form (decodeAny), and for
// others an error.
func interfaceDecoder(t reflect.Type) decoderFunc {
	otherwise := decodeNothing
	if t.NumMethod() == 0 {
		otherwise = decodeAny
	}
	return func(d *decodeState, tok Token, v reflect.Value) error {
		if v.IsNil() {
			return otherwise(d, tok, v)
		}
		e := v.Elem()
		if e.Kind() != reflect.Pointer || e.IsNil() {
			return otherwise(d, tok, v)
		}
		if e.Elem().Kind() == reflect.Interface && v.CanAddr() && e.Pointer() == v.Addr().Pointer() {
			return otherwise(d, tok, v) // var x any = &x
		}
		if d.followed >= maxPointerChain {
			return d.typeError(tok, v.Type()) // pointers in a circle
		}
		d.followed++
		err := typeDecoder(e.Type())(d, tok, e)
		d.followed--
		return err
	}
}

// maxPointerChain bounds the pointers held in interfaces that decoding
// follows one after the other, which may lead in a circle.
const maxPointerChain = 10000

// decodeNothing reports that no bencoded value fits v's type.
func decodeNothing(d *decodeState, tok Token, v reflect.Value) error {
	return d.typeError(tok, v.Type())
}

func decodeRaw(d *decodeState, tok Token, v reflect.Value) error {
	raw, err := d.skip(tok)
	if err == nil {
		v.SetBytes(d.bytes(raw))
	}
	return err
}

// maxBigDigits bounds the integers decoded into a big.Int, since the time
// that takes grows with the square of the number of digits. (A million
// digits would take a second.) RawMessage and the codec keep integers of
// any length.
const maxBigDigits = 10000

// digitCount returns the number of digits of an Integer token's value, its
// sign left out.
func digitCount(value []byte) int {
	if len(value) > 0 && value[0] == '-' {
		return len(value) - 1
	}
	return len(value)
}

func decodeBig(d *decodeState, tok Token, v reflect.Value) error {
	if tok.Kind != Integer || digitCount(tok.Value) > maxBigDigits {
		return d.typeError(tok, v.Type())
	}
	v.Addr().Interface().(*big.Int).SetString(string(tok.Value), 10)
	return nil
}

func decodeUnmarshaler(d *decodeState, tok Token, v reflect.Value) error {
	raw, err := d.skip(tok)
	if err == nil {
		err = inInput(v.Addr().Interface().(Unmarshaler).UnmarshalBencode(raw), tok.Offset)
	}
	return err
}

// inInput returns err, an Unmarshaler's error about its value, which starts
// at offset base of the input: an *UnmarshalTypeError or *SyntaxError (of
// an Unmarshal of the value) is copied with its offset made the input's,
// so that the error says where in the input the fault is, and the path of
// fields added to it does not change the Unmarshaler's own error value,
// which it may share.
func inInput(err error, base int64) error {
	switch e := err.(type) {
	case *UnmarshalTypeError:
		c := *e
		c.Offset += base
		return &c
	case *SyntaxError:
		c := *e
		c.Offset += base
		return &c
	}
	return err
}

func pointerDecoder(t reflect.Type) decoderFunc {
	elem := typeDecoder(t.Elem())
	return func(d *decodeState, tok Token, v reflect.Value) error {
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return elem(d, tok, v.Elem())
	}
}

func decodeAny(d *decodeState, tok Token, v reflect.Value) error {
	x, err := d.anyFrom(tok)
	if err == nil {
		v.Set(reflect.ValueOf(x))
	}
	return err
}

func decodeInt(d *decodeState, tok Token, v reflect.Value) error {
	if tok.Kind != Integer {
		return d.typeError(tok, v.Type())
	}
	n, ok := parseInt(tok.Value)
	if !ok || v.OverflowInt(n) {
		return d.typeError(tok, v.Type())
	}
	v.SetInt(n)
	return nil
}

func decodeUint(d *decodeState, tok Token, v reflect.Value) error {
	if tok.Kind != Integer || len(tok.Value) > 20 { // (no uint64 has more digits)
		return d.typeError(tok, v.Type())
	}
	n, err := strconv.ParseUint(string(tok.Value), 10, 64)
	if err != nil || v.OverflowUint(n) {
		return d.typeError(tok, v.Type())
	}
	v.SetUint(n)
	return nil
}

func decodeBool(d *decodeState, tok Token, v reflect.Value) error {
	if tok.Kind != Integer || len(tok.Value) != 1 || tok.Value[0] > '1' {
		return d.typeError(tok, v.Type())
	}
	v.SetBool(tok.Value[0] == '1')
	return nil
}

// maxFloatDigits bounds the integers decoded into a float: with no leading
// zero, any with more digits overflows a float64.
const maxFloatDigits = 310

func decodeFloat(d *decodeState, tok Token, v reflect.Value) error {
	if tok.Kind != Integer || len(tok.Value) > maxFloatDigits+1 {
		return d.typeError(tok, v.Type())
	}
	f, err := strconv.ParseFloat(string(tok.Value), v.Type().Bits())
	if err != nil {
		return d.typeError(tok, v.Type())
	}
	v.SetFloat(f)
	return nil
}

func decodeString(d *decodeState, tok Token, v reflect.Value) error {
	if tok.Kind != String {
		return d.typeError(tok, v.Type())
	}
	v.SetString(string(tok.Value))
	return nil
}

func decodeBytes(d *decodeState, tok Token, v reflect.Value) error {
	if tok.Kind != String {
		return d.typeError(tok, v.Type())
	}
	v.SetBytes(d.bytes(tok.Value))
	return nil
}

func decodeByteArray(d *decodeState, tok Token, v reflect.Value) error {
	if tok.Kind != String || len(tok.Value) != v.Len() {
		return d.typeError(tok, v.Type())
	}
	reflect.Copy(v, reflect.ValueOf(tok.Value))
	return nil
}

func sliceDecoder(t reflect.Type) decoderFunc {
	elem := typeDecoder(t.Elem())
	return func(d *decodeState, tok Token, v reflect.Value) error {
		if tok.Kind != ListStart {
			return d.typeError(tok, t)
		}
		v.SetLen(0)
		for i := 0; ; i++ {
			if err := d.scan.read(&tok); err != nil {
				return err
			}
			if tok.Kind == End {
				if v.IsNil() {
					v.Set(reflect.MakeSlice(t, 0, 0))
				}
				return nil
			}
			if i == v.Cap() {
				v.Grow(4) // from 4, then doubling: short lists are common
			}
			v.SetLen(i + 1)
			ev := v.Index(i)
			ev.SetZero()
			if err := elem(d, tok, ev); err != nil {
				return err
			}
		}
	}
}

func arrayDecoder(t reflect.Type) decoderFunc {
	elem := typeDecoder(t.Elem())
	return func(d *decodeState, tok Token, v reflect.Value) error {
		if tok.Kind != ListStart {
			return d.typeError(tok, t)
		}
		for i := 0; ; i++ {
			if err := d.scan.read(&tok); err != nil {
				return err
			}
			if tok.Kind == End {
				for ; i < v.Len(); i++ {
					v.Index(i).SetZero()
				}
				return nil
			}
			if i == v.Len() {
				return d.typeError(tok, t)
			}
			if err := elem(d, tok, v.Index(i)); err != nil {
				return err
			}
		}
	}
}

func mapDecoder(t reflect.Type) decoderFunc {
	elemDecoder := typeDecoder(t.Elem())
	return func(d *decodeState, tok Token, v reflect.Value) error {
		if tok.Kind != DictStart {
			return d.typeError(tok, t)
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		key := reflect.New(t.Key()).Elem()
		elem := reflect.New(t.Elem()).Elem()
		for {
			if err := d.scan.read(&tok); err != nil || tok.Kind == End {
				return err
			}
			key.SetString(string(tok.Value))
			elem.SetZero()
			err := d.scan.read(&tok)
			if err == nil {
				err = elemDecoder(d, tok, elem)
			}
			if err != nil {
				return inField(err, key.String())
			}
			v.SetMapIndex(key, elem)
		}
	}
}

func structDecoder(t reflect.Type) decoderFunc {
	type fieldDecoder struct {
		name  string
		index []int
		dec   decoderFunc
	}
	fields := cachedFields(t)
	list := make([]fieldDecoder, len(fields.list)) // sorted by name, as keys arrive
	byName := make(map[string]int, len(list))
	for i, f := range fields.list {
		list[i] = fieldDecoder{f.name, f.index, typeDecoder(t.FieldByIndex(f.index).Type)}
		byName[f.name] = i
	}
	// find returns the field for key: the next one in order (strict input
	// arrives sorted), or any (lenient input need not), or -1.
	find := func(key []byte, next int) int {
		for next < len(list) && list[next].name < string(key) {
			next++
		}
		if next < len(list) && list[next].name == string(key) {
			return next
		}
		if i, ok := byName[string(key)]; ok {
			return i
		}
		return -1
	}
	return func(d *decodeState, tok Token, v reflect.Value) error {
		if tok.Kind != DictStart {
			return d.typeError(tok, t)
		}
		for next := 0; ; {
			if err := d.scan.read(&tok); err != nil || tok.Kind == End {
				return err
			}
			i := find(tok.Value, next)
			err := d.scan.read(&tok)
			if err != nil {
				return err
			}
			if i < 0 {
				_, err = d.skip(tok)
			} else {
				f := &list[i]
				next = i + 1
				if fv, ok := fieldByIndex(v, f.index); !ok {
					err = inField(d.typeError(tok, t), f.name)
				} else if err = f.dec(d, tok, fv); err != nil {
					err = inField(err, f.name)
				}
			}
			if err != nil {
				return err
			}
		}
	}
}

// fieldByIndex returns the field of struct v at index, allocating embedded
// struct pointers on the way, or false when one of them is nil and of an
// unexported type, which cannot be set (encoding/json fails there too).
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
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
