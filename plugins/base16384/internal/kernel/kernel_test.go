package kernel

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestEncodeGenericExample(t *testing.T) {
	dst := make([]byte, 16)
	n := EncodeGeneric(dst, []byte("12345678"))
	want, _ := hex.DecodeString("5a4c71335ed48437")
	if n != 1 || !bytes.Equal(dst[:8], want) {
		t.Fatalf("EncodeGeneric(12345678) = %d, % x; want 1, % x", n, dst[:8], want)
	}
}

func TestDecodeGeneric(t *testing.T) {
	tests := []struct {
		units string
		n     int
		raw   string
	}{
		{"5a4c71335ed48437", 1, "1234567"},
		{"4e004e004e004e00" + "8dff8dff8dff8dff", 2, "\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff"},
		{"5a4c71335ed48437" + "5a4c71335ed48e00", 1, "1234567"},
		{"5a4c71335ed48437" + "4dff71335ed48437", 1, "1234567"},
		{"5a4c71335ed484", 0, ""},
	}
	for _, tt := range tests {
		src, _ := hex.DecodeString(tt.units)
		dst := make([]byte, 7*(len(src)/8))
		if n := DecodeGeneric(dst, src); n != tt.n || string(dst[:7*n]) != tt.raw {
			t.Errorf("DecodeGeneric(%s) = %d, %q; want %d, %q", tt.units, n, dst[:7*n], tt.n, tt.raw)
		}
	}
}

func TestDecodeGenericEveryUnit(t *testing.T) {
	src, dst := make([]byte, 16), make([]byte, 14)
	for u := range 1 << 16 {
		valid := u >= 0x4E00 && u <= 0x8DFF
		for pos := range 4 {
			for i := 0; i < 16; i += 2 {
				src[i], src[i+1] = 0x8D, 0xFF
			}
			src[2*pos], src[2*pos+1] = byte(u>>8), byte(u)
			n := DecodeGeneric(dst, src)
			if (n == 2) != valid || n == 0 && valid {
				t.Fatalf("unit %#04x at %d: %d groups decoded, valid %v", u, pos, n, valid)
			}
			if valid {
				v := u - 0x4E00
				var got uint64
				for _, b := range dst[:7] {
					got = got<<8 | uint64(b)
				}
				if field := got >> (42 - 14*pos) & 0x3FFF; field != uint64(v) {
					t.Fatalf("unit %#04x at %d decodes to field %#x, want %#x", u, pos, field, v)
				}
			}
		}
	}
}

