package fsx_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

// osBase returns an fsx.Fs with codec c over a new directory of the real
// file system, and that directory.
func osBase(t *testing.T, c core.Codec) (*fsx.Fs, afero.Fs, string) {
	dir := t.TempDir()
	base := afero.NewBasePathFs(afero.NewOsFs(), dir)
	return newFs(t, base, c), base, dir
}

// TestStageRandomEdits applies random writes, truncations and syncs to a
// file opened once, comparing it with a byte slice, and checks after Close
// that the stored file holds exactly the codec's encoding of the content.
func TestStageRandomEdits(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		for round := range 6 {
			r := rand.New(rand.NewPCG(uint64(round), 7))
			name := fmt.Sprintf("r%d", round)
			model := randomBytes(r.IntN(3000), uint64(round))
			mustWrite(t, fsys, name, model)
			f, err := fsys.OpenFile(name, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			for op := range 40 {
				switch k := r.IntN(10); {
				case k < 6:
					off := r.Int64N(int64(len(model)) + 40)
					p := randomBytes(1+r.IntN(60), uint64(1000*round+op))
					if _, err := f.WriteAt(p, off); err != nil {
						t.Fatalf("round %d op %d: WriteAt: %v", round, op, err)
					}
					model = writeModel(model, p, off)
				case k < 8:
					size := r.Int64N(int64(len(model)) + 50)
					if err := f.Truncate(size); err != nil {
						t.Fatalf("round %d op %d: Truncate: %v", round, op, err)
					}
					model = append(model[:min(int64(len(model)), size)], make([]byte, max(0, size-int64(len(model))))...)
				case k < 9:
					if err := f.Sync(); err != nil {
						t.Fatalf("round %d op %d: Sync: %v", round, op, err)
					}
					checkContent(t, fsys, name, model)
				default:
					if err := f.Close(); err != nil {
						t.Fatalf("round %d op %d: Close: %v", round, op, err)
					}
					checkContent(t, fsys, name, model)
					if f, err = fsys.OpenFile(name, os.O_RDWR, 0); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			checkContent(t, fsys, name, model)
			stored, err := afero.ReadFile(base, name+suffix(c))
			if err != nil {
				t.Fatal(err)
			}
			if want := encode(c, model); len(model) > 0 && !bytes.Equal(stored, want) {
				t.Errorf("round %d: stored %d bytes, not the encoding of the content (%d bytes)", round, len(stored), len(want))
			}
			checkNoTemp(t, base)
		}
	})
}

// TestStageInPlace checks that writes into the middle of a block codec file
// rewrite the stored file in place: it keeps its inode, and a write of a few
// bytes writes a few blocks.
func TestStageInPlace(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]core.Codec{
		"base16384":      base16384.NewCodec(),
		"base16384-utf8": base16384Codec("form=utf8", "bom=true"),
		"b64":            b64{header: true},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			counting := &countingFs{Fs: afero.NewBasePathFs(afero.NewOsFs(), dir)}
			fsys := newFs(t, counting, c)
			model := randomBytes(100003, 1)
			mustWrite(t, fsys, "x", model)
			stored := filepath.Join(dir, "x"+suffix(c))
			before, err := os.Stat(stored)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct {
				off int64
				n   int
			}{{0, 1}, {50000, 3}, {100000, 3}, {100002, 1}, {70, 20}} {
				counting.written.Store(0)
				f, err := fsys.OpenFile("x", os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				p := randomBytes(w.n, uint64(w.off))
				if _, err := f.WriteAt(p, w.off); err != nil {
					t.Fatal(err)
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				model = writeModel(model, p, w.off)
				checkContent(t, fsys, "x", model)
				after, err := os.Stat(stored)
				if err != nil {
					t.Fatal(err)
				}
				if !os.SameFile(before, after) {
					t.Errorf("write of %d bytes at %d replaced the stored file", w.n, w.off)
				}
				// The bytes written to the stored file, plus the scratch file.
				if got := counting.written.Load(); got > 200 {
					t.Errorf("write of %d bytes at %d wrote %d bytes to the base", w.n, w.off, got)
				}
			}
			// Growing and shrinking go through the tail.
			for _, size := range []int64{100010, 99990, 5, 200000, 100003} {
				f, err := fsys.OpenFile("x", os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(size); err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteAt([]byte("z"), 2); err != nil {
					t.Fatal(err)
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				model = writeModel(append(model[:min(int64(len(model)), size)], make([]byte, max(0, size-int64(len(model))))...), []byte("z"), 2)
				checkContent(t, fsys, "x", model)
				if after, _ := os.Stat(stored); !os.SameFile(before, after) {
					t.Errorf("truncation to %d replaced the stored file", size)
				}
			}
		})
	}
}

// TestNoWriteLayout checks that the files of a block codec whose
// WriteLayout declares no blocks (core.ErrNoLayout) are never changed in
// place: appends and writes into the middle replace the stored file.
func TestNoWriteLayout(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]core.Codec{
		"b64":               b64{noBlocks: true},
		"base16384-newline": base16384Codec("form=utf8", "newline=true"),
	} {
		t.Run(name, func(t *testing.T) {
			fsys, _, dir := osBase(t, c)
			model := randomBytes(10003, 1)
			mustWrite(t, fsys, "x", model)
			stored := filepath.Join(dir, "x"+suffix(c))
			for _, flag := range []int{os.O_WRONLY | os.O_APPEND, os.O_RDWR} {
				before, err := os.Stat(stored)
				if err != nil {
					t.Fatal(err)
				}
				f, err := fsys.OpenFile("x", flag, 0)
				if err != nil {
					t.Fatal(err)
				}
				p := randomBytes(10, uint64(flag))
				if flag&os.O_APPEND != 0 {
					_, err = f.Write(p)
					model = append(model, p...)
				} else {
					_, err = f.WriteAt(p, 5000)
					model = writeModel(model, p, 5000)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				checkContent(t, fsys, "x", model)
				if after, err := os.Stat(stored); err != nil || os.SameFile(before, after) {
					t.Errorf("flag %#x: the stored file was changed in place (%v)", flag, err)
				}
			}
		})
	}
}

// TestStageChangedMeanwhile checks that a stage whose stored file another
// program replaced or changed meanwhile is stored whole, and not patched
// into a file it did not start from; and that the writes of the files open
// through one Fs all land.
func TestStageChangedMeanwhile(t *testing.T) {
	t.Parallel()
	fsys, base, _ := osBase(t, base16384.NewCodec())
	other := newFs(t, base, base16384.NewCodec()) // another program
	mustWrite(t, fsys, "x", bytes.Repeat([]byte("a"), 1000))
	f, err := fsys.OpenFile("x", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("B"), 10); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, other, "x", bytes.Repeat([]byte("c"), 20)) // replaced meanwhile
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("a"), 1000)
	want[10] = 'B'
	checkContent(t, fsys, "x", want)

	g, err := fsys.OpenFile("x", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.WriteAt([]byte("D"), 0); err != nil {
		t.Fatal(err)
	}
	a, err := fsys.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("appended"))
	if err := a.Close(); err != nil { // stores both files' writes
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	want[0] = 'D'
	checkContent(t, fsys, "x", append(want, "appended"...))
}

// stageMemoryEnv names the directory and codec TestStageMemory's child
// process edits its file in.
const stageMemoryEnv = "B14FS_STAGE_MEMORY_CHILD"

// stageMemoryCodecs are the codecs TestStageMemory edits a large file of.
var stageMemoryCodecs = map[string]core.Codec{"base16384": base16384.NewCodec(), "stream": gz{}}

// TestStageMemory checks that a small write into the middle of a large file
// holds no copy of the file in memory. The edit runs in a child process of
// its own, so that its count of bytes allocated holds nothing that other
// tests' goroutines allocate meanwhile, and on one P (GOMAXPROCS=1): a
// sync.Pool keeps what it is given per P, so with more, a decoder put back
// on one P and asked for on another under load is made again, which once
// doubled the count (18 MiB instead of 9). (The bound is looser under -race,
// whose sync.Pool drops buffers at random: CI measured 18 MiB there, in
// the child alone.)
func TestStageMemory(t *testing.T) {
	if job := os.Getenv(stageMemoryEnv); job != "" {
		stageMemoryChild(t, job)
		return
	}
	if testing.Short() {
		t.Skip("writes a 64 MiB file")
	}
	for name, c := range stageMemoryCodecs {
		t.Run(name, func(t *testing.T) {
			fsys, _, dir := osBase(t, c)
			const size = 64 << 20
			f, err := fsys.Create("big")
			if err != nil {
				t.Fatal(err)
			}
			chunk := randomBytes(1<<20, 3)
			for range size / len(chunk) {
				if _, err := f.Write(chunk); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestStageMemory$", "-test.count=1")
			cmd.Env = append(os.Environ(), stageMemoryEnv+"="+name+" "+dir, "GOMAXPROCS=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var alloc uint64
			i := bytes.Index(out, []byte("stagememory:"))
			if i < 0 {
				t.Fatalf("no report from the child:\n%s", out)
			}
			if _, err := fmt.Sscanf(string(out[i:]), "stagememory: alloc=%d", &alloc); err != nil {
				t.Fatalf("bad report from the child (%v):\n%s", err, out)
			}
			t.Logf("the edit allocated %d KiB", alloc>>10)
			// A copy of the file would be 64 MiB. The decoders' buffers
			// (two of 4 MiB) come from a sync.Pool, which under -race drops
			// some of what it is given: they may be made again.
			bound := uint64(16 << 20)
			if raceEnabled {
				bound = 40 << 20
			}
			if alloc > bound {
				t.Errorf("a 1-byte write and a truncation of a 64 MiB file allocated %d MiB", alloc>>20)
			}
			g, err := fsys.Open("big")
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			p := make([]byte, 3)
			if _, err := g.ReadAt(p, size/2-1); err != nil || string(p[1:2]) != "x" || p[0] != chunk[(size/2-1)%len(chunk)] {
				t.Errorf("read back %q, %v", p, err)
			}
			if info, _ := g.Stat(); info.Size() != size+100 {
				t.Errorf("size %d, want %d", info.Size(), size+100)
			}
		})
	}
}

// stageMemoryChild writes one byte into the middle of the file "big" in
// the directory job names, extends it by 100 bytes, and prints the bytes
// that allocated.
func stageMemoryChild(t *testing.T, job string) {
	name, dir, ok := strings.Cut(job, " ")
	c := stageMemoryCodecs[name]
	if !ok || c == nil {
		t.Fatalf("bad %s %q", stageMemoryEnv, job)
	}
	fsys := newFs(t, afero.NewBasePathFs(afero.NewOsFs(), dir), c)
	var before, after runtime.MemStats
	runtime.GC()
	// No collection during the edit: one would empty the sync.Pools the
	// decoders' buffers come from, and how many run depends on the load.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.ReadMemStats(&before)
	f, err := fsys.OpenFile("big", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("x"), info.Size()/2); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(info.Size() + 100); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	fmt.Printf("stagememory: alloc=%d\n", after.TotalAlloc-before.TotalAlloc)
}

// TestChecksumReadAt reads a base16384 checksum=true file at offsets past
// its first block: the checksum covers the whole file, so a read that
// reaches its end must decode from its start (a read in the middle used to
// fail with "checksum mismatch").
func TestChecksumReadAt(t *testing.T) {
	t.Parallel()
	c := base16384Codec("checksum=true")
	fsys := newFs(t, afero.NewMemMapFs(), c)
	for _, n := range []int{1000, 131072, 140000, 1000003} {
		want := randomBytes(n, uint64(n))
		mustWrite(t, fsys, "x", want)
		f, err := fsys.Open("x")
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, n)
		for off := 0; off < n; off += 131072 {
			m, err := f.ReadAt(got[off:min(off+131072, n)], int64(off))
			if err != nil && err != io.EOF {
				t.Fatalf("%d bytes: ReadAt(%d): %v", n, off, err)
			}
			if m != min(131072, n-off) {
				t.Fatalf("%d bytes: ReadAt(%d) = %d", n, off, m)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read back wrong", n)
		}
		// Backwards too.
		p := make([]byte, 10)
		for _, off := range []int{n - 10, 0, n / 2} {
			if _, err := f.ReadAt(p, int64(off)); (err != nil && err != io.EOF) || !bytes.Equal(p, want[off:off+10]) {
				t.Errorf("%d bytes: ReadAt(%d): %v", n, off, err)
			}
		}
		f.Close()
	}
}

// TestCommitKeepsMode checks that a Chmod of the stored file while a file
// holds writes is not undone by that file's Close.
func TestCommitKeepsMode(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "x", []byte("old"))
		f, err := fsys.OpenFile("x", os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("new"))
		mode := fs.FileMode(0o600)
		if err := fsys.Chmod("x", mode); !can(base).attrs {
			checkPathError(t, "Chmod on a base without modes", err, errors.ErrUnsupported)
			mode = 0o644
		} else if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if info, err := fsys.Stat("x"); err != nil || info.Mode().Perm() != mode {
			t.Errorf("after Close: %v, %v; want mode %v", info, err, mode)
		}
		checkContent(t, fsys, "x", []byte("new"))
	})
}

