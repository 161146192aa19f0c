package torrent

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// benchSize is the size of the content BenchmarkVerify checks.
const benchSize = 64 << 20

// BenchmarkVerify measures Verify on a 64 MiB file in the page cache
// beside sha1sum of the same file in the same run (the yardstick:
// Verify of a v1 torrent at 0.8 of sha1sum or more) and beside Go's SHA-1
// and SHA-256 over the same bytes. b.SetBytes counts the content's bytes.
func BenchmarkVerify(b *testing.B) {
	dir := b.TempDir()
	name := filepath.Join(dir, "data.bin")
	data := make([]byte, benchSize)
	rand.Read(data)
	if err := os.WriteFile(name, data, 0o644); err != nil {
		b.Fatal(err)
	}
	data = nil
	fsys := os.DirFS(dir)
	ctx := context.Background()
	if path, err := exec.LookPath("sha1sum"); err == nil {
		b.Run("impl=sha1sum", func(b *testing.B) {
			b.SetBytes(benchSize)
			for b.Loop() {
				if out, err := exec.Command(path, name).CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
	b.Run("impl=crypto-sha1", func(b *testing.B) {
		b.SetBytes(benchSize)
		buf := make([]byte, 1<<20)
		for b.Loop() {
			f, err := os.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			h := sha1.New()
			if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	for _, v := range []struct {
		name string
		v    Version
	}{{"v1", V1}, {"v2", V2}, {"hybrid", Hybrid}} {
		m, err := Create(ctx, fsys, "data.bin", CreateOptions{Version: v.v, PieceLength: 256 << 10})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("impl=verify-"+v.name, func(b *testing.B) {
			b.SetBytes(benchSize)
			b.ReportAllocs()
			for b.Loop() {
				r, err := Verify(ctx, m, fsys, nil)
				if err != nil || !r.OK() {
					b.Fatal(err, summary(r))
				}
			}
		})
	}
}

// BenchmarkCreate measures Create of a 64 MiB file in the page cache (256
// KiB pieces) beside Go's SHA-1 of the same bytes, on 1 thread and on
// all. torrent/testdata/bench-create.sh compares the command with
// mktorrent.
func BenchmarkCreate(b *testing.B) {
	dir := b.TempDir()
	data := make([]byte, benchSize)
	rand.Read(data)
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("impl=crypto-sha1", func(b *testing.B) {
		b.SetBytes(benchSize)
		for b.Loop() {
			sha1.Sum(data)
		}
	})
	r, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, v := range []struct {
		name string
		v    Version
	}{{"v1", V1}, {"v2", V2}, {"hybrid", Hybrid}} {
		for _, threads := range []int{1, runtime.NumCPU()} {
			b.Run(fmt.Sprintf("impl=create-%s/threads=%d", v.name, threads), func(b *testing.B) {
				b.SetBytes(benchSize)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Create(context.Background(), RootFS(r), "data.bin", CreateOptions{Version: v.v, PieceLength: 256 << 10, Threads: threads}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkParse decodes the testdata torrents.
func BenchmarkParse(b *testing.B) {
	files, _ := filepath.Glob("testdata/*.torrent")
	var all [][]byte
	var size int64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, data)
		size += int64(len(data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, data := range all {
			if _, err := Parse(data); err != nil {
				b.Fatal(err)
			}
		}
	}
}