// pseudoRandom returns n bytes, the same for the same seed.
func pseudoRandom(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestEncodeDecodeMatchGeneric(t *testing.T) {
	raw := pseudoRandom(1024, 7)
	units := make([]byte, 8*(len(raw)/7))
	EncodeGeneric(units, raw)
	for n := 0; n <= len(raw); n++ {
		want, got := make([]byte, 8*(n/7)), make([]byte, 8*(n/7))
		if EncodeGeneric(want, raw[:n]) != Encode(got, raw[:n]) || !bytes.Equal(got, want) {
			t.Fatalf("Encode of %d bytes differs from EncodeGeneric", n)
		}
		src := bytes.Clone(units[:n])
		if n >= 8 {
			src[n/2] = 0x8E
		}
		want, got = make([]byte, 7*(n/8)), make([]byte, 7*(n/8))
		wn, gn := DecodeGeneric(want, src), Decode(got, src)
		if gn != wn || !bytes.Equal(got[:7*gn], want[:7*wn]) {
			t.Fatalf("Decode of %d bytes: %d groups, DecodeGeneric %d", n, gn, wn)
		}
	}
}

// TestDecodeGenericBorrows checks the group test of the eight-group step
// against the unit-by-unit rule: every unit value, in every lane of every
// group of a step, beside neighbours at and around the edges of the range
// (where a lane's subtraction borrows from the lane above it).
func TestDecodeGenericBorrows(t *testing.T) {
	neighbours := []uint16{0x0000, 0x4DFF, 0x4E00, 0x4E01, 0x8DFF, 0x8E00, 0xFFFF}
	const groups = 8
	src, dst := make([]byte, 8*groups), make([]byte, 7*groups)
	for _, nb := range neighbours {
		for i := 0; i < len(src); i += 2 {
			src[i], src[i+1] = byte(nb>>8), byte(nb)
		}
		for u := range 1 << 16 {
			for lane := range 4 * groups {
				src[2*lane], src[2*lane+1] = byte(u>>8), byte(u)
				want := 0
				for ; want < groups && groupValid(src[8*want:8*want+8]); want++ {
				}
				if got := DecodeGeneric(dst, src); got != want {
					t.Fatalf("unit %#04x in lane %d among %#04x: %d groups decoded, want %d", u, lane, nb, got, want)
				}
				src[2*lane], src[2*lane+1] = byte(nb>>8), byte(nb)
			}
		}
	}
}

// badUnitValues are units outside U+4E00..U+8DFF: just outside, and bad
// in each of their bytes (a marker, a BOM).
var badUnitValues = []uint16{0x0000, 0x4DFF, 0x8E00, 0xFFFF, 0x3D01, 0xFEFF, 0xCE00, 0x0E00, 0x0D00}

// TestDecodeGenericBadUnitEverywhere puts a bad unit in every lane of two
// steps and the groups after them: DecodeGeneric stops at its group, with
// the groups before it decoded and nothing written past dst.
func TestDecodeGenericBadUnitEverywhere(t *testing.T) {
	const groups = 2*8 + 5
	raw := pseudoRandom(7*groups, 4)
	units := make([]byte, 8*groups)
	EncodeGeneric(units, raw)
	for pos := range 4 * groups {
		for _, bad := range badUnitValues {
			src := bytes.Clone(units)
			binary.BigEndian.PutUint16(src[2*pos:], bad)
			dst := bytes.Repeat([]byte{0xA5}, 7*groups+16)
			n := DecodeGeneric(dst[:7*groups], src)
			if n != pos/4 || !bytes.Equal(dst[:7*n], raw[:7*n]) {
				t.Fatalf("unit %#04x at unit %d: %d groups decoded (want %d); right: %v",
					bad, pos, n, pos/4, bytes.Equal(dst[:7*n], raw[:7*n]))
			}
			if tail := dst[7*groups:]; !bytes.Equal(tail, bytes.Repeat([]byte{0xA5}, 16)) {
				t.Fatalf("unit %#04x at unit %d: written past dst: % x", bad, pos, tail)
			}
		}
	}
}

func groupValid(g []byte) bool {
	for i := 0; i < 8; i += 2 {
		if u := uint16(g[i])<<8 | uint16(g[i+1]); u < 0x4E00 || u > 0x8DFF {
			return false
		}
	}
	return true
}

func TestImplsFirstIsSelected(t *testing.T) {
	impls := Impls()
	first := impls[0]
	if reflect.ValueOf(selected.Encode).Pointer() != reflect.ValueOf(first.Encode).Pointer() ||
		reflect.ValueOf(selected.Decode).Pointer() != reflect.ValueOf(first.Decode).Pointer() ||
		selected.genericBelow != first.genericBelow || selected.id != first.id {
		t.Errorf("Encode and Decode do not use %s, the first of Impls", first.Name)
	}
	if last := impls[len(impls)-1]; last.Name != "generic" || last.genericBelow != 0 {
		t.Errorf("last of Impls is %s with genericBelow %d, want generic with 0", last.Name, last.genericBelow)
	}
	for _, impl := range impls[:len(impls)-1] {
		// Encode and Decode hand the vector code every input of a step and
		// a group or more.
		if impl.genericBelow < impl.StepGroups || impl.genericBelow > impl.StepGroups+1 {
			t.Errorf("%s: genericBelow %d, want %d or %d (a step, or a step and a group)",
				impl.Name, impl.genericBelow, impl.StepGroups, impl.StepGroups+1)
		}
	}
}

func ExampleImpls() {
	fastest := Impls()[0]
	dst := make([]byte, 8)
	n := fastest.Encode(dst, []byte("1234567"))
	fmt.Printf("%d group: %x\n", n, dst)
	// Output: 1 group: 5a4c71335ed48437
}

// TestUnitsFields checks Units and Fields against the definition, one
// field at a time: the 56 bits of a group are four 14-bit fields, most
// significant first, each unit its field plus 0x4E00. The groups are every
// field at its extremes and next to them, and random ones.
func TestUnitsFields(t *testing.T) {
	edges := []uint64{0, 1, 0x1FFF, 0x2000, 0x3FFE, 0x3FFF}
	var groups [][4]uint64
	for _, a := range edges {
		for _, b := range edges {
			groups = append(groups, [4]uint64{a, b, b, a}, [4]uint64{b, a, a, b}, [4]uint64{a, a, b, b})
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		groups = append(groups, [4]uint64{r.Uint64N(1 << 14), r.Uint64N(1 << 14), r.Uint64N(1 << 14), r.Uint64N(1 << 14)})
	}
	for _, f := range groups {
		x := (f[0]<<42 | f[1]<<28 | f[2]<<14 | f[3]) << 8
		want := (f[0]+0x4E00)<<48 | (f[1]+0x4E00)<<32 | (f[2]+0x4E00)<<16 | (f[3] + 0x4E00)
		if got := Units(x | 0xA5); got != want {
			t.Fatalf("Units(%#x) = %#x, want %#x", x|0xA5, got, want)
		}
		if got := Fields(want - UnitBase); got != x {
			t.Fatalf("Fields(%#x) = %#x, want %#x", want-UnitBase, got, x)
		}
	}
}