// TestAppendEmptyAllLand appends to an empty file through several files at
// once: every append lands, as with O_APPEND on a local file.
func TestAppendEmptyAllLand(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "log", nil)
		var files []afero.File
		for i := range 3 {
			f, err := fsys.OpenFile("log", os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "line %d\n", i)
			files = append(files, f)
		}
		for _, f := range files {
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
		got := string(mustRead(t, fsys, "log"))
		for i := range 3 {
			if !bytes.Contains([]byte(got), fmt.Appendf(nil, "line %d\n", i)) {
				t.Errorf("line %d lost: %q", i, got)
			}
		}
		if len(got) != 21 {
			t.Errorf("log holds %q", got)
		}
	})
}

// TestChangedUnderneath checks the rule for changes another program makes
// to a stored file while it is open: a read that reaches the end sees what
// was appended in place, and a replacement is seen by the opens after it,
// while the files open before go on reading what they opened.
func TestChangedUnderneath(t *testing.T) {
	t.Parallel()
	fsys, base, _ := osBase(t, base16384.NewCodec())
	other := newFs(t, base, base16384.NewCodec()) // another program
	mustWrite(t, fsys, "x", []byte("one\n"))
	r, err := fsys.Open("x")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	readAll := func() string {
		t.Helper()
		p := make([]byte, 100)
		n, err := r.ReadAt(p, 0)
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		return string(p[:n])
	}
	if got := readAll(); got != "one\n" {
		t.Fatalf("read %q", got)
	}
	a, err := other.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("two\n"))
	a.Close()
	if got := readAll(); got != "one\ntwo\n" {
		t.Errorf("after an append in place by another program: %q", got)
	}
	mustWrite(t, other, "x", []byte("replaced\n")) // a new stored file
	if got := readAll(); got != "one\ntwo\n" {
		t.Errorf("after a replacement: %q, want the file it has open", got)
	}
	checkContent(t, fsys, "x", []byte("replaced\n"))
	if got := readAll(); got != "one\ntwo\n" {
		t.Errorf("after a replacement and an open: %q, want the file it has open", got)
	}
}

// TestDiscard checks that Discard closes a file without storing its writes
// and leaves no temporary file.
func TestDiscard(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "x", []byte("kept"))
		for _, flag := range []int{os.O_TRUNC, 0, os.O_APPEND} {
			f, err := fsys.OpenFile("x", os.O_RDWR|flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			if flag == os.O_APPEND {
				f.Write([]byte("more"))
			} else {
				f.WriteAt([]byte("XX"), 1)
			}
			if err := f.(interface{ Discard() error }).Discard(); err != nil {
				t.Fatal(err)
			}
			checkContent(t, fsys, "x", []byte("kept"))
			checkNoTemp(t, base)
		}
	})
}
