package bencode

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

type badMarshaler struct{ out string }

func (b badMarshaler) MarshalBencode() ([]byte, error) { return []byte(b.out), nil }

type errMarshaler struct{}

func (errMarshaler) MarshalBencode() ([]byte, error) { return nil, errors.New("refused") }

// ptrMarshaler has a Marshaler method on its pointer only.
type ptrMarshaler struct{ _ int }

func (p *ptrMarshaler) MarshalBencode() ([]byte, error) { return []byte("3:ptr"), nil }

func TestMarshal(t *testing.T) {
	long := strings.Repeat("x", longString+1)
	tests := []struct {
		in   any
		want string
	}{
		{42, "i42e"},
		{int8(-5), "i-5e"},
		{uint64(18446744073709551615), "i18446744073709551615e"},
		{true, "i1e"},
		{false, "i0e"},
		{"abc", "3:abc"},
		{"", "0:"},
		{[]byte{0, 1}, "2:\x00\x01"},
		{[2]byte{'h', 'i'}, "2:hi"},
		{[]int{1, 2}, "li1ei2ee"},
		{[]int(nil), "le"},
		{[2]string{"a", "b"}, "l1:a1:be"},
		{map[string]int{"b": 2, "a": 1, "": 0}, "d0:i0e1:ai1e1:bi2ee"},
		{map[string]any{"b": []any{int64(1), "x"}, "a\x00c": 1, "a\x00b": 2}, "d3:a\x00bi2e3:a\x00ci1e1:bli1e1:xee"},
		{map[string]int(nil), "de"},
		{mustBig("-123456789012345678901234567890"), "i-123456789012345678901234567890e"},
		{*mustBig("123456789012345678901234567890"), "i123456789012345678901234567890e"},
		{tagged{Name: "x", Skipped: "y", Plain: 3, private: 4}, "d5:Plaini3e4:name1:xe"},
		{tagged{Name: "x", Length: 5}, "d5:Plaini0e6:lengthi5e4:name1:xe"},
		{embedded{Inner{"x", "y"}, nil, "o"}, "d1:a1:x1:b1:y5:outer1:oe"},
		{embedded{Inner{"x", "y"}, &PtrInner{"z"}, "o"}, "d1:a1:x1:b1:y1:c1:z5:outer1:oe"},
		{conflict{Inner{"x", "y"}, 2}, "d1:a1:x1:bi2ee"},
		{unexportedEmbedded{&hidden{1}, inner{2}, 0}, "d1:Hi1e1:Ii2ee"},
		{unexportedEmbedded{nil, inner{2}, 0}, "d1:Ii2ee"},
		{struct {
			P *int `bencode:"p"`
			I any  `bencode:"i"`
		}{}, "de"},
		{struct {
			P *int `bencode:"p"`
			I any  `bencode:"i"`
		}{ptr(1), "s"}, "d1:i1:s1:pi1ee"},
		{struct {
			S []int        `bencode:"s,omitempty"`
			M map[string]a `bencode:"m,omitempty"`
			N int          `bencode:"n,omitempty"`
			B bool         `bencode:"b,omitempty"`
		}{}, "de"},
		{RawMessage("li1ee"), "li1ee"},
		{map[string]RawMessage{"a": RawMessage("d1:bi1e1:ai2ee")}, "d1:ad1:bi1e1:ai2eee"},
		{upper("ABC"), "3:abc"},
		{&ptrMarshaler{}, "3:ptr"},
		{[]ptrMarshaler{{}}, "l3:ptre"},
		{node{Kids: []node{{}, {Kids: []node{{}}}}}, "d1:klded1:kldeeeee"},
		{long, "1025:" + long},
		{[]any{[]byte(long), long, RawMessage("1025:" + long)}, "l1025:" + long + "1025:" + long + "1025:" + long + "e"},
	}
	for _, tt := range tests {
		got, err := Marshal(tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%#v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

type a = int

func TestMarshalErrors(t *testing.T) {
	type cyclic struct {
		Next *cyclic `bencode:"n"`
	}
	c := &cyclic{}
	c.Next = c
	var nilMarshaler *ptrMarshaler
	tests := []struct {
		in   any
		want any // a pointer to the error type expected
	}{
		{nil, new(*UnsupportedValueError)},
		{[]any{nil}, new(*UnsupportedValueError)},
		{(*int)(nil), new(*UnsupportedValueError)},
		{[]*int{nil}, new(*UnsupportedValueError)},
		{[]error{nil}, new(*UnsupportedValueError)},
		{nilMarshaler, new(*UnsupportedValueError)},
		{1.5, new(*UnsupportedTypeError)},
		{map[int]int{1: 1}, new(*UnsupportedTypeError)},
		{[]chan int{nil}, new(*UnsupportedTypeError)},
		{c, new(*UnsupportedValueError)},
		{badMarshaler{"i1"}, new(*MarshalerError)},
		{badMarshaler{"i1ei2e"}, new(*MarshalerError)},
		{badMarshaler{""}, new(*MarshalerError)},
		{errMarshaler{}, new(*MarshalerError)},
		{RawMessage(nil), new(*MarshalerError)},
		{RawMessage("x"), new(*MarshalerError)},
	}
	for _, tt := range tests {
		_, err := Marshal(tt.in)
		if err == nil || !errors.As(err, tt.want) || !strings.HasPrefix(err.Error(), "bencode: ") {
			t.Errorf("Marshal(%T): got %v, want a %T", tt.in, err, tt.want)
		}
	}
	var me *MarshalerError
	if _, err := Marshal(errMarshaler{}); !errors.As(err, &me) || errors.Unwrap(err).Error() != "refused" {
		t.Errorf("MarshalerError does not wrap the cause: %v", err)
	}
}

func TestEncoder(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	long := strings.Repeat("y", 2*longString)
	for _, v := range []any{1, "a", map[string]any{"k": long}} {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	want := "i1e1:ad1:k2048:" + long + "e"
	if buf.String() != want {
		t.Errorf("got %q", buf.String())
	}
	if err := enc.Encode(1.5); err == nil {
		t.Error("Encode(1.5) succeeded")
	}
	ew := NewEncoder(iotest.TruncateWriter(failWriter{}, 0))
	if err := ew.Encode(long); err != nil {
		t.Errorf("Encode to a writer that drops everything: %v", err)
	}
	if err := NewEncoder(failWriter{}).Encode(map[string]any{"a": long, "b": 1}); err == nil {
		t.Error("Encode ignored a write error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("write failed") }

func TestMarshalBigIntValueInInterface(t *testing.T) {
	var v any = *big.NewInt(-7)
	if got, err := Marshal(v); err != nil || string(got) != "i-7e" {
		t.Errorf("got %q, %v", got, err)
	}
}

type blob []byte

// Two embedded structs give the key "X": the tagged field wins.
type taggedWins struct {
	First
	Second
}

type First struct {
	X int `bencode:"X"`
}

type Second struct {
	X int
}

// At the same depth, two untagged fields with one key cancel out.
type cancelled struct {
	Second
	Third
}

type Third struct {
	X int
}

func TestMarshalReflected(t *testing.T) {
	arr := struct {
		A [2]byte `bencode:"a"`
	}{[2]byte{'h', 'i'}}
	tests := []struct {
		in   any
		want string
	}{
		{blob("xy"), "2:xy"},
		{&arr, "d1:a2:hie"},
		{taggedWins{First{1}, Second{2}}, "d1:Xi1ee"},
		{cancelled{Second{1}, Third{2}}, "de"},
		{struct {
			S struct{} `bencode:"s,omitempty"`
		}{}, "d1:sdee"},
	}
	for _, tt := range tests {
		got, err := Marshal(tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%#v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestRawMessageMethods(t *testing.T) {
	var m RawMessage
	if err := m.UnmarshalBencode([]byte("i1e")); err != nil || string(m) != "i1e" {
		t.Errorf("UnmarshalBencode: %q, %v", m, err)
	}
	if b, err := m.MarshalBencode(); err != nil || string(b) != "i1e" {
		t.Errorf("MarshalBencode: %q, %v", b, err)
	}
	if _, err := RawMessage(nil).MarshalBencode(); err == nil {
		t.Error("an empty RawMessage marshaled")
	}
}

// TestMarshalDecimal checks integers and lengths on both sides of the
// shortcut for those below 100.
func TestMarshalDecimal(t *testing.T) {
	for _, n := range []int64{0, 9, 10, 99, 100, 101, -1, -99, -100, 1 << 40, -1 << 63} {
		if got, err := Marshal(n); err != nil || string(got) != "i"+strconv.FormatInt(n, 10)+"e" {
			t.Errorf("Marshal(%d) = %q, %v", n, got, err)
		}
	}
	for _, n := range []int{0, 9, 10, 99, 100, 1000, longString - 1, longString, 5000} {
		s := strings.Repeat("s", n)
		want := strconv.Itoa(n) + ":" + s
		if got, err := Marshal(s); err != nil || string(got) != want {
			t.Errorf("Marshal of a string of %d bytes: %v", n, err)
		}
		if got, err := Marshal([]byte(s)); err != nil || string(got) != want {
			t.Errorf("Marshal of %d bytes: %v", n, err)
		}
	}
}

// TestMarshalAllocations checks that Marshal of the values Unmarshal makes
// allocates its result and nothing else.
func TestMarshalAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	long := strings.Repeat("p", 3*longString)
	var v any
	if err := Unmarshal([]byte("d1:ai1e1:bl1:x2:yyi-5ee1:cd1:d"+strconv.Itoa(len(long))+":"+long+"ee"), &v); err != nil {
		t.Fatal(err)
	}
	Marshal(v) // fill the pool
	if allocs := testing.AllocsPerRun(10, func() { Marshal(v) }); allocs != 1 {
		t.Errorf("%v allocations", allocs)
	}
}

// TestMarshalManyKeys checks the order of the keys of large maps, whose
// sort starts with the keys' first bytes: keys alike in those, keys that
// are prefixes of others, NUL bytes.
func TestMarshalManyKeys(t *testing.T) {
	for _, n := range []int{9, 100, 1000, 1<<16 + 1} {
		m := map[string]any{"": 0, "a": 1, "a\x00": 2, "a\x00\x00\x00\x00\x00\x00": 3, "a\x00\x00\x00\x00\x00\x00b": 4,
			"abcdef": 5, "abcdef1": 6, "abcdef0": 7, "abcdeg": 8, "\xff\xff\xff\xff\xff\xff\xff": 9}
		for i := len(m); i < n; i++ {
			m[fmt.Sprintf("k%x_%d", i%7, i)] = i
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := []byte{'d'}
		for _, k := range keys {
			want = fmt.Appendf(want, "%d:%si%de", len(k), k, m[k])
		}
		want = append(want, 'e')
		if got, err := Marshal(m); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d keys: wrong order (%v)", len(m), err)
		}
	}
}

// TestMarshalFewKeys checks maps of up to 9 entries, those taken straight
// from the map (one and two) and those sorted, over many iterations (whose
// order the runtime varies), and an error in any entry.
func TestMarshalFewKeys(t *testing.T) {
	keys := []string{"b", "a", "", "a\x00", "ab", "\xff", "B", "aa", "ba"}
	for n := range len(keys) + 1 {
		m := map[string]any{}
		for i, k := range keys[:n] {
			m[k] = int64(i)
		}
		sorted := slices.Sorted(maps.Keys(m))
		want := []byte{'d'}
		for _, k := range sorted {
			want = fmt.Appendf(want, "%d:%si%de", len(k), k, m[k])
		}
		want = append(want, 'e')
		for range 20 {
			if got, err := Marshal(m); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%d keys: %q, %v; want %q", n, got, err, want)
			}
		}
		for _, k := range keys[:n] {
			m[k] = 1.5
			if got, err := Marshal(map[string]any{"x": m}); err == nil {
				t.Errorf("%d keys, a float at %q: %q", n, k, got)
			}
			m[k] = int64(0)
		}
	}
}

// TestMarshalPointerCycle checks that a cycle of pointers and interfaces
// alone, which passes through no list or dictionary, is an
// *UnsupportedValueError, not a stack overflow.
func TestMarshalPointerCycle(t *testing.T) {
	type P *P
	var p P
	p = &p
	var a any
	a = &a
	for _, v := range []any{a, p} {
		var uv *UnsupportedValueError
		if _, err := Marshal(v); !errors.As(err, &uv) {
			t.Errorf("Marshal of %T in a cycle: %v, want an *UnsupportedValueError", v, err)
		}
	}
	if out, err := Marshal(ptr(ptr(ptr(1)))); err != nil || string(out) != "i1e" {
		t.Errorf("Marshal of a ***int: %q, %v", out, err)
	}
}

// TestMarshalRawAround checks that a RawMessage or a Marshaler's output
// with whitespace around its value (as a file read whole may have) is an
// error, not copied into the encoding, which it would make invalid.
func TestMarshalRawAround(t *testing.T) {
	for _, raw := range []string{"de\n", " i1e", "i1e ", "\n"} {
		var me *MarshalerError
		if out, err := Marshal(struct{ Info RawMessage }{RawMessage(raw)}); !errors.As(err, &me) {
			t.Errorf("Marshal of RawMessage %q: %q, %v; want a *MarshalerError", raw, out, err)
		}
		if out, err := Marshal(rawOutput(raw)); err == nil {
			t.Errorf("Marshal of a Marshaler giving %q: %q, want an error", raw, out)
		}
	}
	if out, err := Marshal(struct{ Info RawMessage }{RawMessage("d1:bi1e1:ai2ee")}); err != nil || string(out) != "d4:Infod1:bi1e1:ai2eee" {
		t.Errorf("Marshal of a RawMessage of unsorted keys: %q, %v", out, err)
	}
}

// rawOutput is a Marshaler whose output is its bytes.
type rawOutput string

func (r rawOutput) MarshalBencode() ([]byte, error) { return []byte(r), nil }

// reusing is a Marshaler whose output is a buffer it fills again at each
// call, as encoding/json allows.
type reusing struct{ c byte }

var reusedBuf []byte

func (r reusing) MarshalBencode() ([]byte, error) {
	reusedBuf = append(append(reusedBuf[:0], "2000:"...), bytes.Repeat([]byte{r.c}, 2000)...)
	return reusedBuf, nil
}

// TestMarshalerOutputCopied checks that a Marshaler's output is copied when
// it is returned, however long: a Marshaler may use its buffer again.
func TestMarshalerOutputCopied(t *testing.T) {
	out, err := Marshal([]reusing{{'a'}, {'b'}})
	want := "l2000:" + strings.Repeat("a", 2000) + "2000:" + strings.Repeat("b", 2000) + "e"
	if err != nil || string(out) != want {
		t.Errorf("Marshal of two Marshalers sharing a buffer: %.12q..., %v", out, err)
	}
	var buf bytes.Buffer
	if err := NewEncoder(&buf).Encode([]reusing{{'a'}, {'b'}}); err != nil || buf.String() != want {
		t.Errorf("Encoder: %.12q..., %v", buf.String(), err)
	}
}
