package bencode

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mustValue(t *testing.T, in string) Value {
	t.Helper()
	var v Value
	if err := Unmarshal([]byte(in), &v); err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	return v
}

func TestValueMethods(t *testing.T) {
	in := "d8:announce3:url4:infod5:emptyde5:filesld6:lengthi5e4:pathl1:a1:beed6:lengthi-7e4:pathl1:ceee" +
		"4:name1:x6:piecesle" + "e3:numi99999999999999999999ee"
	v := mustValue(t, in)
	if v.Kind() != DictStart || v.Len() != 3 || !v.IsValid() {
		t.Fatalf("top: kind %v, len %d", v.Kind(), v.Len())
	}
	if got := v.Get("announce").Text(); got != "url" {
		t.Errorf(`Get("announce").Text() = %q`, got)
	}
	files := v.Get("info").Get("files")
	if files.Kind() != ListStart || files.Len() != 2 {
		t.Fatalf("files: kind %v, len %d", files.Kind(), files.Len())
	}
	if n, ok := files.Index(1).Get("length").Int(); n != -7 || !ok {
		t.Errorf("files[1].length = %d, %v", n, ok)
	}
	var path []string
	for i, p := range files.Index(0).Get("path").Items() {
		path = append(path, fmt.Sprint(i, string(p.Bytes())))
	}
	if want := []string{"0a", "1b"}; !slices.Equal(path, want) {
		t.Errorf("path items %q, want %q", path, want)
	}
	var keys []string
	for k, val := range v.Get("info").Entries() {
		keys = append(keys, string(k)+"="+val.Kind().String())
	}
	if want := []string{"empty=dictionary", "files=list", "name=string", "pieces=list"}; !slices.Equal(keys, want) {
		t.Errorf("entries %q, want %q", keys, want)
	}
	num := v.Get("num")
	if _, ok := num.Int(); ok {
		t.Error("Int of 20 digits fits an int64")
	}
	if n, ok := num.BigInt(); !ok || n.String() != "99999999999999999999" {
		t.Errorf("BigInt = %v, %v", n, ok)
	}
	for _, tt := range []struct {
		v    Value
		want string
	}{
		{v, in},
		{v.Get("info"), in[strings.Index(in, "4:infod")+6 : strings.Index(in, "3:num")]},
		{files.Index(1), "d6:lengthi-7e4:pathl1:cee"},
		{files.Index(1).Get("length"), "i-7e"},
		{v.Get("announce"), "3:url"},
		{v.Get("info").Get("pieces"), "le"},
		{v.Get("info").Get("empty"), "de"},
	} {
		if got := string(tt.v.Raw()); got != tt.want {
			t.Errorf("Raw = %q, want %q", got, tt.want)
		}
	}
	// What is not there is the zero Value, whatever is asked of it.
	for _, missing := range []Value{
		v.Get("nothing"), v.Index(0), files.Get("x"), files.Index(2), files.Index(-1),
		v.Get("announce").Get("x"), v.Get("num").Index(0), {},
	} {
		if missing.IsValid() || missing.Kind() != 0 || missing.Len() != 0 || missing.Bytes() != nil ||
			missing.Raw() != nil || missing.Any() != nil || missing.Text() != "" {
			t.Errorf("missing value %+v is not the zero Value", missing)
		}
		if _, ok := missing.Int(); ok {
			t.Error("Int of the zero Value")
		}
		if _, ok := missing.BigInt(); ok {
			t.Error("BigInt of the zero Value")
		}
		for range missing.Items() {
			t.Error("Items of the zero Value")
		}
		for range missing.Entries() {
			t.Error("Entries of the zero Value")
		}
	}
	// Bytes, keys and Raw are capped: appending copies them.
	name := v.Get("info").Get("name").Bytes()
	_ = append(name, 'Z')
	if got := v.Get("info").Get("pieces").Raw(); string(got) != "le" {
		t.Errorf("appending to a string changed the value after it: %q", got)
	}
}

