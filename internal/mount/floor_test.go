//go:build linux

package mount

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// The Floor benchmarks measure what a mount's reads and writes cost beside
// what FUSE itself costs, side by side in one run, on four files of
// floorSize bytes (docs/benchmarks.md, "the floor of FUSE"):
//
//	fs=plain  a file of a directory in memory (/dev/shm), read and written
//	          as it is;
//	fs=floor  a FUSE file, mounted with the mount's FUSE options, whose
//	          reads are answered from memory and whose writes are stored as
//	          they are, in a file in /dev/shm, before they are answered:
//	          what FUSE costs when the file system does no other work;
//	fs=raw    a file stored as it is, through a mount that shows such files
//	          (fsx.ShowUnmapped): a mount that stores, without a codec;
//	fs=b14fs  a file through a mount, stored encoded with base16384.
//
// The stored files of the mounts are in /dev/shm too, so that no disk is
// measured. Reads start cold: the pages the kernel caches of a FUSE file
// are dropped (fadvise DONTNEED) before each pass.
const floorSize = 64 << 20

// floorFile is the file of the floor mount.
type floorFile struct {
	fs.Inode
	data  []byte   // floorSize bytes, what reads answer
	store *os.File // where writes go
}

var (
	_ fs.NodeGetattrer = (*floorFile)(nil)
	_ fs.NodeSetattrer = (*floorFile)(nil)
	_ fs.NodeOpener    = (*floorFile)(nil)
	_ fs.NodeReader    = (*floorFile)(nil)
	_ fs.NodeWriter    = (*floorFile)(nil)
	_ fs.NodeFlusher   = (*floorFile)(nil)
	_ fs.NodeFsyncer   = (*floorFile)(nil)
)

func (f *floorFile) Getattr(_ context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFREG | 0o644
	out.Size = floorSize
	return 0
}

func (f *floorFile) Setattr(ctx context.Context, fh fs.FileHandle, _ *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return f.Getattr(ctx, fh, out)
}

