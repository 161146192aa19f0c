//go:build !purego

package kernel

import (
	"bytes"
	"encoding/binary"
	"os"
	"reflect"
	"strings"
	"testing"
)

// neonLengths returns the raw lengths 0..4096, those within 9 bytes of
// every step boundary up to 160 steps, and 1 MiB.
func neonLengths() []int {
	var ns []int
	for n := 0; n <= 4096; n++ {
		ns = append(ns, n)
	}
	const step = 7 * neonGroups
	for k := 4096/step + 1; k <= 160; k++ {
		for n := k*step - 9; n <= k*step+9; n++ {
			ns = append(ns, n)
		}
	}
	return append(ns, 1<<20)
}

// sentinelBuffer returns n bytes of 0xA5, so that writes past what a kernel
// reports show up in comparisons.
func sentinelBuffer(n int) []byte { return bytes.Repeat([]byte{0xA5}, n) }

// sameDecoding reports whether two decodings of the same n groups into
// sentinel buffers agree: the same count, the same decoded bytes, and the
// same bytes past 7*n. (Decode may overwrite the bytes between.)
func sameDecoding(got, want []byte, gn, wn, n int) bool {
	return gn == wn && bytes.Equal(got[:7*gn], want[:7*wn]) && bytes.Equal(got[7*n:], want[7*n:])
}

// TestImplsFollowGODEBUG checks that NEON runs unless GODEBUG turns it off
// (.ci/arm64-test runs the tests both ways).
func TestImplsFollowGODEBUG(t *testing.T) {
	want := "neon"
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.asimd=off") {
		want = "generic"
	}
	impls := Impls()
	if impls[0].Name != want || impls[len(impls)-1].Name != "generic" {
		t.Fatalf("GODEBUG=%q: Impls = %v, want %s first and generic last", os.Getenv("GODEBUG"), impls, want)
	}
	if wantBelow := map[string]int{"neon": neonGroups, "generic": 0}[want]; genericBelow != wantBelow {
		t.Errorf("genericBelow = %d with %s, want %d", genericBelow, want, wantBelow)
	}
	if reflect.ValueOf(encode).Pointer() != reflect.ValueOf(impls[0].Encode).Pointer() ||
		reflect.ValueOf(decode).Pointer() != reflect.ValueOf(impls[0].Decode).Pointer() {
		t.Errorf("Encode and Decode do not use %s, the first of Impls", impls[0].Name)
	}
}

func TestNEONEncodeMatchesGeneric(t *testing.T) {
	for _, n := range neonLengths() {
		src := pseudoRandom(n, uint64(n))
		want, got := sentinelBuffer(8*(n/7)+8), sentinelBuffer(8*(n/7)+8)
		wn, gn := EncodeGeneric(want, src), encodeNEON(got, src)
		if gn != wn || !bytes.Equal(got, want) {
			t.Fatalf("len %d: encodeNEON = %d groups %x\nwant %d groups %x", n, gn, got, wn, want)
		}
	}
}

func TestNEONEncodeExtremes(t *testing.T) {
	for _, fill := range []byte{0x00, 0xFF, 0x55, 0xAA} {
		src := bytes.Repeat([]byte{fill}, 7*neonGroups*3+5)
		want, got := make([]byte, 8*(len(src)/7)), make([]byte, 8*(len(src)/7))
		EncodeGeneric(want, src)
		encodeNEON(got, src)
		if !bytes.Equal(got, want) {
			t.Fatalf("bytes %#02x: encodeNEON = %x\nwant %x", fill, got, want)
		}
	}
}

func TestNEONDecodeMatchesGeneric(t *testing.T) {
	for _, n := range neonLengths() {
		raw := pseudoRandom(n, uint64(n)+1<<32)
		src := make([]byte, 8*(n/7), 8*(n/7)+7)
		EncodeGeneric(src, raw)
		src = append(src, pseudoRandom(n%8, 3)...) // a trailing partial group
		want, got := sentinelBuffer(7*(len(src)/8)+7), sentinelBuffer(7*(len(src)/8)+7)
		wn, gn := DecodeGeneric(want, src), decodeNEON(got, src)
		if gn != wn || wn != n/7 || !bytes.Equal(got, want) {
			t.Fatalf("len %d: decodeNEON = %d groups %x\nwant %d groups %x", len(src), gn, got, wn, want)
		}
	}
}