// TestValueGet checks lookups in dictionaries of every size, strict (by
// halves) and lenient (the last of repeated keys).
func TestValueGet(t *testing.T) {
	for n := range 40 {
		var in strings.Builder
		in.WriteString("d")
		for i := range n {
			fmt.Fprintf(&in, "3:k%02di%de", i, i)
		}
		in.WriteString("e")
		v := mustValue(t, in.String())
		for i := range n {
			if got, _ := v.Get(fmt.Sprintf("k%02d", i)).Int(); got != int64(i) {
				t.Fatalf("%d entries: k%02d = %d", n, i, got)
			}
		}
		for _, key := range []string{"", "k", "k0", "k99", "j00", "l00", "k000"} {
			if v.Get(key).IsValid() {
				t.Errorf("%d entries: %q found", n, key)
			}
		}
	}
	var v Value
	if err := (DecodeOptions{Lenient: true}).Unmarshal([]byte("d1:bi1e1:ai2e1:bi3ee"), &v); err != nil {
		t.Fatal(err)
	}
	if b, _ := v.Get("b").Int(); b != 3 {
		t.Errorf("lenient, repeated key: %d, want the last value, 3", b)
	}
	if a, _ := v.Get("a").Int(); a != 2 {
		t.Errorf("lenient, unsorted key: %d", a)
	}
	if got := v.Any(); !reflect.DeepEqual(got, map[string]any{"a": int64(2), "b": int64(3)}) {
		t.Errorf("lenient Any = %v", got)
	}
	if string(v.Raw()) != "d1:bi1e1:ai2e1:bi3ee" {
		t.Errorf("lenient Raw = %q", v.Raw())
	}
	// Keys with NUL bytes, compared whole.
	v = mustValue(t, "d1:\x00i1e2:\x00\x00i2e1:ai3ee")
	if n, _ := v.Get("\x00\x00").Int(); n != 2 {
		t.Errorf(`Get("\x00\x00") = %d`, n)
	}
}

// TestValueCorpus checks every file of the corpus: a Value of a valid file
// gives back its bytes (Raw, Marshal), and the `any` Unmarshal gives (Any);
// a malformed file is the error decoding into an `any` gives.
func TestValueCorpus(t *testing.T) {
	for _, class := range []string{"valid", "edge", "malformed"} {
		for _, f := range corpus(t, class) {
			for _, o := range []DecodeOptions{{}, {Copy: true}, {Lenient: true}} {
				var v Value
				err := o.Unmarshal(f.data, &v)
				var a any
				anyErr := o.Unmarshal(f.data, &a)
				if fmt.Sprint(err) != fmt.Sprint(anyErr) {
					t.Errorf("%s/%s %+v: Value: %v; any: %v", class, f.name, o, err, anyErr)
					continue
				}
				if err != nil {
					continue
				}
				if !reflect.DeepEqual(v.Any(), a) {
					t.Errorf("%s/%s %+v: Any differs from Unmarshal into any", class, f.name, o)
				}
				if class == "malformed" {
					continue // lenient input
				}
				if !bytes.Equal(v.Raw(), f.data) {
					t.Errorf("%s/%s %+v: Raw differs from the input", class, f.name, o)
				}
				if out, err := Marshal(v); err != nil || !bytes.Equal(out, f.data) {
					t.Errorf("%s/%s %+v: Marshal: %v", class, f.name, o, err)
				}
			}
		}
	}
}

// TestValueErrors checks that decoding into a Value reports what decoding
// into an `any` does, at the same offsets, both forms of the first pass.
func TestValueErrors(t *testing.T) {
	long := "i" + strings.Repeat("9", maxBigDigits+1) + "e"
	for _, tt := range []struct {
		in     string
		offset int64
	}{
		{"", 0}, {"l", 1}, {"li1e", 4}, {"d1:a", 4}, {"d1:ae", 4}, {"di1ei2ee", 1},
		{"d1:bi1e1:ai2ee", 7}, {"d1:ai1e1:ai2ee", 7}, {"li01ee", 1}, {"li-0ee", 1}, {"lie", 1},
		{"l01:ae", 1}, {"l2:ae", 5}, {"lx", 1}, {"le1", 2}, {"lei", 2}, {"d1:ali1e" + long + "e1:blllee", 10020}, {"d1:ali1e" + long + "e1:bllleeee", 8},
		{"l" + long + "e", 1}, {long, 0}, {"l99999999999999999999999:e", 1},
		{strings.Repeat("l", 10001), 10000}, {"i-e", 0}, {"d0:e", 3}, {"ee", 0},
	} {
		for _, slow := range []bool{false, true} {
			slowOnly = slow
			var v Value
			err := Unmarshal([]byte(tt.in), &v)
			var a any
			anyErr := Unmarshal([]byte(tt.in), &a)
			slowOnly = false
			var se *SyntaxError
			var te *UnmarshalTypeError
			switch {
			case errors.As(err, &se):
				if se.Offset != tt.offset || fmt.Sprint(err) != fmt.Sprint(anyErr) {
					t.Errorf("%.40q (slow %v): %v, want offset %d; any: %v", tt.in, slow, err, tt.offset, anyErr)
				}
			case errors.As(err, &te):
				if te.Offset != tt.offset || te.Type != valueType || !errors.As(anyErr, &te) || te.Offset != tt.offset {
					t.Errorf("%.40q (slow %v): %v; any: %v", tt.in, slow, err, anyErr)
				}
			default:
				t.Errorf("%.40q (slow %v): %v", tt.in, slow, err)
			}
		}
	}
}

