package s3fs_test

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// benchSize is the plain size of the file the benchmarks read: 256 MiB,
// 8 MiB with -short.
func benchSize() int {
	if testing.Short() {
		return 8 << 20
	}
	return 256 << 20
}

// bench is the encoded file the benchmarks share, written by the first
// on the shared SeaweedFS server, which TestMain stops.
var bench struct {
	once sync.Once
	err  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	remotetest.StopShared()
	os.Exit(code)
}

// benchStore writes the encoded file to SeaweedFS once for all the
// benchmarks; it skips without SeaweedFS.
func benchStore(b *testing.B) (*fsx.Fs, *remotetest.Counter, string) {
	endpoint := remotetest.SharedWeed(b)
	bench.once.Do(func() {
		base, _ := newFs(b, endpoint, "bench")
		enc, _ := fsx.New(base, base16384.NewCodec())
		if err := afero.WriteFile(enc, "big", remotetest.RandomBytes(benchSize(), 1), 0o644); err != nil {
			bench.err = err.Error()
		}
	})
	if bench.err != "" {
		b.Fatal(bench.err)
	}
	base, counter := newFs(b, endpoint, "bench")
	enc, err := fsx.New(base, base16384.NewCodec())
	if err != nil {
		b.Fatal(err)
	}
	return enc, counter, endpoint
}

// BenchmarkSequentialRead reads the whole encoded file through fsx over
// S3 (decoding it), and the stored object with the bare client, side by
// side; both count the stored bytes.
func BenchmarkSequentialRead(b *testing.B) {
	enc, _, endpoint := benchStore(b)
	info, err := enc.Stat("big")
	if err != nil {
		b.Fatal(err)
	}
	stored := info.Size() / 7 * 8 // about: base16384 stores 7 bytes in 8
	b.Run("fsx", func(b *testing.B) {
		b.SetBytes(stored)
		b.ReportAllocs()
		for b.Loop() {
			f, err := enc.Open("big")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("raw-client", func(b *testing.B) {
		client, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4(remotetest.AccessKey, remotetest.SecretKey, ""), Region: "us-east-1"})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(stored)
		b.ReportAllocs()
		for b.Loop() {
			obj, err := client.GetObject(context.Background(), remotetest.Bucket, "bench/big.b14", minio.GetObjectOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, obj); err != nil {
				b.Fatal(err)
			}
			obj.Close()
		}
	})
}

// BenchmarkRandomRead reads 4 KiB at random offsets through fsx, one file
// open, and reports the requests each read costs.
func BenchmarkRandomRead(b *testing.B) {
	enc, counter, _ := benchStore(b)
	f, err := enc.Open("big")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	size := int64(benchSize())
	p := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 1))
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	before := counter.Requests()
	for b.Loop() {
		if _, err := f.ReadAt(p, r.Int64N(size-int64(len(p)))); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(counter.Requests()-before)/float64(b.N), "requests/op")
}

// BenchmarkParallelRandomRead is BenchmarkRandomRead from 2×GOMAXPROCS
// goroutines, each with a file of its own.
func BenchmarkParallelRandomRead(b *testing.B) {
	enc, _, _ := benchStore(b)
	size := int64(benchSize())
	b.SetBytes(4096)
	b.SetParallelism(2)
	b.RunParallel(func(pb *testing.PB) {
		f, err := enc.Open("big")
		if err != nil {
			b.Error(err)
			return
		}
		defer f.Close()
		p := make([]byte, 4096)
		r := rand.New(rand.NewPCG(rand.Uint64(), 1))
		for pb.Next() {
			if _, err := f.ReadAt(p, r.Int64N(size-int64(len(p)))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
