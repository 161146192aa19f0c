package rpc_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/testcodec"
)

// BenchmarkStream compares a codec run in process with the same codec run
// through a plugin, on 8 MiB: the difference is what crossing the process
// boundary costs.
func BenchmarkStream(b *testing.B) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 8<<20/16)
	remote := lookup(b, discover(b), "xor")
	for _, c := range []struct {
		name  string
		codec core.Codec
	}{{"inprocess", testcodec.Xor{Key: 0x5A}}, {"plugin", remote}} {
		b.Run(c.name+"/pull", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := io.Copy(io.Discard, c.codec.NewEncodeReader(bytes.NewReader(data))); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/push", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				w := c.codec.NewEncodeWriter(io.Discard)
				if _, err := w.Write(data); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
