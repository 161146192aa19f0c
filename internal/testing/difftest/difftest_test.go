//go:build unix

package difftest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"
)

// childEnv names the directory a re-executed test binary serves.
const childEnv = "DIFFTEST_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		if err := Serve(os.Stdin, os.Stdout, Dir(dir)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// ops returns n, or n/10 under -short.
func ops(n int) int {
	if testing.Short() {
		return n / 10
	}
	return n
}

// TestDirDir runs sequences on two local directories, which must agree.
// The seeds run in parallel: most of their time is spent waiting for the
// disk, on fsync and on ext4's flush at the close of a truncated file.
// They run DefaultOps operations each: 20,000 with the long checks.
func TestDirDir(t *testing.T) {
	for seed := range int64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			cfg := Config{Seed: seed, Ops: DefaultOps()}
			if err := Run(cfg, Dir(t.TempDir()), Dir(t.TempDir())); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDirAfero runs sequences on a local directory and on another through
// afero's OsFs, DefaultOps operations each, in parallel.
func TestDirAfero(t *testing.T) {
	for seed := range int64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			cfg := Config{Seed: 100 + seed, Ops: DefaultOps()}
			b := afero.NewBasePathFs(afero.NewOsFs(), t.TempDir())
			if err := Run(cfg, Dir(t.TempDir()), Afero(b, nil)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSplit runs odd slots in a child process on the same directories.
func TestSplit(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ac, bc := startChild(t, a), startChild(t, b)
	cfg := Config{Seed: 1, Ops: ops(3000)}
	if err := RunSplit(cfg, Dir(a), ac, Dir(b), bc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Child{ac, bc} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func startChild(t *testing.T, dir string) *Child {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	c, err := StartChild(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSplitShared checks that a split run shares its files between its
// processes: a file written by one is read by the other.
func TestSplitShared(t *testing.T) {
	dir := t.TempDir()
	c := startChild(t, dir)
	s := side{local: newLocal(Dir(dir)), child: c}
	for _, op := range []Op{
		{Index: 0, Kind: KindOpen, Slot: 1, Name: "a", Flag: os.O_RDWR | os.O_CREATE},
		{Index: 1, Kind: KindWrite, Slot: 1, Len: 5},
		{Index: 2, Kind: KindOpen, Slot: 0, Name: "a"},
	} {
		if r, err := s.apply(op); err != nil || r.Err != "" {
			t.Fatalf("%v: %+v, %v", op, r, err)
		}
	}
	r, err := s.apply(Op{Index: 3, Kind: KindReadAt, Slot: 0, Len: 10})
	if want := (Op{Index: 1, Len: 5}).Data(); err != nil || string(r.Data) != string(want) {
		t.Fatalf("read %q, %v; want %q", r.Data, err, want)
	}
	if err := s.closeAll(2); err != nil {
		t.Fatal(err)
	}
}

func TestReplay(t *testing.T) {
	cfg := Config{Seed: 7, Ops: 3000}
	seq := Ops(cfg)
	if !reflect.DeepEqual(seq, Ops(cfg)) {
		t.Fatal("a seed gives two sequences")
	}
	if reflect.DeepEqual(seq, Ops(Config{Seed: 8, Ops: 3000})) {
		t.Fatal("two seeds give one sequence")
	}
	// A shorter sequence begins the longer one, but for its last check and
	// the closes before it.
	short := Ops(Config{Seed: 7, Ops: 1000})
	n := len(short) - 6
	for short[n-1].Kind == KindClose {
		n--
	}
	if !reflect.DeepEqual(short[:n], seq[:n]) {
		t.Fatal("a shorter sequence is not a prefix")
	}
	for i, op := range seq {
		if op.Index != i {
			t.Fatalf("op %d has index %d", i, op.Index)
		}
	}
	count := func(seq []Op) map[Kind]int {
		kinds := map[Kind]int{}
		for _, op := range seq {
			kinds[op.Kind]++
		}
		return kinds
	}
	if kinds := count(seq); kinds[KindLink]+kinds[KindLinks] != 0 {
		t.Errorf("%d links and %d link counts without Config.Links", kinds[KindLink], kinds[KindLinks])
	}
	cfg.Links = true
	kinds := count(Ops(cfg))
	for _, w := range weights {
		if kinds[w.kind] == 0 {
			t.Errorf("no %s in %d operations with Config.Links", w.kind, len(seq))
		}
	}
	if kinds[KindLinks] == 0 {
		t.Errorf("no %s in the checks with Config.Links", KindLinks)
	}
	cfg.NoRename = true
	if kinds := count(Ops(cfg)); kinds[KindRename] != 0 || kinds[KindRemove] == 0 {
		t.Errorf("%d renames and %d removals with Config.NoRename, want none and some", kinds[KindRename], kinds[KindRemove])
	}
}

// TestLinks runs sequences with hard links on two local directories, which
// must agree, and on a local directory and an afero.Fs with a Link method.
func TestLinks(t *testing.T) {
	cfg := Config{Seed: 11, Ops: ops(3000), Links: true}
	if err := Run(cfg, Dir(t.TempDir()), Dir(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	b := linkFs{afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()).(*afero.BasePathFs)}
	if err := Run(cfg, Dir(t.TempDir()), Afero(b, nil)); err != nil {
		t.Fatal(err)
	}
	if err := Run(cfg, Dir(t.TempDir()), Afero(afero.NewOsFs(), nil)); err == nil || !strings.Contains(err.Error(), "no hard links") {
		t.Errorf("Run with Links on an FS without them = %v, want an error saying so", err)
	}
}

// linkFs is an afero.BasePathFs with hard links.
type linkFs struct{ *afero.BasePathFs }

func (l linkFs) Link(oldname, newname string) error {
	o, err := l.RealPath(oldname)
	if err != nil {
		return err
	}
	n, err := l.RealPath(newname)
	if err != nil {
		return err
	}
	return os.Link(o, n)
}

// copyLinker makes a copy where it should make a link.
type copyLinker struct{ Linker }

func (c copyLinker) Link(oldname, newname string) error {
	data, err := c.ReadFile(oldname)
	if err != nil {
		return err
	}
	f, err := c.OpenFile(newname, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestLinksBroken checks that a link made as a copy shows.
func TestLinksBroken(t *testing.T) {
	err := Run(Config{Seed: 11, Ops: 3000, Links: true}, Dir(t.TempDir()), copyLinker{Dir(t.TempDir()).(Linker)})
	var d *Difference
	if !errors.As(err, &d) {
		t.Fatalf("Run = %v, want a *Difference", err)
	}
	t.Logf("%v", err)
}

func TestReplayConfig(t *testing.T) {
	seq := []Op{
		{Index: 0, Kind: KindOpen, Slot: 2, Name: "x", Flag: os.O_WRONLY | os.O_CREATE | os.O_APPEND},
		{Index: 1, Kind: KindWrite, Slot: 2, Len: 40},
		{Index: 2, Kind: KindReadFile, Name: "x"},
	}
	drop := &brokenFS{FS: Dir(t.TempDir()), dropWrite: 1}
	err := Run(Config{Replay: seq}, Dir(t.TempDir()), drop)
	var d *Difference
	if !errors.As(err, &d) || d.Op != seq[2] {
		t.Fatalf("Run = %v, want a difference at %v", err, seq[2])
	}
}

func TestData(t *testing.T) {
	got := string(Op{Index: 12, Len: 40}.Data())
	if want := "#12+0..........\n#12+16.........\n#12+32.."; got != want {
		t.Fatalf("Data = %q, want %q", got, want)
	}
}

// brokenFS is an FS with bugs for the harness to find.
type brokenFS struct {
	FS
	dropWrite int  // when not zero, every dropWrite-th Write or WriteAt drops its last byte
	seekEnd   bool // whether Seek from the end seeks from the start
	writes    int
}

func (b *brokenFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := b.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return brokenFile{f, b}, nil
}

type brokenFile struct {
	File
	fs *brokenFS
}

// short returns p, or p less its last byte when the write is one to drop.
func (f brokenFile) short(p []byte) []byte {
	f.fs.writes++
	if f.fs.dropWrite != 0 && f.fs.writes%f.fs.dropWrite == 0 {
		return p[:len(p)-1]
	}
	return p
}

func (f brokenFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(f.short(p))
	if err == nil {
		n = len(p)
	}
	return n, err
}

func (f brokenFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(f.short(p), off)
	if err == nil {
		n = len(p)
	}
	return n, err
}

func (f brokenFile) Seek(off int64, whence int) (int64, error) {
	if f.fs.seekEnd && whence == io.SeekEnd {
		whence = io.SeekStart
	}
	return f.File.Seek(off, whence)
}

func TestBroken(t *testing.T) {
	for _, tc := range []struct {
		name string
		fs   brokenFS
		kind []Kind // the kinds of operations that can see the bug
	}{
		{"dropped writes", brokenFS{dropWrite: 100}, []Kind{KindRead, KindReadAt, KindReadFile, KindStat, KindFstat, KindSeek}},
		{"seek end", brokenFS{seekEnd: true}, []Kind{KindSeek}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.fs.FS = Dir(t.TempDir())
			err := Run(Config{Seed: 3, Ops: 5000}, Dir(t.TempDir()), &tc.fs)
			var d *Difference
			if !errors.As(err, &d) {
				t.Fatalf("Run = %v, want a *Difference", err)
			}
			if !strings.Contains(err.Error(), d.Op.String()) || !strings.Contains(err.Error(), "seed 3") {
				t.Errorf("error does not name the seed and %v:\n%v", d.Op, err)
			}
			if want := min(recent, d.Op.Index); len(d.Recent) != want {
				t.Errorf("%d recent operations, want %d", len(d.Recent), want)
			}
			found := false
			for _, k := range tc.kind {
				found = found || d.Op.Kind == k
			}
			if !found {
				t.Errorf("difference at %v, want one of %v", d.Op, tc.kind)
			}
			t.Logf("%v", err)
		})
	}
}

func TestClass(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{io.EOF, "EOF"},
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrNotExist}, "ErrNotExist"},
		{&os.PathError{Op: "write", Path: "x", Err: syscall.EBADF}, "EBADF"},
		{&os.PathError{Op: "seek", Path: "x", Err: syscall.EINVAL}, "ErrInvalid"},
		{fmt.Errorf("x: %w", os.ErrInvalid), "ErrInvalid"},
		{os.ErrClosed, "ErrClosed"},
		{errors.New("x"), "other"},
	} {
		if got := Class(tc.err); got != tc.want {
			t.Errorf("Class(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
