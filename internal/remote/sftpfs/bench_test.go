package sftpfs_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/remote/sftpfs"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// BenchmarkSFTP reads a 256 MiB file (8 MiB with -short) stored encoded on
// a real sshd: whole through fsx (decoding it) and the stored file with
// the bare client, side by side, both counting the stored bytes; through
// fsx in ReadAt calls of 128 KiB, one after the other, as the mount reads;
// 4 KiB at random offsets through fsx; and that from four goroutines at
// once.
func BenchmarkSFTP(b *testing.B) {
	s := remotetest.SSHD(b)
	fsys, err := sftpfs.Dial(sftpfs.Config{
		Addr: s.Addr, User: s.User, KeyFiles: []string{s.KeyFile}, KnownHosts: []string{s.KnownHosts},
		Timeout: 30 * time.Second,
	}, s.Root)
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	enc, err := fsx.New(fsys, base16384.NewCodec())
	if err != nil {
		b.Fatal(err)
	}
	size := 256 << 20
	if testing.Short() {
		size = 8 << 20
	}
	if err := afero.WriteFile(enc, "big", remotetest.RandomBytes(size, 1), 0o644); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(s.Root, "big.b14"))
	if err != nil {
		b.Fatal(err)
	}
	stored := info.Size()

	b.Run("sequential/fsx", func(b *testing.B) {
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
	b.Run("sequential/raw-client", func(b *testing.B) {
		b.SetBytes(stored)
		b.ReportAllocs()
		for b.Loop() {
			f, err := fsys.Open("big.b14")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("sequential-ReadAt-128KiB/fsx", func(b *testing.B) {
		b.SetBytes(stored)
		b.ReportAllocs()
		p := make([]byte, 128<<10)
		for b.Loop() {
			f, err := enc.Open("big")
			if err != nil {
				b.Fatal(err)
			}
			for off := int64(0); off < int64(size); off += int64(len(p)) {
				if _, err := f.ReadAt(p, off); err != nil && err != io.EOF {
					b.Fatal(err)
				}
			}
			f.Close()
		}
	})
	b.Run("random-4KiB", func(b *testing.B) {
		f, err := enc.Open("big")
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		p := make([]byte, 4096)
		r := rand.New(rand.NewPCG(1, 1))
		b.SetBytes(int64(len(p)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.ReadAt(p, r.Int64N(int64(size-len(p)))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel-random-4KiB", func(b *testing.B) {
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
				if _, err := f.ReadAt(p, r.Int64N(int64(size-len(p)))); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkSFTPSlowLink reads files of 32 and 256 MiB (4 MiB with -short)
// stored encoded on a real sshd through a link of 5 ms each way
// (remotetest's proxy): through fsx with Read, through fsx with ReadAt calls
// of 128 KiB one after the other (as the mount reads), and the stored file
// with the bare client; all count the stored bytes.
func BenchmarkSFTPSlowLink(b *testing.B) {
	s := remotetest.SSHD(b)
	proxy := remotetest.NewProxy(b, s.Addr)
	fsys := dialTimeout(b, s, proxy.Addr, 30*time.Second)
	enc, err := fsx.New(fsys, base16384.NewCodec())
	if err != nil {
		b.Fatal(err)
	}
	sizes := []int{32 << 20, 256 << 20}
	if testing.Short() {
		sizes = []int{4 << 20}
	}
	for _, size := range sizes {
		name := fmt.Sprintf("size=%dMiB", size>>20)
		if err := afero.WriteFile(enc, name, remotetest.RandomBytes(size, 1), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	proxy.SetDelay(5 * time.Millisecond)
	for _, size := range sizes {
		name := fmt.Sprintf("size=%dMiB", size>>20)
		info, err := os.Stat(filepath.Join(s.Root, name+".b14"))
		if err != nil {
			b.Fatal(err)
		}
		run := func(b *testing.B, fsys afero.Fs, name string, read func(f afero.File) error) {
			b.SetBytes(info.Size())
			b.ReportAllocs()
			for b.Loop() {
				f, err := fsys.Open(name)
				if err != nil {
					b.Fatal(err)
				}
				if err := read(f); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		}
		whole := func(f afero.File) error {
			_, err := io.Copy(io.Discard, f)
			return err
		}
		b.Run(name+"/fsx-Read", func(b *testing.B) { run(b, enc, name, whole) })
		b.Run(name+"/fsx-ReadAt-128KiB", func(b *testing.B) {
			p := make([]byte, 128<<10)
			run(b, enc, name, func(f afero.File) error {
				for off := int64(0); off < int64(size); off += int64(len(p)) {
					if _, err := f.ReadAt(p, off); err != nil && err != io.EOF {
						return err
					}
				}
				return nil
			})
		})
		b.Run(name+"/raw-client", func(b *testing.B) { run(b, fsys, name+".b14", whole) })
	}
}