// badUnits are units just outside U+4E00..U+8DFF, a marker and a BOM.
var badUnits = []uint16{0x0000, 0x4DFF, 0x8E00, 0xFFFF, 0x3D01, 0xFEFF, 0xCE00, 0x0E00}

func TestNEONDecodeBadUnitAtEveryPosition(t *testing.T) {
	const groups = 3*neonGroups + 3
	raw := pseudoRandom(7*groups, 7)
	valid := make([]byte, 8*groups)
	EncodeGeneric(valid, raw)
	for pos := 0; pos < 4*groups; pos++ {
		for _, u := range badUnits {
			src := bytes.Clone(valid)
			binary.BigEndian.PutUint16(src[2*pos:], u)
			want, got := sentinelBuffer(7*groups+7), sentinelBuffer(7*groups+7)
			wn, gn := DecodeGeneric(want, src), decodeNEON(got, src)
			if wn != pos/4 {
				t.Fatalf("unit %#04x at %d: DecodeGeneric = %d groups, want %d", u, pos, wn, pos/4)
			}
			if !sameDecoding(got, want, gn, wn, groups) {
				t.Fatalf("unit %#04x at %d: decodeNEON = %d groups %x\nwant %d groups %x", u, pos, gn, got, wn, want)
			}
		}
	}
}

func TestNEONDecodeBoundaryUnits(t *testing.T) {
	// Every unit of the alphabet's edges, in every lane of a step.
	edges := []uint16{0x4E00, 0x4E01, 0x4EFF, 0x4F00, 0x8D00, 0x8DFE, 0x8DFF}
	src := make([]byte, 8*neonGroups*len(edges))
	for i := 0; i < len(src)/2; i++ {
		binary.BigEndian.PutUint16(src[2*i:], edges[(i+i/len(edges))%len(edges)])
	}
	want, got := make([]byte, 7*(len(src)/8)), make([]byte, 7*(len(src)/8))
	wn, gn := DecodeGeneric(want, src), decodeNEON(got, src)
	if wn != len(src)/8 || gn != wn || !bytes.Equal(got, want) {
		t.Fatalf("decodeNEON = %d groups %x\nwant %d groups %x", gn, got, wn, want)
	}
}

// FuzzNEONMatchesGeneric encodes data both ways, then decodes the encoding
// both ways after replacing the unit at pos (modulo its length) with unit.
func FuzzNEONMatchesGeneric(f *testing.F) {
	f.Add([]byte("1234567"), uint16(0), uint16(0x4E00))
	f.Add(pseudoRandom(7*neonGroups+2, 1), uint16(5), uint16(0x8DFF))
	f.Add(pseudoRandom(7*neonGroups*3, 2), uint16(40), uint16(0x8E00))
	f.Add(pseudoRandom(7*neonGroups*2+9, 3), uint16(31), uint16(0x4DFF))
	f.Add(pseudoRandom(500, 4), uint16(77), uint16(0xFEFF))
	f.Fuzz(func(t *testing.T, data []byte, pos, unit uint16) {
		want, got := sentinelBuffer(8*(len(data)/7)), sentinelBuffer(8*(len(data)/7))
		wn, gn := EncodeGeneric(want, data), encodeNEON(got, data)
		if gn != wn || !bytes.Equal(got, want) {
			t.Fatalf("encodeNEON = %d groups %x\nwant %d groups %x", gn, got, wn, want)
		}
		src := want
		if len(src) > 0 {
			binary.BigEndian.PutUint16(src[2*(int(pos)%(len(src)/2)):], unit)
		}
		want, got = sentinelBuffer(len(data)), sentinelBuffer(len(data))
		wn, gn = DecodeGeneric(want, src), decodeNEON(got, src)
		if !sameDecoding(got, want, gn, wn, len(src)/8) {
			t.Fatalf("decodeNEON = %d groups %x\nwant %d groups %x", gn, got, wn, want)
		}
	})
}
