//go:build !purego

package kernel

import (
	"bytes"
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

// TestGuardPages runs every vector implementation on buffers that start
// right after or end right before an inaccessible page, src and dst alike.
// The generic encoding of the whole input gives the expected output of
// every prefix.
func TestGuardPages(t *testing.T) {
	const maxLen = 20 << 10
	srcRegion, dstRegion := guardedRegion(t, maxLen*8/7+8), guardedRegion(t, maxLen*8/7+8)
	raw := pseudoRandom(maxLen, 5)
	units := make([]byte, 8*(maxLen/7))
	EncodeGeneric(units, raw)
	for _, impl := range vectorImpls(t) {
		var ns []int
		for n := 0; n <= 1024; n++ {
			ns = append(ns, n)
		}
		for _, n := range testLengths(impl) {
			if n > 1024 && n <= maxLen {
				ns = append(ns, n)
			}
		}
		for _, atEnd := range []bool{false, true} {
			for _, n := range ns {
				want := units[:8*(n/7)]
				src, dst := placed(srcRegion, raw[:n], atEnd), placed(dstRegion, want, atEnd)
				clear(dst)
				if impl.Encode(dst, src); !bytes.Equal(dst, want) {
					t.Fatalf("%s encode, len %d, at end %v: wrong output", impl.Name, n, atEnd)
				}

				want = raw[:7*(n/8)]
				src, dst = placed(srcRegion, units[:n], atEnd), placed(dstRegion, want, atEnd)
				clear(dst)
				if gn := impl.Decode(dst, src); gn != n/8 || !bytes.Equal(dst, want) {
					t.Fatalf("%s decode, len %d, at end %v: %d groups, want %d", impl.Name, n, atEnd, gn, n/8)
				}
			}
		}
	}
}
