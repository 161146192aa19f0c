//go:build linux

package mount

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// BenchmarkMountRead reads a 64 MiB file through a mount sequentially, 1 MiB
// at a time, as dd bs=1M does: from the kernel's page cache of the mount's
// file after the first pass, which reads the stored file.
// docs/benchmarks.md has the figures of testdata/bench.sh, which compares
// the mount with plain files of the same disk.
func BenchmarkMountRead(b *testing.B) {
	tm := mountBack(b, b.TempDir(), base16384.NewCodec(), Options{Writable: true})
	const size = 64 << 20
	data := text(size)
	if err := os.WriteFile(tm.at("big"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		f, err := os.Open(tm.at("big"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.CopyBuffer(onlyWriter{io.Discard}, onlyReader{f}, buf); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// text returns n bytes of repeated digits and letters: the content the
// benchmarks write and read.
func text(n int) []byte {
	return bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvwxyz"), n/36+1)[:n]
}

// onlyReader and onlyWriter hide WriterTo and ReaderFrom, so that
// io.CopyBuffer reads with the buffer it is given.
type (
	onlyReader struct{ io.Reader }
	onlyWriter struct{ io.Writer }
)
