//go:build !purego && gc && (amd64 || arm64)

package kernel

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"
)

// guardedRegion maps size bytes (rounded up to pages) between two
// inaccessible pages and returns them; any access before or after faults.
func guardedRegion(t *testing.T, size int) []byte {
	page := syscall.Getpagesize()
	size = (size + page - 1) / page * page
	m, err := syscall.Mmap(-1, 0, size+2*page, syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	region := m[page : page+size : page+size]
	if err := syscall.Mprotect(region, syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	return region
}

// placed returns a slice of region as long as b, at its start or at its
// end, holding a copy of b.
func placed(region, b []byte, atEnd bool) []byte {
	if atEnd {
		region = region[len(region)-len(b):]
	}
	region = region[:len(b):len(b)]
	copy(region, b)
	return region
}

// guardLengths returns the lengths of testLengths(impl, size) up to
// maxLen, and every length up to 1024.
func guardLengths(impl Impl, size, maxLen int) []int {
	var ns []int
	for n := 0; n <= 1024; n++ {
		ns = append(ns, n)
	}
	for _, n := range testLengths(impl, size) {
		if n > 1024 && n <= maxLen {
			ns = append(ns, n)
		}
	}
	return ns
}

// TestGuardPages runs every vector implementation on buffers that start
// right after or end right before an inaccessible page, src and dst each
// way. The generic encoding of the whole input gives the expected output of
// every prefix.
func TestGuardPages(t *testing.T) {
	const maxLen = 20 << 10
	srcRegion, dstRegion := guardedRegion(t, maxLen*8/7+8), guardedRegion(t, maxLen*8/7+8)
	raw := pseudoRandom(maxLen, 5)
	units := make([]byte, 8*(maxLen/7))
	EncodeGeneric(units, raw)
	for _, impl := range vectorImplsOrSkip(t) {
		for _, srcAtEnd := range []bool{false, true} {
			for _, dstAtEnd := range []bool{false, true} {
				at := fmt.Sprintf("src at end %v, dst at end %v", srcAtEnd, dstAtEnd)
				for _, n := range guardLengths(impl, 7, maxLen) {
					want := units[:8*(n/7)]
					src, dst := placed(srcRegion, raw[:n], srcAtEnd), placed(dstRegion, want, dstAtEnd)
					clear(dst)
					if gn := impl.Encode(dst, src); gn != n/7 || !bytes.Equal(dst, want) {
						t.Fatalf("%s encode, len %d, %s: %d groups, want %d", impl.Name, n, at, gn, n/7)
					}
				}
				for _, n := range guardLengths(impl, 8, maxLen) {
					want := raw[:7*(n/8)]
					src, dst := placed(srcRegion, units[:n], srcAtEnd), placed(dstRegion, want, dstAtEnd)
					clear(dst)
					if gn := impl.Decode(dst, src); gn != n/8 || !bytes.Equal(dst, want) {
						t.Fatalf("%s decode, len %d, %s: %d groups, want %d", impl.Name, n, at, gn, n/8)
					}
				}
			}
		}
	}
}
