package serve

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/plugins/base16384"
)

const (
	benchSize  = 256 << 20 // the file GET whole
	rangeSize  = 4 << 10   // each Range request
	rangeCount = 10000     // Range requests per op
)

var (
	benchOnce            sync.Once
	benchServe, benchRaw string // URLs of big.bin through serve and through http.FileServer
	benchDir             string // where the files are, removed by TestMain
	benchErr             error
)

// benchServers stores a 256 MiB file of random bytes encoded in one
// directory and plain in another (both in /dev/shm where there is one, so
// the disk does not dominate), and serves the first through Handler over
// fsx, the second through a plain http.FileServer. They live as long as
// the test process.
func benchServers(b *testing.B) (string, string) {
	benchOnce.Do(func() {
		parent := ""
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			parent = "/dev/shm"
		}
		dir, err := os.MkdirTemp(parent, "b14fs-serve-bench")
		if err != nil {
			benchErr = err
			return
		}
		benchDir = dir
		enc, raw := filepath.Join(dir, "enc"), filepath.Join(dir, "raw")
		os.Mkdir(enc, 0o755)
		os.Mkdir(raw, 0o755)
		data := make([]byte, benchSize)
		r := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < len(data); i += 8 {
			v := r.Uint64()
			for j := range 8 {
				data[i+j] = byte(v >> (8 * j))
			}
		}
		if benchErr = os.WriteFile(filepath.Join(raw, "big.bin"), data, 0o644); benchErr != nil {
			return
		}
		root, err := rootfs.Open(enc)
		if err != nil {
			benchErr = err
			return
		}
		fsys, err := fsx.New(root.FollowLinks(), base16384.NewCodec())
		if err != nil {
			benchErr = err
			return
		}
		if benchErr = afero.WriteFile(fsys, "big.bin", data, 0o644); benchErr != nil {
			return
		}
		benchServe = httptest.NewServer(Handler(fsys, Options{})).URL + "/big.bin"
		benchRaw = httptest.NewServer(http.FileServer(http.Dir(raw))).URL + "/big.bin"
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchServe, benchRaw
}

func benchGet(b *testing.B, client *http.Client, url, rng string, buf []byte) int64 {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		b.Fatal(err)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{resp.Body}, buf)
	resp.Body.Close()
	if err != nil || resp.StatusCode >= 300 {
		b.Fatalf("%s: %v %s", url, err, resp.Status)
	}
	return n
}

// TestMain removes the benchmarks' files after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// BenchmarkServeGet GETs the whole 256 MiB file.
func BenchmarkServeGet(b *testing.B) {
	served, raw := benchServers(b)
	for _, c := range []struct{ name, url string }{{"b14fs", served}, {"plain", raw}} {
		b.Run(c.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{}}
			buf := make([]byte, 256<<10)
			b.SetBytes(benchSize)
			for b.Loop() {
				if n := benchGet(b, client, c.url, "", buf); n != benchSize {
					b.Fatalf("got %d bytes", n)
				}
			}
		})
	}
}

// BenchmarkServeRanges GETs 10,000 random 4 KiB ranges of the file, on
// one keep-alive connection.
func BenchmarkServeRanges(b *testing.B) {
	served, raw := benchServers(b)
	for _, c := range []struct{ name, url string }{{"b14fs", served}, {"plain", raw}} {
		b.Run(c.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{}}
			buf := make([]byte, rangeSize)
			r := rand.New(rand.NewPCG(5, 6))
			b.SetBytes(rangeCount * rangeSize)
			for b.Loop() {
				for range rangeCount {
					off := r.Int64N(benchSize - rangeSize)
					if n := benchGet(b, client, c.url, fmt.Sprintf("bytes=%d-%d", off, off+rangeSize-1), buf); n != rangeSize {
						b.Fatalf("got %d bytes", n)
					}
				}
			}
		})
	}
}
