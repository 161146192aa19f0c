//go:build !purego && gc && (amd64 || arm64)

package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// vectorImplsOrSkip returns vectorImpls(), skipping t when there are none.
func vectorImplsOrSkip(t testing.TB) []Impl {
	impls := vectorImpls()
	if len(impls) == 0 {
		t.Skip("no vector kernel runs on this processor (or GODEBUG turned them off)")
	}
	return impls
}

// maxTestLen is the longest input testLengths returns.
const maxTestLen = 1 << 20

// testLengths returns the lengths of input, in groups of size bytes (7 to
// encode, 8 to decode), to run impl on: 0..4096, those within 16 bytes (two
// groups) of every multiple of impl's step up to 64 passes of 4 steps, and
// maxTestLen.
func testLengths(impl Impl, size int) []int {
	var ns []int
	for n := 0; n <= 4096; n++ {
		ns = append(ns, n)
	}
	step := size * impl.StepGroups
	for k := 4096/step + 1; k <= 4*64; k++ {
		for n := k*step - 16; n <= k*step+16; n++ {
			ns = append(ns, n)
		}
	}
	return append(ns, maxTestLen)
}

// withSentinel returns a buffer of n bytes followed by 16 bytes of 0xA5,
// to catch writes past n.
func withSentinel(n int) []byte { return bytes.Repeat([]byte{0xA5}, n+16) }

// godebugTest is a GODEBUG setting and the implementation it selects.
type godebugTest struct{ godebug, want string }

// cpuSettings returns the cpu.* settings of a GODEBUG value.
func cpuSettings(godebug string) string {
	var cpu []string
	for s := range strings.SplitSeq(godebug, ",") {
		if strings.HasPrefix(s, "cpu.") {
			cpu = append(cpu, s)
		}
	}
	return strings.Join(cpu, ",")
}

// TestGODEBUG checks the implementation the GODEBUG of this process
// selects, if godebugTests lists it, then runs this test binary again under
// each setting of godebugTests and checks the implementation it selects.
func TestGODEBUG(t *testing.T) {
	if want := os.Getenv("KERNEL_TEST_WANT"); want != "" {
		if got := Impls()[0].Name; got != want {
			t.Fatalf("GODEBUG=%s selects %s, want %s", os.Getenv("GODEBUG"), got, want)
		}
		return
	}
	tests := godebugTests()
	for _, tt := range tests {
		if tt.godebug == cpuSettings(os.Getenv("GODEBUG")) {
			if got := Impls()[0].Name; got != tt.want {
				t.Fatalf("GODEBUG=%s selects %s, want %s", os.Getenv("GODEBUG"), got, tt.want)
			}
		}
	}
	if len(tests) == 0 {
		t.Skip("no vector kernel runs on this processor (or GODEBUG turned them off)")
	}
	for _, tt := range tests {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGODEBUG$")
		cmd.Env = append(os.Environ(), "GODEBUG="+tt.godebug, "KERNEL_TEST_WANT="+tt.want)
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.ENOEXEC) {
			t.Skipf("the test binary cannot run itself here (qemu-user without binfmt_misc): %v", err)
		}
		if err != nil {
			t.Errorf("GODEBUG=%s: %v\n%s", tt.godebug, err, out)
		}
	}
}

func TestEncodeMatchesGeneric(t *testing.T) {
	src := pseudoRandom(maxTestLen, 1)
	for _, impl := range vectorImplsOrSkip(t) {
		t.Run(impl.Name, func(t *testing.T) {
			for _, n := range testLengths(impl, 7) {
				want, got := withSentinel(8*(n/7)), withSentinel(8*(n/7))
				wn := EncodeGeneric(want, src[:n])
				if gn := impl.Encode(got, src[:n]); gn != wn || wn != n/7 || !bytes.Equal(got, want) {
					t.Fatalf("len %d: %s returns %d, generic %d; outputs equal: %v",
						n, impl.Name, gn, wn, bytes.Equal(got, want))
				}
			}
		})
	}
}

func TestEncodeExtremes(t *testing.T) {
	for _, impl := range vectorImplsOrSkip(t) {
		for _, n := range []int{7 * 64, 7*64 + 5, 7*3*impl.StepGroups + 5} {
			for _, fill := range []byte{0x00, 0xFF, 0x55, 0xAA} {
				src := bytes.Repeat([]byte{fill}, n)
				want, got := withSentinel(8*(n/7)), withSentinel(8*(n/7))
				EncodeGeneric(want, src)
				if gn := impl.Encode(got, src); gn != n/7 || !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes %#02x encode to %d groups % x, want % x",
						impl.Name, n, fill, gn, got[:16], want[:16])
				}
			}
		}
	}
}

