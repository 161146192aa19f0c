package fsx_test

import (
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

const (
	seqSize   = 1 << 20 // the size of the files read and written whole
	chunkSize = 64 << 10
	bigSize   = 256 << 20 // the size of the file read at random offsets
	readSize  = 4 << 10
)

// drain reads r to its end in chunkSize reads, as a program copying a file
// would (without io.WriterTo, so that the bare codec and fsx read alike).
func drain(b *testing.B, r io.Reader, buf []byte) {
	for {
		_, err := r.Read(buf)
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// benchBases returns the bases the sequential benchmarks run over: a
// MemMapFs, and an OsFs in a directory of the tmpfs /dev/shm where there is
// one (so that the disk does not dominate the figures), of os.TempDir
// otherwise.
func benchBases(b *testing.B) []struct {
	name string
	fs   afero.Fs
} {
	dir, err := os.MkdirTemp("/dev/shm", "fsx-bench-")
	if err != nil {
		dir = b.TempDir()
	} else {
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	return []struct {
		name string
		fs   afero.Fs
	}{
		{"mem", afero.NewMemMapFs()},
		{"os", afero.NewBasePathFs(afero.NewOsFs(), dir)},
	}
}

// BenchmarkRead reads a 1 MiB file through fsx, and the same stored file
// through the bare codec, over a MemMapFs and an OsFs.
func BenchmarkRead(b *testing.B) {
	c := base16384.NewCodec()
	buf := make([]byte, chunkSize)
	read := func(b *testing.B, open func() (io.Reader, io.Closer, error)) {
		b.SetBytes(seqSize)
		b.ReportAllocs()
		for b.Loop() {
			r, f, err := open()
			if err != nil {
				b.Fatal(err)
			}
			drain(b, r, buf)
			f.Close()
		}
	}
	for _, base := range benchBases(b) {
		mustWrite(b, base.fs, "x.b14", encode(c, randomBytes(seqSize, 1)))
		fsys := newFs(b, base.fs, c)
		b.Run(base.name+"/codec", func(b *testing.B) {
			read(b, func() (io.Reader, io.Closer, error) {
				f, err := base.fs.Open("x.b14")
				if err != nil {
					return nil, nil, err
				}
				return c.NewDecodeReader(f), f, nil
			})
		})
		b.Run(base.name+"/fsx", func(b *testing.B) {
			read(b, func() (io.Reader, io.Closer, error) {
				f, err := fsys.Open("x")
				return f, f, err
			})
		})
	}
}

// BenchmarkWrite writes a 1 MiB file through fsx, and the same data through
// the bare codec into a file of the same base, over a MemMapFs and an OsFs.
// fsx also syncs the file before renaming it (which costs nothing on tmpfs).
func BenchmarkWrite(b *testing.B) {
	c := base16384.NewCodec()
	plain := randomBytes(seqSize, 1)
	write := func(b *testing.B, create func() (io.Writer, io.Closer, error)) {
		b.SetBytes(seqSize)
		b.ReportAllocs()
		for b.Loop() {
			w, f, err := create()
			if err != nil {
				b.Fatal(err)
			}
			for p := plain; len(p) > 0; p = p[min(len(p), chunkSize):] {
				if _, err := w.Write(p[:min(len(p), chunkSize)]); err != nil {
					b.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, base := range benchBases(b) {
		b.Run(base.name+"/codec", func(b *testing.B) {
			write(b, func() (io.Writer, io.Closer, error) {
				f, err := base.fs.Create("x.b14")
				if err != nil {
					return nil, nil, err
				}
				enc := c.NewEncodeWriter(f)
				return enc, closers{enc, f}, nil
			})
		})
		fsys := newFs(b, base.fs, c)
		b.Run(base.name+"/fsx", func(b *testing.B) {
			write(b, func() (io.Writer, io.Closer, error) {
				f, err := fsys.Create("x")
				return f, f, err
			})
		})
	}
}

// closers closes each of its closers in turn.
type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		if err := c.Close(); err != nil {
			return err
		}
	}
	return nil
}

var bigFile struct {
	once sync.Once
	dir  string
	err  error
}

// bigBase returns an OsFs directory holding "big.b14", the base16384
// encoding of bigSize pseudo-random bytes, written through fsx once per
// test binary run.
func bigBase(b *testing.B, c core.Codec) afero.Fs {
	bigFile.once.Do(func() {
		bigFile.dir, bigFile.err = os.MkdirTemp("", "fsx-bench-")
		if bigFile.err != nil {
			return
		}
		fsys := newFs(b, afero.NewBasePathFs(afero.NewOsFs(), bigFile.dir), c)
		f, err := fsys.Create("big")
		if err != nil {
			bigFile.err = err
			return
		}
		for i := range bigSize / seqSize {
			f.Write(randomBytes(seqSize, uint64(i)))
		}
		bigFile.err = f.Close()
	})
	if bigFile.err != nil {
		b.Fatal(bigFile.err)
	}
	return afero.NewBasePathFs(afero.NewOsFs(), bigFile.dir)
}

// TestMain removes the big benchmark file, and stops the servers of the
// remote backends. The SFTP bases log in with the tests' key only, not an
// agent's.
func TestMain(m *testing.M) {
	os.Setenv("SSH_AUTH_SOCK", "")
	code := m.Run()
	remotetest.StopShared()
	if bigFile.dir != "" {
		os.RemoveAll(bigFile.dir)
	}
	os.Exit(code)
}

// BenchmarkReadAt reads 4 KiB at random offsets in a 256 MiB base16384
// file, within its first MiB (near), its last MiB (far) and anywhere; and,
// for comparison, the stored bytes of those 4 KiB straight from the base
// file (base).
func BenchmarkReadAt(b *testing.B) {
	c := base16384.NewCodec()
	base := bigBase(b, c)
	fsys := newFs(b, base, c)
	f, err := fsys.Open("big")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	stored, err := base.Open("big.b14")
	if err != nil {
		b.Fatal(err)
	}
	defer stored.Close()
	storedInfo, err := stored.Stat()
	if err != nil {
		b.Fatal(err)
	}
	storedSize := storedInfo.Size()
	ranges := []struct {
		name       string
		start, end int64
	}{
		{"near", 0, seqSize},
		{"far", bigSize - seqSize, bigSize},
		{"anywhere", 0, bigSize},
	}
	for _, r := range ranges {
		bench := func(b *testing.B, readAt func(off int64) error) {
			// The range's ends first, so that a read running past the
			// file's end fails at once, whatever the random offsets.
			for _, off := range []int64{r.start, r.end - readSize} {
				if err := readAt(off); err != nil {
					b.Fatalf("at %d: %v", off, err)
				}
			}
			rnd := rand.New(rand.NewPCG(1, 2))
			b.SetBytes(readSize)
			b.ReportAllocs()
			for b.Loop() {
				if err := readAt(r.start + rnd.Int64N(r.end-r.start-readSize)); err != nil {
					b.Fatal(err)
				}
			}
		}
		p := make([]byte, readSize)
		b.Run(r.name+"/fsx", func(b *testing.B) {
			bench(b, func(off int64) error {
				_, err := f.ReadAt(p, off)
				return err
			})
		})
		raw := make([]byte, c.EncodedLen(readSize)+8)
		b.Run(r.name+"/base", func(b *testing.B) {
			bench(b, func(off int64) error {
				// The groups holding the 4 KiB, and the end marker
				// within the last ones.
				start := off / 7 * 8
				n, err := stored.ReadAt(raw[:min(int64(len(raw)), storedSize-start)], start)
				if err == io.EOF && start+int64(n) == storedSize {
					err = nil
				}
				return err
			})
		})
	}
}

// BenchmarkSequentialReadAt reads the 256 MiB file of BenchmarkReadAt
// whole in ReadAt calls of 128 KiB, each where the one before ended, as the
// mount reads a file being copied; and, for comparison, in Read calls of
// that size through fsx and through the bare codec.
func BenchmarkSequentialReadAt(b *testing.B) {
	c := base16384.NewCodec()
	base := bigBase(b, c)
	fsys := newFs(b, base, c)
	p := make([]byte, 128<<10)
	run := func(b *testing.B, open func() (io.Reader, io.Closer, error)) {
		b.SetBytes(bigSize)
		b.ReportAllocs()
		for b.Loop() {
			r, f, err := open()
			if err != nil {
				b.Fatal(err)
			}
			drain(b, r, p)
			f.Close()
		}
	}
	b.Run("fsx-ReadAt", func(b *testing.B) {
		run(b, func() (io.Reader, io.Closer, error) {
			f, err := fsys.Open("big")
			return io.NewSectionReader(f, 0, bigSize), f, err
		})
	})
	b.Run("fsx-Read", func(b *testing.B) {
		run(b, func() (io.Reader, io.Closer, error) {
			f, err := fsys.Open("big")
			return f, f, err
		})
	})
	b.Run("codec", func(b *testing.B) {
		run(b, func() (io.Reader, io.Closer, error) {
			f, err := base.Open("big.b14")
			if err != nil {
				return nil, nil, err
			}
			return c.NewDecodeReader(f), f, nil
		})
	})
}
