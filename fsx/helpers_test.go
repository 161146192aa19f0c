package fsx_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/spf13/afero"
)

// forEach runs test over every backend and codec, each time on a new,
// empty base.
func forEach(t *testing.T, test func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec)) {
	t.Helper()
	for _, b := range backends() {
		for cname, c := range codecs() {
			t.Run(b.name+"/"+cname, func(t *testing.T) {
				base := b.fresh(t)
				test(t, newFs(t, base, c), base, c)
			})
		}
	}
}

// randomBytes returns n bytes that are the same for the same seed.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// sizes are the content sizes tests write: empty, around the block sizes,
// and more than one internal buffer.
var sizes = []int{0, 1, 2, 3, 4, 6, 7, 8, 13, 14, 15, 100, 4096, 70001}

func mustWrite(t testing.TB, fsys afero.Fs, name string, p []byte) {
	t.Helper()
	if err := afero.WriteFile(fsys, name, p, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, fsys afero.Fs, name string) []byte {
	t.Helper()
	p, err := afero.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkContent checks that name reads as want and that Stat reports its
// size, both through fsys and through the file's own Stat.
func checkContent(t *testing.T, fsys afero.Fs, name string, want []byte) {
	t.Helper()
	if got := mustRead(t, fsys, name); !bytes.Equal(got, want) {
		t.Fatalf("%s: read %d bytes %.20q, want %d bytes %.20q", name, len(got), got, len(want), want)
	}
	info, err := fsys.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() != int64(len(want)) {
		t.Fatalf("%s: Stat size %d, want %d", name, info.Size(), len(want))
	}
}

// checkPathError checks that err is an *fs.PathError matching want.
func checkPathError(t *testing.T, what string, err, want error) {
	t.Helper()
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, want) {
		t.Fatalf("%s: error %v (%T), want an *fs.PathError wrapping %v", what, err, err, want)
	}
}

// countingFs counts the bytes written to the files of its base, the files
// it creates, and the reads of its files.
type countingFs struct {
	afero.Fs
	written atomic.Int64
	creates atomic.Int64
	reads   atomic.Int64 // Read and ReadAt calls
}

func (c *countingFs) Open(name string) (afero.File, error) {
	return c.OpenFile(name, os.O_RDONLY, 0)
}

func (c *countingFs) Create(name string) (afero.File, error) {
	return c.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (c *countingFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&os.O_CREATE != 0 {
		c.creates.Add(1)
	}
	f, err := c.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, written: &c.written, reads: &c.reads}, nil
}

type countingFile struct {
	afero.File
	written, reads *atomic.Int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.File.Read(p)
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.File.ReadAt(p, off)
}

func (c *countingFile) Write(p []byte) (int, error) {
	n, err := c.File.Write(p)
	c.written.Add(int64(n))
	return n, err
}

func (c *countingFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := c.File.WriteAt(p, off)
	c.written.Add(int64(n))
	return n, err
}

// failingFs fails every Rename, as a full disk or a crash before the
// rename would leave things.
type failingFs struct{ afero.Fs }

var errInjected = errors.New("injected failure")

func (failingFs) Rename(string, string) error { return errInjected }

// failing returns base with the commits of its writes failing: its Rename
// (failingFs), or on an atomicfile.Replacer the uploads at Close, as a
// store that refuses them.
func failing(base afero.Fs) afero.Fs {
	return replacing(failingFs{base}, base, func(r atomicfile.Replacement) (afero.File, error) {
		return uploadFails{r}, nil
	})
}

// uploadFails is a Replacement whose Close fails and stores nothing.
type uploadFails struct{ atomicfile.Replacement }

func (u uploadFails) Close() error {
	u.Discard()
	return errInjected
}

// replacing returns fsys, which wraps base, as an atomicfile.Replacer when
// base is one (so that fsx still writes through Replace): its Replace is
// base's, each Replacement wrapped by wrap, or failing with wrap's error.
func replacing(fsys, base afero.Fs, wrap func(atomicfile.Replacement) (afero.File, error)) afero.Fs {
	r, ok := base.(atomicfile.Replacer)
	if !ok {
		return fsys
	}
	return replacerFs{fsys, func(name string, perm os.FileMode) (atomicfile.Replacement, error) {
		repl, err := r.Replace(name, perm)
		if err != nil {
			return nil, err
		}
		f, err := wrap(repl)
		if err != nil {
			repl.Discard()
			return nil, err
		}
		return replacement{f, repl.Discard}, nil
	}}
}

type replacerFs struct {
	afero.Fs
	replace func(name string, perm os.FileMode) (atomicfile.Replacement, error)
}

func (r replacerFs) Replace(name string, perm os.FileMode) (atomicfile.Replacement, error) {
	return r.replace(name, perm)
}

// replacement is a Replacement whose file is File.
type replacement struct {
	afero.File
	discard func()
}

func (r replacement) Discard() { r.discard() }

// readOneByte reads all of r in 1-byte reads.
func readOneByte(r io.Reader) ([]byte, error) {
	var out []byte
	b := make([]byte, 1)
	for {
		n, err := r.Read(b)
		out = append(out, b[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

var (
	errIsDir  = syscall.EISDIR
	errNotDir = syscall.ENOTDIR
)

// fullFs fails every write to its files, as a full disk does.
type fullFs struct{ afero.Fs }

func (f fullFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	file, err := f.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return fullFile{file}, nil
}

// full returns base with every write to its files failing (fullFs), and
// on an atomicfile.Replacer every write to its Replacements, as a full
// local disk holding them.
func full(base afero.Fs) afero.Fs {
	return replacing(fullFs{base}, base, func(r atomicfile.Replacement) (afero.File, error) {
		return fullFile{r}, nil
	})
}

type fullFile struct{ afero.File }

func (fullFile) Write([]byte) (int, error)          { return 0, errInjected }
func (fullFile) WriteAt([]byte, int64) (int, error) { return 0, errInjected }

// quirkyFs wraps the files its base opens with wrap.
type quirkyFs struct {
	afero.Fs
	wrap func(afero.File) afero.File
}

func (q quirkyFs) Open(name string) (afero.File, error) {
	return q.OpenFile(name, os.O_RDONLY, 0)
}

func (q quirkyFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := q.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return q.wrap(f), nil
}

// dataEOFFile returns io.EOF along with the last bytes of a ReadAt that
// reaches the end of the file, as io.ReaderAt allows (like
// iotest.DataErrReader).
type dataEOFFile struct{ afero.File }

func (d dataEOFFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := d.File.ReadAt(p, off)
	if info, serr := d.File.Stat(); err == nil && serr == nil && off+int64(n) == info.Size() {
		err = io.EOF
	}
	return n, err
}

// timeoutFile fails every ReadAt after the first few with
// iotest.ErrTimeout (like iotest.TimeoutReader).
type timeoutFile struct {
	afero.File
	calls *atomic.Int64
}

func (t timeoutFile) ReadAt(p []byte, off int64) (int, error) {
	if t.calls.Add(1) > 3 {
		return 0, iotest.ErrTimeout
	}
	return t.File.ReadAt(p, off)
}

// newFs returns fsx.New(base, c, opts...), ending the test on an error.
func newFs(t testing.TB, base afero.Fs, c core.Codec, opts ...fsx.Option) *fsx.Fs {
	t.Helper()
	fsys, err := fsx.New(base, c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// names returns the names of infos.
func names(infos []os.FileInfo) []string {
	var names []string
	for _, info := range infos {
		names = append(names, info.Name())
	}
	return names
}
