//go:build !purego

package kernel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"testing"
)

// vectorImpls returns the implementations other than the generic one.
func vectorImpls(t testing.TB) []Impl {
	impls := Impls()
	if len(impls) == 1 {
		t.Skip("no vector kernel runs on this processor (or GODEBUG turned them off)")
	}
	return impls[:len(impls)-1]
}

// stepGroups returns the groups a step and a 4-step pass of impl handle.
func stepGroups(impl Impl) int {
	if impl.Name == "avx512vbmi" {
		return 8
	}
	return avx2Groups
}

// testLengths returns the raw lengths 0..4096 and the lengths within two
// groups of every multiple of impl's step up to 64 passes of 4 steps.
func testLengths(impl Impl) []int {
	var ns []int
	for n := 0; n <= 4096; n++ {
		ns = append(ns, n)
	}
	step := 7 * stepGroups(impl)
	var edges []int
	for k := 4096/step + 1; k <= 4*64; k++ {
		edges = append(edges, k*step)
	}
	for _, e := range edges {
		for n := e - 16; n <= e+16; n++ {
			ns = append(ns, n)
		}
	}
	return ns
}

// withSentinel returns a buffer of n bytes followed by 16 bytes of 0xA5,
// to catch writes past n.
func withSentinel(n int) []byte { return bytes.Repeat([]byte{0xA5}, n+16) }

func TestImplsFirstIsSelected(t *testing.T) {
	first := Impls()[0]
	if reflect.ValueOf(encode).Pointer() != reflect.ValueOf(first.Encode).Pointer() ||
		reflect.ValueOf(decode).Pointer() != reflect.ValueOf(first.Decode).Pointer() {
		t.Errorf("Encode and Decode do not use %s, the first of Impls", first.Name)
	}
	if last := Impls()[len(Impls())-1]; last.Name != "generic" {
		t.Errorf("last of Impls is %s, want generic", last.Name)
	}
}

// TestGODEBUG runs this test binary again with GODEBUG settings and checks
// the implementation they select.
func TestGODEBUG(t *testing.T) {
	if want := os.Getenv("KERNEL_TEST_WANT"); want != "" {
		if got := Impls()[0].Name; got != want {
			t.Fatalf("GODEBUG=%s selects %s, want %s", os.Getenv("GODEBUG"), got, want)
		}
		return
	}
	if !hasAVX2 {
		t.Skip("no AVX2 on this processor")
	}
	tests := []struct{ godebug, want string }{
		{"cpu.avx2=off", "generic"},
		{"cpu.avx512=off", "avx2"},
		{"cpu.avx512f=off", "avx2"},
		{"cpu.avx512vbmi=off", "avx2"},
		{"cpu.avx512bw=off", "avx2"},
		{"cpu.bmi2=off", "avx2"},
	}
	if hasAVX512 {
		tests = append(tests, struct{ godebug, want string }{"", "avx512vbmi"})
	}
	for _, tt := range tests {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGODEBUG$")
		cmd.Env = append(os.Environ(), "GODEBUG="+tt.godebug, "KERNEL_TEST_WANT="+tt.want)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GODEBUG=%s: %v\n%s", tt.godebug, err, out)
		}
	}
}

func TestEncodeMatchesGeneric(t *testing.T) {
	for _, impl := range vectorImpls(t) {
		t.Run(impl.Name, func(t *testing.T) {
			src := pseudoRandom(20<<10, 1)
			for _, n := range testLengths(impl) {
				want, got := withSentinel(8*(n/7)), withSentinel(8*(n/7))
				wn := EncodeGeneric(want, src[:n])
				if gn := impl.Encode(got, src[:n]); gn != wn || !bytes.Equal(got, want) {
					t.Fatalf("len %d: %s returns %d, generic %d; outputs equal: %v",
						n, impl.Name, gn, wn, bytes.Equal(got, want))
				}
			}
		})
	}
}

func TestEncodeExtremes(t *testing.T) {
	for _, impl := range vectorImpls(t) {
		for _, fill := range []byte{0x00, 0xFF, 0x55, 0xAA} {
			src := bytes.Repeat([]byte{fill}, 7*64)
			want, got := make([]byte, 8*64), make([]byte, 8*64)
			EncodeGeneric(want, src)
			if impl.Encode(got, src); !bytes.Equal(got, want) {
				t.Errorf("%s: bytes %#02x encode to % x, want % x", impl.Name, fill, got[:16], want[:16])
			}
		}
	}
}

