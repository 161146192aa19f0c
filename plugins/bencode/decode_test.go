package bencode

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"sync"
	"testing"
)

type tagged struct {
	Name    string `bencode:"name"`
	Length  int64  `bencode:"length,omitempty"`
	Skipped string `bencode:"-"`
	Plain   int
	private int
}

type embedded struct {
	Inner
	*PtrInner
	Outer string `bencode:"outer"`
}

type Inner struct {
	A string `bencode:"a"`
	B string `bencode:"b"`
}

type PtrInner struct {
	C string `bencode:"c"`
}

type unexportedEmbedded struct {
	*hidden
	inner
	X int `bencode:"x,other,omitempty"`
}

type hidden struct{ H int }

type inner struct{ I int }

type conflict struct {
	Inner
	B int `bencode:"b"`
}

// upper is an Unmarshaler that keeps its input upper-cased.
type upper string

func (u *upper) UnmarshalBencode(data []byte) error {
	*u = upper(strings.ToUpper(string(data)))
	return nil
}

func (u upper) MarshalBencode() ([]byte, error) {
	return Marshal(strings.ToLower(string(u)))
}

type failing struct{}

func (failing) UnmarshalBencode([]byte) error { return errors.New("refused") }

func TestUnmarshal(t *testing.T) {
	bigN, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	tests := []struct {
		in   string
		ptr  any // a pointer to a new value of the target type
		want any // the value it should point to
	}{
		{"i42e", new(int), 42},
		{"i-128e", new(int8), int8(-128)},
		{"i65535e", new(uint16), uint16(65535)},
		{"i9223372036854775807e", new(int64), int64(math.MaxInt64)},
		{"i-9223372036854775808e", new(int64), int64(math.MinInt64)},
		{"i18446744073709551615e", new(uint64), uint64(math.MaxUint64)},
		{"i1e", new(bool), true},
		{"i0e", new(bool), false},
		{"i3e", new(float64), 3.0},
		{"3:abc", new(string), "abc"},
		{"3:abc", new([]byte), []byte("abc")},
		{"0:", new([]byte), []byte{}},
		{"3:abc", new([3]byte), [3]byte{'a', 'b', 'c'}},
		{"li1ei2ee", new([]int), []int{1, 2}},
		{"le", new([]int), []int{}},
		{"li1ei2ee", new([3]int), [3]int{1, 2, 0}},
		{"d1:ai1e1:bi2ee", new(map[string]int), map[string]int{"a": 1, "b": 2}},
		{"i-123456789012345678901234567890e", new(big.Int), *bigN},
		{"i-123456789012345678901234567890e", new(*big.Int), bigN},
		{"i5e", new(*int), ptr(5)},
		{"d5:Plaini7e7:Skipped1:y6:lengthi3e4:name1:xe", new(tagged), tagged{Name: "x", Length: 3, Plain: 7}},
		{"d7:privatei1e7:unknownli1eee", new(tagged), tagged{}},
		{"d1:a1:x1:b1:y1:c1:z5:outer1:oe", new(embedded), embedded{Inner{"x", "y"}, &PtrInner{"z"}, "o"}},
		{"d1:a1:x1:bi2ee", new(conflict), conflict{Inner{A: "x"}, 2}},
		{"d1:Ii2e1:xi3ee", new(unexportedEmbedded), unexportedEmbedded{inner: inner{2}, X: 3}},
		{"d1:Hi1e1:Ii2e1:xi3ee", &unexportedEmbedded{hidden: new(hidden)}, unexportedEmbedded{&hidden{1}, inner{2}, 3}},
		{"d1:a3:abce", new(map[string]upper), map[string]upper{"a": "3:ABC"}},
		{"d1:ali1ee1:bi2ee", new(map[string]RawMessage), map[string]RawMessage{"a": RawMessage("li1ee"), "b": RawMessage("i2e")}},
		{"i1e", new(any), int64(1)},
		{"i99999999999999999999e", new(any), mustBig("99999999999999999999")},
		{"3:abc", new(any), []byte("abc")},
		{"le", new(any), []any{}},
		{"de", new(any), map[string]any{}},
		{"d1:ali1e2:xyd0:i0eeee", new(any), map[string]any{"a": []any{int64(1), []byte("xy"), map[string]any{"": int64(0)}}}},
	}
	for _, tt := range tests {
		if err := Unmarshal([]byte(tt.in), tt.ptr); err != nil {
			t.Errorf("%q into %T: %v", tt.in, tt.ptr, err)
			continue
		}
		if got := reflect.ValueOf(tt.ptr).Elem().Interface(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q into %T: got %#v, want %#v", tt.in, tt.ptr, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func mustBig(s string) *big.Int {
	n, _ := new(big.Int).SetString(s, 10)
	return n
}

func TestUnmarshalTypeErrors(t *testing.T) {
	type file struct {
		Length uint8 `bencode:"length"`
	}
	type info struct {
		Files []file `bencode:"files"`
	}
	type torrent struct {
		Info info `bencode:"info"`
	}
	tests := []struct {
		in     string
		ptr    any
		value  string
		offset int64
		field  string
	}{
		{"i300e", new(uint8), "integer 300", 0, ""},
		{"i-1e", new(uint), "integer -1", 0, ""},
		{"i128e", new(int8), "integer 128", 0, ""},
		{"i9223372036854775808e", new(int64), "integer 9223372036854775808", 0, ""},
		{"i2e", new(bool), "integer 2", 0, ""},
		{"3:abc", new(int), "string", 0, ""},
		{"i1e", new(string), "integer 1", 0, ""},
		{"le", new(string), "list", 0, ""},
		{"de", new([]int), "dictionary", 0, ""},
		{"2:ab", new([3]byte), "string", 0, ""},
		{"li1ei2ee", new([1]int), "integer 2", 4, ""},
		{"3:abc", new(big.Int), "string", 0, ""},
		{"i1e", new(map[int]int), "integer 1", 0, ""},
		{"i1e", new(error), "integer 1", 0, ""},
		{"i1e", new(chan int), "integer 1", 0, ""},
		{"d4:infod5:filesld6:lengthi1eed6:lengthi256eeeee", new(torrent), "integer 256", 38, "info.files.length"},
		{"d1:ad1:bi1.5eee", new(map[string]map[string]string), "", 0, ""},
		{"d1:ad1:b3:xyzee", new(map[string]map[string]int), "string", 8, "a.b"},
	}
	for _, tt := range tests {
		err := Unmarshal([]byte(tt.in), tt.ptr)
		if tt.value == "" {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("%q into %T: got %v, want a *SyntaxError", tt.in, tt.ptr, err)
			}
			continue
		}
		var te *UnmarshalTypeError
		if !errors.As(err, &te) || te.Value != tt.value || te.Offset != tt.offset || te.Field != tt.field {
			t.Errorf("%q into %T: got %#v; want value %q offset %d field %q", tt.in, tt.ptr, err, tt.value, tt.offset, tt.field)
			continue
		}
		if te.Type != reflect.TypeOf(tt.ptr).Elem() && tt.field == "" && tt.offset == 0 {
			t.Errorf("%q into %T: type %v", tt.in, tt.ptr, te.Type)
		}
		if !strings.Contains(err.Error(), tt.value) || !strings.Contains(err.Error(), "offset") {
			t.Errorf("error %q does not say what and where", err)
		}
	}
}

func TestUnmarshalInvalidArgument(t *testing.T) {
	var n int
	for _, v := range []any{nil, n, (*int)(nil)} {
		var ie *InvalidUnmarshalError
		if err := Unmarshal([]byte("i1e"), v); !errors.As(err, &ie) || err.Error() == "" {
			t.Errorf("Unmarshal into %#v: %v", v, err)
		}
	}
}

func TestUnmarshalUnmarshalerError(t *testing.T) {
	var f failing
	if err := Unmarshal([]byte("i1e"), &f); err == nil || err.Error() != "refused" {
		t.Errorf("got %v, want the Unmarshaler's error", err)
	}
}

func TestUnmarshalStrictAndLenient(t *testing.T) {
	tests := []struct {
		in      string
		strict  bool // accepted in strict mode
		lenient bool // accepted in lenient mode
	}{
		{"d1:bi1e1:ai2ee", false, true},
		{"d1:ai1e1:ai2ee", false, true},
		{"i1ei2e", false, true},
		{"i1e\n", false, true},
		{"i01e", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		var v any
		if err := Unmarshal([]byte(tt.in), &v); (err == nil) != tt.strict {
			t.Errorf("strict %q: %v", tt.in, err)
		}
		if err := (DecodeOptions{Lenient: true}).Unmarshal([]byte(tt.in), &v); (err == nil) != tt.lenient {
			t.Errorf("lenient %q: %v", tt.in, err)
		}
	}
	// Later values of a repeated key win; RawMessage keeps the bytes as they are.
	var m map[string]int
	if err := (DecodeOptions{Lenient: true}).Unmarshal([]byte("d1:bi1e1:ai2e1:bi3ee"), &m); err != nil || m["b"] != 3 || m["a"] != 2 {
		t.Errorf("lenient map: %v, %v", m, err)
	}
	var raw RawMessage
	in := "d1:bi1e1:ai2e1:bi3ee"
	if err := (DecodeOptions{Lenient: true}).Unmarshal([]byte(in), &raw); err != nil || string(raw) != in {
		t.Errorf("lenient RawMessage: %q, %v", raw, err)
	}
}

func TestUnmarshalCopy(t *testing.T) {
	type value struct {
		A []byte     `bencode:"a"`
		B RawMessage `bencode:"b"`
		C any        `bencode:"c"`
	}
	in := "d1:a3:abc1:bli1ee1:c2:xye"
	data := []byte(in)
	var shared, copied value
	if err := Unmarshal(data, &shared); err != nil {
		t.Fatal(err)
	}
	if err := (DecodeOptions{Copy: true}).Unmarshal(data, &copied); err != nil {
		t.Fatal(err)
	}
	copy(data, strings.ToUpper(in))
	if string(shared.A) != "ABC" || string(shared.B) != "LI1EE" || string(shared.C.([]byte)) != "XY" {
		t.Errorf("values do not share the input: %q %q %q", shared.A, shared.B, shared.C)
	}
	v := copied
	if string(v.A) != "abc" || string(v.B) != "li1ee" || string(v.C.([]byte)) != "xy" {
		t.Errorf("values changed with the input: %q %q %q", v.A, v.B, v.C)
	}
	// Appending to one value must not write over another.
	_ = append(v.A, "XXXXXX"...)
	if string(v.B) != "li1ee" {
		t.Errorf("append to A changed B: %q", v.B)
	}
}

func TestUnmarshalReusesSlices(t *testing.T) {
	s := []int{9, 9, 9, 9}
	if err := Unmarshal([]byte("li1ei2ee"), &s); err != nil || !reflect.DeepEqual(s, []int{1, 2}) {
		t.Errorf("got %v, %v", s, err)
	}
}

func TestUnmarshalDeep(t *testing.T) {
	n := DefaultMaxDepth
	in := []byte(strings.Repeat("l", n) + strings.Repeat("e", n))
	var v any
	if err := Unmarshal(in, &v); err != nil {
		t.Fatalf("depth %d: %v", n, err)
	}
	out, err := Marshal(v)
	if err != nil || !bytes.Equal(out, in) {
		t.Errorf("re-encoding depth %d: %v", n, err)
	}
	in = []byte(strings.Repeat("l", n+1) + strings.Repeat("e", n+1))
	if err := Unmarshal(in, &v); err == nil {
		t.Errorf("depth %d accepted", n+1)
	}
}

type node struct {
	Kids []node `bencode:"k,omitempty"`
}

func TestUnmarshalRecursiveType(t *testing.T) {
	var n node
	if err := Unmarshal([]byte("d1:kld1:kldeeedeee"), &n); err != nil {
		t.Fatal(err)
	}
	if len(n.Kids) != 2 || len(n.Kids[0].Kids) != 1 {
		t.Errorf("got %+v", n)
	}
}

func TestUnmarshalCorpus(t *testing.T) {
	for _, class := range []string{"valid", "edge"} {
		for _, f := range corpus(t, class) {
			var v any
			if err := Unmarshal(f.data, &v); err != nil {
				t.Errorf("%s/%s: %v", class, f.name, err)
				continue
			}
			out, err := Marshal(v)
			if err != nil || !bytes.Equal(out, f.data) {
				t.Errorf("%s/%s: re-encoding differs (%v)", class, f.name, err)
			}
			var raw RawMessage
			if err := Unmarshal(f.data, &raw); err != nil || !bytes.Equal(raw, f.data) {
				t.Errorf("%s/%s: RawMessage differs (%v)", class, f.name, err)
			}
		}
	}
	for _, f := range corpus(t, "malformed") {
		var v any
		err := Unmarshal(f.data, &v)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("malformed/%s: got %v, want a *SyntaxError", f.name, err)
		}
	}
}

func TestUnmarshalMoreTypes(t *testing.T) {
	var b blob
	if err := Unmarshal([]byte("2:xy"), &b); err != nil || string(b) != "xy" {
		t.Errorf("blob: %q, %v", b, err)
	}
	var tw taggedWins
	if err := Unmarshal([]byte("d1:Xi5ee"), &tw); err != nil || tw.First.X != 5 || tw.Second.X != 0 {
		t.Errorf("taggedWins: %+v, %v", tw, err)
	}
	var f float32
	if err := Unmarshal([]byte("i99999999999999999999999999999999999999999e"), &f); err == nil {
		t.Errorf("float32 overflow accepted: %v", f)
	}
	if err := Unmarshal([]byte("le"), &f); err == nil {
		t.Error("a list into a float accepted")
	}
	if err := Unmarshal([]byte("i1e"), &b); err == nil {
		t.Error("an integer into []byte accepted")
	}
}

func TestScannerDepthMethod(t *testing.T) {
	s := NewScanner([]byte("lli1eee"))
	var depths []int
	for {
		if _, err := s.Next(); err != nil {
			break
		}
		depths = append(depths, s.Depth())
	}
	if fmt.Sprint(depths) != "[1 2 2 1 0]" {
		t.Errorf("depths %v", depths)
	}
}

func TestUnmarshalLongIntegers(t *testing.T) {
	ok := "i" + strings.Repeat("9", maxBigDigits) + "e"
	long := "i" + strings.Repeat("9", maxBigDigits+1) + "e"
	var n big.Int
	if err := Unmarshal([]byte(ok), &n); err != nil || len(n.String()) != maxBigDigits {
		t.Errorf("%d digits into big.Int: %v", maxBigDigits, err)
	}
	for _, ptr := range []any{new(big.Int), new(any), new([]any)} {
		in := long
		if _, ok := ptr.(*[]any); ok {
			in = "l" + long + "e"
		}
		var te *UnmarshalTypeError
		err := Unmarshal([]byte(in), ptr)
		if !errors.As(err, &te) || te.Value != fmt.Sprintf("integer of %d digits", maxBigDigits+1) {
			t.Errorf("%d digits into %T: %v", maxBigDigits+1, ptr, err)
		}
	}
	// Kept whole where nothing converts them.
	var raw RawMessage
	if err := Unmarshal([]byte(long), &raw); err != nil || string(raw) != long {
		t.Errorf("RawMessage of a long integer: %v", err)
	}
}

// TestConcurrentUse runs Unmarshal and Marshal from several goroutines, so
// that the race detector sees the shared caches and pools.
func TestConcurrentUse(t *testing.T) {
	type file struct {
		Length int64    `bencode:"length"`
		Path   []string `bencode:"path"`
	}
	in := []byte("d6:lengthi42e4:pathl1:a1:bee")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				var f file
				var v any
				if err := Unmarshal(in, &f); err != nil || f.Length != 42 {
					t.Errorf("Unmarshal: %+v, %v", f, err)
					return
				}
				if err := Unmarshal(in, &v); err != nil {
					t.Error(err)
					return
				}
				if out, err := Marshal(v); err != nil || !bytes.Equal(out, in) {
					t.Errorf("Marshal: %q, %v", out, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestUnmarshalIntoHeldPointer checks that decoding into an interface
// holding a non-nil pointer decodes into what it points to, as
// encoding/json does, and that pointers that lead back to the interface
// neither loop nor overflow the stack.
func TestUnmarshalIntoHeldPointer(t *testing.T) {
	var target Inner
	var x any = &target
	if err := Unmarshal([]byte("d1:a1:x1:b1:ye"), &x); err != nil || x != any(&target) || target != (Inner{"x", "y"}) {
		t.Errorf("into an any holding a *Inner: %#v, %+v, %v", x, target, err)
	}
	var s struct {
		F any
		S fmt.Stringer
	}
	s.F, s.S = &Inner{}, new(stringer)
	if err := Unmarshal([]byte("d1:Fd1:a1:xe1:S3:abce"), &s); err != nil || *s.F.(*Inner) != (Inner{A: "x"}) || *s.S.(*stringer) != "abc" {
		t.Errorf("into fields holding pointers: %+v, %v", s, err)
	}
	var self any
	self = &self
	if err := Unmarshal([]byte("i5e"), &self); err != nil || self != any(int64(5)) {
		t.Errorf("into an any holding a pointer to itself: %#v, %v", self, err)
	}
	var y, z any
	y, z = &z, &y
	var te *UnmarshalTypeError
	if err := Unmarshal([]byte("i5e"), &y); !errors.As(err, &te) {
		t.Errorf("into two anys holding pointers to each other: %v, want an *UnmarshalTypeError", err)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

// TestUnmarshalSyntaxFirst checks that invalid input is a *SyntaxError even
// where a value that does not fit its Go type comes before the fault.
func TestUnmarshalSyntaxFirst(t *testing.T) {
	for _, in := range []string{"li300e", "li300eexx", "li300ei1e", "d1:Ai300e1:Bi1e1:Bi2ee"} {
		var v struct{ A int8 }
		var xs []int8
		var se *SyntaxError
		err := Unmarshal([]byte(in), &xs)
		if in[0] == 'd' {
			err = Unmarshal([]byte(in), &v)
		}
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a *SyntaxError", in, err)
		}
	}
	var xs []int8
	var te *UnmarshalTypeError
	if err := Unmarshal([]byte("li300ee"), &xs); !errors.As(err, &te) {
		t.Errorf("valid input that does not fit: %v, want an *UnmarshalTypeError", err)
	}
}

// TestUnmarshalUnexportedEmbeddedNil checks that a key of a field promoted
// from a nil pointer to an unexported struct, which cannot be allocated, is
// an *UnmarshalTypeError (encoding/json fails there too), not a panic.
func TestUnmarshalUnexportedEmbeddedNil(t *testing.T) {
	var v unexportedEmbedded
	var te *UnmarshalTypeError
	if err := Unmarshal([]byte("d1:Hi1e1:Ii2ee"), &v); !errors.As(err, &te) {
		t.Errorf("into a nil unexported embedded pointer: %v, want an *UnmarshalTypeError", err)
	}
}

// TestBigDigits checks the limit on the digits of integers decoded into
// big integers, the sign not counted.
func TestBigDigits(t *testing.T) {
	for _, sign := range []string{"", "-"} {
		ok := "i" + sign + "1" + strings.Repeat("0", maxBigDigits-1) + "e"
		over := "i" + sign + "1" + strings.Repeat("0", maxBigDigits) + "e"
		var b big.Int
		var a any
		var v Value
		if err := Unmarshal([]byte(ok), &b); err != nil {
			t.Errorf("%s%d digits into a big.Int: %v", sign, maxBigDigits, err)
		}
		if err := Unmarshal([]byte(ok), &a); err != nil {
			t.Errorf("%s%d digits into an any: %v", sign, maxBigDigits, err)
		}
		if err := Unmarshal([]byte(ok), &v); err != nil {
			t.Errorf("%s%d digits into a Value: %v", sign, maxBigDigits, err)
		}
		err := Unmarshal([]byte(over), &b)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("of %d digits", maxBigDigits+1)) {
			t.Errorf("%s%d digits into a big.Int: %v, want an error naming %d digits", sign, maxBigDigits+1, err, maxBigDigits+1)
		}
	}
}

// structUnmarshaler is an Unmarshaler that decodes its value into a struct.
type structUnmarshaler struct{ A int }

func (i *structUnmarshaler) UnmarshalBencode(data []byte) error {
	var v struct {
		A int `bencode:"a"`
	}
	err := Unmarshal(data, &v)
	i.A = v.A
	return err
}

// sharedError is an Unmarshaler that returns one error value each time.
type sharedError struct{}

var theSharedError = &UnmarshalTypeError{Value: "string", Type: reflect.TypeFor[int](), Offset: 0, Field: "k"}

func (sharedError) UnmarshalBencode([]byte) error { return theSharedError }

// TestUnmarshalerErrorInInput checks the errors of Unmarshalers: their
// offsets are the input's (they were their values', an Unmarshal of the
// value), and the field path is added to a copy (the Unmarshaler's own error
// value, which it may share, grew at each call: "k", "k.k", "k.k.k").
func TestUnmarshalerErrorInInput(t *testing.T) {
	var v struct {
		P string            `bencode:"p"`
		U structUnmarshaler `bencode:"u"`
	}
	err := Unmarshal([]byte("d1:p10:xxxxxxxxxx1:ud1:a1:xee"), &v)
	var te *UnmarshalTypeError
	if !errors.As(err, &te) || te.Offset != 24 || te.Field != "u.a" {
		t.Errorf("an Unmarshaler's type error: %v, want field u.a at byte offset 24", err)
	}
	var w struct {
		S sharedError `bencode:"s"`
	}
	for range 3 {
		if err := Unmarshal([]byte("d1:s1:xe"), &w); !errors.As(err, &te) || te.Field != "s.k" || te.Offset != 4 {
			t.Errorf("a shared error: %v, want field s.k at byte offset 4", err)
		}
	}
	if theSharedError.Field != "k" || theSharedError.Offset != 0 {
		t.Errorf("the Unmarshaler's own error changed: %+v", theSharedError)
	}
}
