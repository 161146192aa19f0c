//go:build !purego && gc && (amd64 || arm64)

package kernel

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/guardpage"
)

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
	srcRegion, dstRegion := guardpage.Region(t, maxLen*8/7+8), guardpage.Region(t, maxLen*8/7+8)
	raw := pseudoRandom(maxLen, 5)
	units := make([]byte, 8*(maxLen/7))
	EncodeGeneric(units, raw)
	for _, impl := range vectorImplsOrSkip(t) {
		for _, srcAtEnd := range []bool{false, true} {
			for _, dstAtEnd := range []bool{false, true} {
				at := fmt.Sprintf("src at end %v, dst at end %v", srcAtEnd, dstAtEnd)
				for _, n := range guardLengths(impl, 7, maxLen) {
					want := units[:8*(n/7)]
					src, dst := guardpage.Place(srcRegion, raw[:n], srcAtEnd), guardpage.Place(dstRegion, want, dstAtEnd)
					clear(dst)
					if gn := impl.Encode(dst, src); gn != n/7 || !bytes.Equal(dst, want) {
						t.Fatalf("%s encode, len %d, %s: %d groups, want %d", impl.Name, n, at, gn, n/7)
					}
				}
				for _, n := range guardLengths(impl, 8, maxLen) {
					want := raw[:7*(n/8)]
					src, dst := guardpage.Place(srcRegion, units[:n], srcAtEnd), guardpage.Place(dstRegion, want, dstAtEnd)
					clear(dst)
					if gn := impl.Decode(dst, src); gn != n/8 || !bytes.Equal(dst, want) {
						t.Fatalf("%s decode, len %d, %s: %d groups, want %d", impl.Name, n, at, gn, n/8)
					}
				}
			}
		}
	}
}