func TestDecodeMatchesGeneric(t *testing.T) {
	raw := pseudoRandom(maxTestLen, 2)
	units := make([]byte, 8*(len(raw)/7))
	EncodeGeneric(units, raw)
	for _, impl := range vectorImplsOrSkip(t) {
		t.Run(impl.Name, func(t *testing.T) {
			for _, n := range testLengths(impl, 8) {
				src := units[:n]
				want, got := withSentinel(7*(n/8)), withSentinel(7*(n/8))
				wn := DecodeGeneric(want, src)
				gn := impl.Decode(got, src)
				if gn != wn || wn != n/8 || !bytes.Equal(got, want) {
					t.Fatalf("len %d: %s returns %d, generic %d; outputs equal: %v",
						n, impl.Name, gn, wn, bytes.Equal(got, want))
				}
			}
		})
	}
}

// goodEdgeUnits are the units just inside U+4E00..U+8DFF.
var goodEdgeUnits = []uint16{0x4E00, 0x4E01, 0x4EFF, 0x4F00, 0x8D00, 0x8DFE, 0x8DFF}

func TestDecodeBadUnitEverywhere(t *testing.T) {
	for _, impl := range vectorImplsOrSkip(t) {
		t.Run(impl.Name, func(t *testing.T) {
			// Four passes of 4 steps, at least 128 groups, and 5 more.
			groups := max(4*4*impl.StepGroups, 128) + 5
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

// TestDecodeEdgeUnits decodes every unit at the edges of the range in every
// lane of a step, each lane taking them in turn from step to step, for
// 4 passes of 4 steps a unit.
func TestDecodeEdgeUnits(t *testing.T) {
	for _, impl := range vectorImplsOrSkip(t) {
		lanes := 4 * impl.StepGroups
		groups := 4 * 4 * len(goodEdgeUnits) * impl.StepGroups
		src := make([]byte, 8*groups)
		for i := 0; i < 4*groups; i++ {
			step, lane := i/lanes, i%lanes
			binary.BigEndian.PutUint16(src[2*i:], goodEdgeUnits[(step+lane)%len(goodEdgeUnits)])
		}
		want, got := withSentinel(7*groups), withSentinel(7*groups)
		wn := DecodeGeneric(want, src)
		if gn := impl.Decode(got, src); wn != groups || gn != groups || !bytes.Equal(got, want) {
			t.Errorf("%s decodes %d of %d groups of edge units, generic %d; outputs equal: %v",
				impl.Name, gn, groups, wn, bytes.Equal(got, want))
		}
	}
}

// FuzzImplsMatchGeneric encodes data with every implementation, then
// decodes with every implementation data itself, its encoding, and its
// encoding with the unit at pos (modulo its length) replaced by unit.
func FuzzImplsMatchGeneric(f *testing.F) {
	f.Add([]byte("1234567"), uint16(0), uint16(0x4E00))
	f.Add(bytes.Repeat([]byte{0x4E, 0x00, 0x8D, 0xFF}, 130), uint16(3), uint16(0x8DFF))
	f.Add(bytes.Repeat([]byte{0x8E}, 300), uint16(9), uint16(0x4DFF))
	f.Add(pseudoRandom(1000, 4), uint16(77), uint16(0xFEFF))
	f.Add(pseudoRandom(7*8+2, 1), uint16(5), uint16(0x8DFF))
	f.Add(pseudoRandom(7*8*3, 2), uint16(40), uint16(0x8E00))
	f.Add(pseudoRandom(7*8*2+9, 3), uint16(31), uint16(0x4DFF))
	f.Fuzz(func(t *testing.T, data []byte, pos, unit uint16) {
		units := make([]byte, 8*(len(data)/7))
		EncodeGeneric(units, data)
		changed := bytes.Clone(units)
		if len(changed) > 0 {
			binary.BigEndian.PutUint16(changed[2*(int(pos)%(len(changed)/2)):], unit)
		}
		for _, impl := range Impls() {
			got := withSentinel(len(units))
			if gn := impl.Encode(got, data); gn != len(data)/7 || !bytes.Equal(got[:len(units)], units) ||
				!bytes.Equal(got[len(units):], withSentinel(0)) {
				t.Fatalf("%s encodes %d bytes differently", impl.Name, len(data))
			}
			for _, src := range [][]byte{data, units, changed} {
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