// TestValueFastSlow checks that both forms of the first pass record the
// same nodes for the corpus, in both modes.
func TestValueFastSlow(t *testing.T) {
	for _, class := range []string{"valid", "edge", "malformed"} {
		for _, f := range corpus(t, class) {
			for _, o := range []DecodeOptions{{}, {Lenient: true}, {MaxDepth: 3}} {
				fast, fastErr := firstPass(o, f.data, false)
				slow, slowErr := firstPass(o, f.data, true)
				if fmt.Sprint(fastErr) != fmt.Sprint(slowErr) || !reflect.DeepEqual(fast, slow) {
					t.Errorf("%s/%s %+v: fast %v, slow %v", class, f.name, o, fastErr, slowErr)
				}
			}
		}
	}
}

// firstPass runs the first pass of decoding data into an `any`, in its slow
// form or not, and returns what it records.
func firstPass(o DecodeOptions, data []byte, slow bool) (valueTape, error) {
	slowOnly = slow
	defer func() { slowOnly = false }()
	d := &decodeState{data: data}
	d.scan.init(o, false)
	d.scan.setData(data, 0, true)
	d.scan.fixed = true
	var tok Token
	err := d.scan.read(&tok)
	if err == nil && (tok.Kind == ListStart || tok.Kind == DictStart) {
		err = d.nodes(tok, true, bigIntPtrType)
	}
	if err == nil {
		err = d.scan.Finish()
	}
	if err != nil {
		return valueTape{}, err
	}
	t := d.vtape
	t.pending, t.open = nil, nil
	return t, nil
}

// TestValueShared checks that a Value refers to its input, or, with Copy
// and from a Decoder, to a copy.
func TestValueShared(t *testing.T) {
	in := "d1:a2:xy1:bl2:zzee"
	data := []byte(in)
	var shared, copied, decoded Value
	if err := Unmarshal(data, &shared); err != nil {
		t.Fatal(err)
	}
	if err := (DecodeOptions{Copy: true}).Unmarshal(data, &copied); err != nil {
		t.Fatal(err)
	}
	if err := NewDecoder(bytes.NewReader(data)).Decode(&decoded); err != nil {
		t.Fatal(err)
	}
	copy(data, strings.ToUpper(in))
	if got := shared.Get("A").Text(); got != "XY" || string(shared.Raw()) != strings.ToUpper(in) {
		t.Errorf("shared: %q, %q", got, shared.Raw())
	}
	for _, v := range []Value{copied, decoded} {
		if got := v.Get("b").Index(0).Text(); got != "zz" || string(v.Raw()) != in {
			t.Errorf("copied: %q, %q", got, v.Raw())
		}
	}
}

