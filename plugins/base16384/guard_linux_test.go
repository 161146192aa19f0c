package base16384

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/guardpage"
)

// TestGuardPages encodes and decodes whole buffers (the assembly of
// raw_amd64.s on amd64, and the Go code it hands over to) with the input
// and the output each starting right after or ending right before an
// inaccessible page, at every length through the sizes the assembly takes,
// valid and with the last unit or the marker bad: any access outside the
// buffers faults.
func TestGuardPages(t *testing.T) {
	const maxLen = 1400
	srcRegion, dstRegion := guardpage.Region(t, 2*maxLen), guardpage.Region(t, 2*maxLen)
	plain := fastInputs(maxLen)[0]
	for _, srcAtEnd := range []bool{false, true} {
		for _, dstAtEnd := range []bool{false, true} {
			at := fmt.Sprintf("src at end %v, dst at end %v", srcAtEnd, dstAtEnd)
			for n := 0; n <= maxLen; n++ {
				want := Encode(plain[:n])
				src, dst := guardpage.Place(srcRegion, plain[:n], srcAtEnd), guardpage.Place(dstRegion, want, dstAtEnd)
				clear(dst)
				if err := EncodeTo(src, dst); err != nil || !bytes.Equal(dst, want) {
					t.Fatalf("EncodeTo, %d bytes, %s: %v", n, at, err)
				}
				clear(dst)
				if m, err := encodeRawGo(&std, dst, src); err != nil || m != len(want) || !bytes.Equal(dst, want) {
					t.Fatalf("encodeRawGo, %d bytes, %s: %v", n, at, err)
				}
				clear(dst)
				if m, err := encodeStdGo(dst, src); err != nil || m != len(want) || !bytes.Equal(dst, want) {
					t.Fatalf("encodeStdGo, %d bytes, %s: %v", n, at, err)
				}
				clear(dst)
				if out := StdEncoding.AppendEncode(dst[:0], src); !bytes.Equal(out, want) {
					t.Fatalf("AppendEncode, %d bytes, %s", n, at)
				}
				clear(dst)
				if out := appendEncodeGo(&std, dst[:0], src); !bytes.Equal(out, want) {
					t.Fatalf("appendEncodeGo, %d bytes, %s", n, at)
				}

				src, dst = guardpage.Place(srcRegion, want, srcAtEnd), guardpage.Place(dstRegion, plain[:n], dstAtEnd)
				for _, e := range []*Encoding{&std, {cfg: config{strict: true}}} {
					clear(dst)
					if err := DecodeTo(src, dst); err != nil || !bytes.Equal(dst, plain[:n]) {
						t.Fatalf("DecodeTo, %d bytes, %s: %v", n, at, err)
					}
					clear(dst)
					if m, err := decodeRawGo(e, dst, src); err != nil || m != n || !bytes.Equal(dst, plain[:n]) {
						t.Fatalf("decodeRawGo, %d bytes, %s: %v", n, at, err)
					}
					clear(dst)
					if out, err := e.AppendDecode(dst[:0], src); err != nil || !bytes.Equal(out, plain[:n]) {
						t.Fatalf("AppendDecode, %d bytes, %s: %v", n, at, err)
					}
					clear(dst)
					if out, err := appendDecodeGo(e, dst[:0], src); err != nil || !bytes.Equal(out, plain[:n]) {
						t.Fatalf("appendDecodeGo, %d bytes, %s: %v", n, at, err)
					}
				}
				clear(dst)
				if m, err := decodeStdGo(dst, src); err != nil || m != n || !bytes.Equal(dst, plain[:n]) {
					t.Fatalf("decodeStdGo, %d bytes, %s: %v", n, at, err)
				}
				if len(src) < 2 {
					continue
				}
				// A bad last unit: the marker, or the last unit of a
				// group.
				src[len(src)-1] ^= 0x80
				src[len(src)-2] ^= 0x80
				if err := DecodeTo(src, dst); err == nil {
					t.Fatalf("DecodeTo, %d bytes, %s: no error for a bad last unit", n, at)
				}
			}
		}
	}
}
