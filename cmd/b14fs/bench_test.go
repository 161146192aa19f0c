package main

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/b14fs/b14fs/transform"
)

// benchSize is large enough that the command's per-call costs vanish.
const benchSize = 32 << 20

// BenchmarkCommand measures what b14fs encode and decode do with a large
// input (the copy through the chain, without the file system), beside the
// one-shot base16384 functions on the same data: the ratio is what the
// streaming path costs.
func BenchmarkCommand(b *testing.B) {
	plain := make([]byte, benchSize)
	for i := range plain {
		plain[i] = byte(rand.Uint32())
	}
	encoded := base16384.Encode(plain)
	codec, err := transform.New(builtin.Registry(), defaultChain)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, dir direction, in []byte) {
		b.SetBytes(int64(len(plain)))
		b.ReportAllocs()
		for b.Loop() {
			std := stdio{in: bytes.NewReader(in), out: io.Discard, err: io.Discard}
			if err := convert(std, dir, codec, "-", "", convertFlags{progress: "never"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("encode", func(b *testing.B) { run(b, encodeDirection, plain) })
	b.Run("decode", func(b *testing.B) { run(b, decodeDirection, encoded) })
	b.Run("EncodeTo", func(b *testing.B) {
		dst := make([]byte, base16384.EncodeLen(len(plain)))
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			base16384.EncodeTo(plain, dst)
		}
	})
	b.Run("DecodeTo", func(b *testing.B) {
		dst := make([]byte, len(plain))
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			if err := base16384.DecodeTo(encoded, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
}
