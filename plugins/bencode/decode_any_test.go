package bencode

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// anyList returns the bencoding of a list of n items made by item, and the
// value it decodes into.
func anyList(n int, item func(i int) (string, any)) (string, []any) {
	var in strings.Builder
	want := make([]any, n)
	in.WriteString("l")
	for i := range want {
		s, v := item(i)
		in.WriteString(s)
		want[i] = v
	}
	in.WriteString("e")
	return in.String(), want
}

// TestUnmarshalAnyRuns decodes lists of every length around those of the
// runs values are boxed in, of every kind of item.
func TestUnmarshalAnyRuns(t *testing.T) {
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	items := map[string]func(i int) (string, any){
		"strings": func(i int) (string, any) {
			s := strings.Repeat("x", i%7)
			return fmt.Sprintf("%d:%s", len(s), s), []byte(s)
		},
		"integers": func(i int) (string, any) {
			n := int64(i*i*1000 - 5000)
			return fmt.Sprintf("i%de", n), n
		},
		"big integers": func(i int) (string, any) {
			if i%3 == 0 {
				return "i" + huge.String() + "e", huge
			}
			return fmt.Sprintf("i%de", i), int64(i)
		},
		"lists": func(i int) (string, any) {
			return anyList(i%5, func(j int) (string, any) { return fmt.Sprintf("i%de", j), int64(j) })
		},
		"dictionaries": func(i int) (string, any) {
			if i%2 == 0 {
				return "de", map[string]any{}
			}
			return fmt.Sprintf("d1:ai%de1:bl1:xee", i), map[string]any{"a": int64(i), "b": []any{[]byte("x")}}
		},
		"mixed": func(i int) (string, any) {
			switch i % 4 {
			case 0:
				return "1:s", []byte("s")
			case 1:
				return fmt.Sprintf("i%de", 300+i), int64(300 + i)
			case 2:
				return "li7ee", []any{int64(7)}
			}
			return "d1:k0:e", map[string]any{"k": []byte{}}
		},
	}
	for name, item := range items {
		for _, n := range []int{0, 1, 3, 4, 5, 15, 16, 17, 63, 64, 65, 84, 100, 200} {
			in, want := anyList(n, item)
			var got any
			if err := Unmarshal([]byte(in), &got); err != nil {
				t.Fatalf("%s, %d: %v", name, n, err)
			}
			if !reflect.DeepEqual(got, any(want)) {
				t.Errorf("%s, %d: got %v, want %v", name, n, got, want)
			}
			// In a dictionary too.
			var inDict any
			if err := Unmarshal([]byte("d1:v"+in+"e"), &inDict); err != nil {
				t.Fatalf("%s, %d, in a dictionary: %v", name, n, err)
			}
			if !reflect.DeepEqual(inDict, any(map[string]any{"v": want})) {
				t.Errorf("%s, %d, in a dictionary: got %v", name, n, inDict)
			}
		}
	}
}

// TestUnmarshalAnyCopyRuns checks that strings boxed in runs share the input,
// or not with Copy.
func TestUnmarshalAnyCopyRuns(t *testing.T) {
	in, _ := anyList(100, func(int) (string, any) { return "2:ab", nil })
	data := []byte(in)
	var shared, copied any
	if err := Unmarshal(data, &shared); err != nil {
		t.Fatal(err)
	}
	if err := (DecodeOptions{Copy: true}).Unmarshal(data, &copied); err != nil {
		t.Fatal(err)
	}
	copy(data, strings.ToUpper(in))
	for i := range 100 {
		if s := shared.([]any)[i].([]byte); string(s) != "AB" {
			t.Fatalf("item %d does not share the input: %q", i, s)
		}
		if s := copied.([]any)[i].([]byte); string(s) != "ab" {
			t.Fatalf("item %d changed with the input: %q", i, s)
		}
	}
}

// TestUnmarshalAnyAllocations checks that the values of a list are not
// allocated one by one.
func TestUnmarshalAnyAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	for _, item := range []string{"3:abc", "i1000e", "le"} {
		in, _ := anyList(64, func(int) (string, any) { return item, nil })
		data := []byte(in)
		allocs := testing.AllocsPerRun(10, func() {
			var v any
			if err := Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
		})
		// The items, their box, the list's box and the list's interface.
		if allocs > 4 {
			t.Errorf("a list of 64 %q: %v allocations", item, allocs)
		}
	}
}

// TestUnmarshalAnyLongIntegerInside checks the error for an integer too long
// for a big.Int inside a list or dictionary decoded into any: its offset, and
// nothing decoded past it.
func TestUnmarshalAnyLongIntegerInside(t *testing.T) {
	long := "i" + strings.Repeat("9", maxBigDigits+1) + "e"
	in := "d1:ali1e" + long + "e1:b" + strings.Repeat("l", 3) + strings.Repeat("e", 4)
	var v any
	err := Unmarshal([]byte(in), &v)
	var te *UnmarshalTypeError
	if !errors.As(err, &te) || te.Offset != int64(len("d1:ali1e")) {
		t.Errorf("got %v", err)
	}
}

// TestUnmarshalAnyListsApart checks that appending to a decoded list, whose
// items share an array with those of the other lists, leaves them alone.
func TestUnmarshalAnyListsApart(t *testing.T) {
	var v any
	if err := Unmarshal([]byte("lli1ei2eeli3eee"), &v); err != nil {
		t.Fatal(err)
	}
	lists := v.([]any)
	_ = append(lists[1].([]any), "x")
	_ = append(lists[0].([]any), "y")
	want := []any{[]any{int64(1), int64(2)}, []any{int64(3)}}
	if !reflect.DeepEqual(v, any(want)) {
		t.Errorf("got %v, want %v", v, want)
	}
}