// TestValueFields checks Value in structs, both ways, and the zero Value.
func TestValueFields(t *testing.T) {
	type msg struct {
		A Value `bencode:"a"`
		B int   `bencode:"b"`
		C Value `bencode:"c,omitempty"`
	}
	in := "d1:ad1:xli1ei2eee1:bi3ee"
	var m msg
	if err := Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if n, _ := m.A.Get("x").Index(1).Int(); n != 2 || m.B != 3 || m.C.IsValid() {
		t.Errorf("decoded %+v", m)
	}
	if string(m.A.Raw()) != "d1:xli1ei2eee" {
		t.Errorf("A.Raw = %q", m.A.Raw())
	}
	// A zero Value field is left out, as a nil pointer or interface is.
	if out, err := Marshal(msg{B: 1}); err != nil || string(out) != "d1:bi1ee" {
		t.Errorf("Marshal with zero Value fields: %q, %v", out, err)
	}
	if out, err := Marshal([]Value{m.A, {}}); err == nil || !strings.Contains(err.Error(), "zero bencode.Value") {
		t.Errorf("Marshal of a zero Value in a list: %q, %v", out, err)
	}
	m.C = m.A.Get("x")
	if out, err := Marshal(&m); err != nil || string(out) != "d1:ad1:xli1ei2eee1:bi3e1:cli1ei2eee" {
		t.Errorf("Marshal: %q, %v", out, err)
	}
	if out, err := Marshal([]any{m.A, m.C.Index(0)}); err != nil || string(out) != "ld1:xli1ei2eeei1ee" {
		t.Errorf("Marshal of Values in an any: %q, %v", out, err)
	}
	if _, err := Marshal(Value{}); err == nil {
		t.Error("Marshal of the zero Value")
	}
	if raw, err := m.A.MarshalBencode(); err != nil || string(raw) != "d1:xli1ei2eee" {
		t.Errorf("MarshalBencode: %q, %v", raw, err)
	}
	var top Value
	if err := Unmarshal([]byte("4:spam"), &top); err != nil || top.Text() != "spam" || string(top.Raw()) != "4:spam" {
		t.Errorf("a string at the top: %q, %v", top.Raw(), err)
	}
	if err := Unmarshal([]byte("i-42e"), &top); err != nil || string(top.Raw()) != "i-42e" {
		t.Errorf("an integer at the top: %q, %v", top.Raw(), err)
	}
	if n, ok := top.Int(); n != -42 || !ok || top.Len() != 0 {
		t.Errorf("Int = %d, %v", n, ok)
	}
	var many []Value
	if err := Unmarshal([]byte("li1e0:ledee"), &many); err != nil || len(many) != 4 {
		t.Fatalf("[]Value: %v, %v", many, err)
	}
	for i, want := range []string{"i1e", "0:", "le", "de"} {
		if string(many[i].Raw()) != want {
			t.Errorf("[]Value[%d] = %q", i, many[i].Raw())
		}
	}
}

// TestValueDeep checks a value nested as deep as the default limit allows:
// Raw, Any and Marshal take no goroutine stack per level.
func TestValueDeep(t *testing.T) {
	const depth = DefaultMaxDepth
	in := strings.Repeat("l", depth-1) + "d1:ai1ee" + strings.Repeat("e", depth-1)
	v := mustValue(t, in)
	if string(v.Raw()) != in {
		t.Error("Raw of the deep value")
	}
	inner := v
	for range depth - 1 {
		inner = inner.Index(0)
	}
	if string(inner.Raw()) != "d1:ai1ee" {
		t.Errorf("innermost: %q", inner.Raw())
	}
	var a any
	if err := Unmarshal([]byte(in), &a); err != nil || !reflect.DeepEqual(v.Any(), a) {
		t.Errorf("Any of the deep value: %v", err)
	}
	if out, err := Marshal(v); err != nil || string(out) != in {
		t.Errorf("Marshal of the deep value: %v", err)
	}
}

// TestValueAllocations checks that decoding into a Value takes a fixed
// number of allocations, however many values the input holds.
func TestValueAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	in, _ := anyList(1000, func(i int) (string, any) {
		return fmt.Sprintf("d1:ai%de1:bl1:xee", i), nil
	})
	data := []byte(in)
	allocs := testing.AllocsPerRun(20, func() {
		var v Value
		if err := Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 3 { // the Value, its nodes, and what they belong to
		t.Errorf("%v allocations", allocs)
	}
}

func TestValueBigInt(t *testing.T) {
	huge := "-" + strings.Repeat("7", maxBigDigits-1)
	v := mustValue(t, "li"+huge+"ee")
	n, ok := v.Index(0).BigInt()
	want, _ := new(big.Int).SetString(huge, 10)
	if !ok || n.Cmp(want) != 0 {
		t.Error("BigInt of", maxBigDigits, "digits")
	}
	if got := v.Any().([]any)[0]; got.(*big.Int).Cmp(want) != 0 {
		t.Error("Any of", maxBigDigits, "digits")
	}
}