// Open opens as the mount does: through the page cache to read, direct
// I/O to write.
func (f *floorFile) Open(_ context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_ACCMODE == syscall.O_RDONLY {
		return nil, 0, 0
	}
	if flags&syscall.O_TRUNC != 0 {
		if err := f.store.Truncate(0); err != nil {
			return nil, 0, fs.ToErrno(err)
		}
	}
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (f *floorFile) Read(_ context.Context, _ fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	off = min(off, floorSize)
	return fuse.ReadResultData(f.data[off:min(off+int64(len(dest)), floorSize)]), 0
}

func (f *floorFile) Write(_ context.Context, _ fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	n, err := f.store.WriteAt(data, off)
	return uint32(n), fs.ToErrno(err)
}

func (f *floorFile) Flush(context.Context, fs.FileHandle) syscall.Errno { return 0 }

func (f *floorFile) Fsync(context.Context, fs.FileHandle, uint32) syscall.Errno {
	return fs.ToErrno(f.store.Sync())
}

// floorRoot is the root of the floor mount, holding its one file.
type floorRoot struct {
	fs.Inode
	file *floorFile
}

func (r *floorRoot) OnAdd(ctx context.Context) {
	r.AddChild("file", r.NewPersistentInode(ctx, r.file, fs.StableAttr{Mode: syscall.S_IFREG}), false)
}

// mountFloor mounts a floorFile answering with data and storing writes in
// a file of dir, with the FUSE options and read-ahead of a writable mount,
// and returns its path.
func mountFloor(b *testing.B, data []byte, dir string) string {
	fuseAvailable(b)
	store, err := os.Create(filepath.Join(dir, "floor"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	mnt := b.TempDir()
	mo := fuseOptions(Options{Writable: true}, os.Geteuid() == 0)
	root := &floorRoot{file: &floorFile{data: data, store: store}}
	srv, err := fuse.NewServer(fs.NewNodeFS(root, &fs.Options{MountOptions: mo}), mnt, &mo)
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve()
	b.Cleanup(func() { srv.Unmount() })
	if err := srv.WaitMount(); err != nil {
		b.Fatal(err)
	}
	tuneReadAhead(mnt, mo)
	return filepath.Join(mnt, "file")
}

// memDir returns a new directory in memory (/dev/shm) where the files of
// a Floor benchmark fit, else one on disk.
func memDir(b *testing.B) string {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Bavail*uint64(st.Bsize) < 8*floorSize {
		b.Logf("/dev/shm missing or short of %d MiB: files on disk", 8*floorSize>>20)
		return b.TempDir()
	}
	dir, err := os.MkdirTemp("/dev/shm", "b14fs-floor")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// floorFiles returns the four files the Floor benchmarks compare, in order,
// each holding the same floorSize bytes.
func floorFiles(b *testing.B) [4]struct{ fs, path string } {
	data := text(floorSize)
	mem := memDir(b)
	plain := filepath.Join(mem, "file")
	back := memDir(b)
	for _, p := range []string{plain, filepath.Join(back, "raw")} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	base, err := rootfs.Open(back)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { base.Close() })
	fsys, err := fsx.New(base, base16384.NewCodec(), fsx.ShowUnmapped())
	if err != nil {
		b.Fatal(err)
	}
	tm := mountView(b, back, fsys, Options{Writable: true})
	if err := os.WriteFile(tm.at("b14fs"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return [4]struct{ fs, path string }{
		{"plain", plain},
		{"floor", mountFloor(b, data, mem)},
		{"raw", tm.at("raw")},
		{"b14fs", tm.at("b14fs")},
	}
}

// dropCached drops the pages the kernel caches of f's file (none of a
// file in memory: they are its content).
func dropCached(b *testing.B, f *os.File) {
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		b.Fatal(err)
	}
}

// openCold opens path, with none of its pages cached.
func openCold(b *testing.B, path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	dropCached(b, f)
	return f
}

// readWhole reads f from where it is to its end, len(buf) bytes at a time,
// and checks that it read floorSize bytes.
func readWhole(b *testing.B, f *os.File, buf []byte) {
	n, err := io.CopyBuffer(onlyWriter{io.Discard}, onlyReader{f}, buf)
	if err != nil || n != floorSize {
		b.Fatalf("read %d bytes, %v", n, err)
	}
}

// BenchmarkFloorRead reads each file sequentially, 1 MiB at a time, as
// fio rw=read bs=1M does, from cold.
func BenchmarkFloorRead(b *testing.B) {
	buf := make([]byte, 1<<20)
	for _, file := range floorFiles(b) {
		b.Run("fs="+file.fs, func(b *testing.B) {
			b.SetBytes(floorSize)
			for range b.N {
				f := openCold(b, file.path)
				readWhole(b, f, buf)
				f.Close()
			}
		})
	}
}

// BenchmarkFloorReread reads each file a second time at once, as the first
// read left it: on a FUSE file, from the kernel's page cache without asking
// the file system. Only the second read is timed.
func BenchmarkFloorReread(b *testing.B) {
	buf := make([]byte, 1<<20)
	for _, file := range floorFiles(b) {
		b.Run("fs="+file.fs, func(b *testing.B) {
			b.SetBytes(floorSize)
			for range b.N {
				b.StopTimer()
				f := openCold(b, file.path)
				readWhole(b, f, buf)
				f.Seek(0, io.SeekStart)
				b.StartTimer()
				readWhole(b, f, buf)
				f.Close()
			}
		})
	}
}

// BenchmarkFloorRandomRead reads 4 KiB blocks of each file in a random
// order, as fio rw=randread bs=4k does, each block not cached: the pages
// are dropped whenever all blocks were read.
func BenchmarkFloorRandomRead(b *testing.B) {
	const block = 4 << 10
	buf := make([]byte, block)
	order := rand.New(rand.NewPCG(1, 2)).Perm(floorSize / block)
	for _, file := range floorFiles(b) {
		b.Run("fs="+file.fs, func(b *testing.B) {
			f := openCold(b, file.path)
			defer f.Close()
			b.SetBytes(block)
			b.ResetTimer()
			for i := range b.N {
				if i > 0 && i%len(order) == 0 {
					b.StopTimer()
					dropCached(b, f)
					b.StartTimer()
				}
				if _, err := f.ReadAt(buf, int64(order[i%len(order)])*block); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFloorWrite writes each file anew, 1 MiB at a time, and syncs it,
// as fio rw=write bs=1M end_fsync=1 does.
func BenchmarkFloorWrite(b *testing.B) {
	buf := text(1 << 20)
	for _, file := range floorFiles(b) {
		b.Run("fs="+file.fs, func(b *testing.B) {
			b.SetBytes(floorSize)
			for range b.N {
				f, err := os.OpenFile(file.path, os.O_WRONLY|os.O_TRUNC, 0)
				if err != nil {
					b.Fatal(err)
				}
				for range floorSize / len(buf) {
					if _, err := f.Write(buf); err != nil {
						b.Fatal(err)
					}
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