func TestDecodeMatchesGeneric(t *testing.T) {
	for _, impl := range vectorImpls(t) {
		t.Run(impl.Name, func(t *testing.T) {
			raw := pseudoRandom(20<<10, 2)
			units := make([]byte, 8*(len(raw)/7))
			EncodeGeneric(units, raw)
			for _, n := range testLengths(impl) {
				src := units[:n]
				want, got := withSentinel(7*(n/8)), withSentinel(7*(n/8))
				wn := DecodeGeneric(want, src)
				gn := impl.Decode(got, src)
				if gn != wn || !bytes.Equal(got, want) {
					t.Fatalf("len %d: %s returns %d, generic %d; outputs equal: %v",
						n, impl.Name, gn, wn, bytes.Equal(got, want))
				}
			}
		})
	}
}

// The units just inside and just outside U+4E00..U+8DFF, and others that
// are bad in each of their bytes.
var (
	goodEdgeUnits = []uint16{0x4E00, 0x4EFF, 0x8D00, 0x8DFF}
	badUnitValues = []uint16{0x0000, 0x4DFF, 0x8E00, 0xFFFF, 0x3D01, 0xFEFF, 0xCE00, 0x0E00, 0x0D00}
)

func TestDecodeBadUnitEverywhere(t *testing.T) {
	for _, impl := range vectorImpls(t) {
		t.Run(impl.Name, func(t *testing.T) {
			const groups = 4*4*8 + 5
			raw := pseudoRandom(7*groups, 3)
			units := make([]byte, 8*groups)
			EncodeGeneric(units, raw)
			for pos := 0; pos < 4*groups; pos++ {
				for _, bad := range badUnitValues {
					src := bytes.Clone(units)
					binary.BigEndian.PutUint16(src[2*pos:], bad)
					want, got := withSentinel(7*groups), withSentinel(7*groups)
					wn := DecodeGeneric(want, src)
					gn := impl.Decode(got, src)
					if gn != wn || gn != pos/4 || !bytes.Equal(got[:7*gn], want[:7*wn]) ||
						!bytes.Equal(got[7*groups:], want[7*groups:]) {
						t.Fatalf("unit %#04x at unit %d: %s returns %d, generic %d", bad, pos, impl.Name, gn, wn)
					}
				}
			}
		})
	}
}

func TestDecodeEdgeUnits(t *testing.T) {
	for _, impl := range vectorImpls(t) {
		const groups = 64
		src := make([]byte, 8*groups)
		for i := 0; i < len(src); i += 2 {
			binary.BigEndian.PutUint16(src[i:], goodEdgeUnits[(i/2)%len(goodEdgeUnits)])
		}
		want, got := make([]byte, 7*groups), make([]byte, 7*groups)
		DecodeGeneric(want, src)
		if n := impl.Decode(got, src); n != groups || !bytes.Equal(got, want) {
			t.Errorf("%s decodes %d of %d groups of edge units; outputs equal: %v", impl.Name, n, groups, bytes.Equal(got, want))
		}
	}
}

func FuzzImplsMatchGeneric(f *testing.F) {
	f.Add([]byte("1234567"))
	f.Add(bytes.Repeat([]byte{0x4E, 0x00, 0x8D, 0xFF}, 130))
	f.Add(bytes.Repeat([]byte{0x8E}, 300))
	f.Add(pseudoRandom(1000, 4))
	f.Fuzz(func(t *testing.T, data []byte) {
		units := make([]byte, 8*(len(data)/7))
		EncodeGeneric(units, data)
		for _, impl := range Impls() {
			got := make([]byte, len(units))
			if impl.Encode(got, data); !bytes.Equal(got, units) {
				t.Fatalf("%s encodes %d bytes differently", impl.Name, len(data))
			}
			for _, src := range [][]byte{data, units} {
				want, got := withSentinel(7*(len(src)/8)), withSentinel(7*(len(src)/8))
				wn := DecodeGeneric(want, src)
				gn := impl.Decode(got, src)
				if gn != wn || !bytes.Equal(got[:7*gn], want[:7*wn]) || !bytes.Equal(got[len(got)-16:], want[len(want)-16:]) {
					t.Fatalf("%s decodes %d bytes to %d groups, generic %d", impl.Name, len(src), gn, wn)
				}
			}
		}
	})
}

func ExampleImpls() {
	for _, impl := range Impls() {
		dst := make([]byte, 8)
		impl.Encode(dst, []byte("1234567"))
		fmt.Printf("%x\n", dst)
		break
	}
	// Output: 5a4c71335ed48437
}
