//go:build !purego

package kernel

import (
	"bytes"
	"os"
	"syscall"
	"testing"
)

// guarded returns an n-byte buffer with a PROT_NONE page on both sides,
// ending right at the upper one when atEnd is set and starting right after
// the lower one otherwise, so that an access outside it faults.
func guarded(t *testing.T, n int, atEnd bool) []byte {
	t.Helper()
	page := os.Getpagesize()
	inner := (n + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, inner+2*page, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	for _, guard := range [][]byte{mem[:page], mem[page+inner:]} {
		if err := syscall.Mprotect(guard, syscall.PROT_NONE); err != nil {
			t.Fatalf("mprotect: %v", err)
		}
	}
	if atEnd {
		return mem[page+inner-n : page+inner : page+inner]
	}
	return mem[page : page+n : page+n]
}

func TestNEONGuardPages(t *testing.T) {
	for n := 0; n <= 7*neonGroups*5+7; n++ {
		raw := pseudoRandom(n, uint64(n))
		encoded := make([]byte, 8*(n/7))
		EncodeGeneric(encoded, raw)
		decoded := raw[:7*(n/7)]
		for i, place := range [2]bool{true, false} {
			src, dst := guarded(t, n, place), guarded(t, len(encoded), i == 0)
			copy(src, raw)
			if g := encodeNEON(dst, src); g != n/7 || !bytes.Equal(dst, encoded) {
				t.Fatalf("len %d: encodeNEON = %d groups %x, want %x", n, g, dst, encoded)
			}
			src, dst = guarded(t, len(encoded), place), guarded(t, len(decoded), i == 1)
			copy(src, encoded)
			if g := decodeNEON(dst, src); g != n/7 || !bytes.Equal(dst, decoded) {
				t.Fatalf("len %d: decodeNEON = %d groups %x, want %x", len(encoded), g, dst, decoded)
			}
		}
	}
}
