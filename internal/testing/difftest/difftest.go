//go:build unix

// Package difftest is a differential test harness for filesystems: it
// applies a random sequence of file operations, through several open
// descriptors and by name, to two filesystems in lockstep, and reports the
// first result that differs. One side is normally a local directory (Dir),
// the reference; the other is the filesystem under test, such as a FUSE
// mountpoint (Dir again, through real syscalls) or an afero.Fs (Afero).
//
// The sequence is a pure function of Config.Seed (see Ops), so a failing
// seed replays exactly, and a failing prefix can be pasted into a test as a
// Config.Replay literal (fmt's %#v prints an Op as one).
//
// # Results that count as equal
//
// Byte counts, the bytes read, sizes and offsets must be equal. Errors
// compare by class (see Class), not by message, since messages name each
// side's paths. A read (read or pread) that returns n > 0 bytes may return
// either nil or io.EOF: io.Reader allows both, and os.File.ReadAt returns
// io.EOF with a short read where other io.ReaderAt implementations may
// not; so the harness compares n and the data, and EOF-ness only when
// n == 0, where both sides must say io.EOF.
//
// # Two processes
//
// RunSplit runs the descriptors of odd slots, and the operations by name
// of odd indexes, in a second process on the same directory, served by
// Serve and reached through a Child, to catch what one process's caches
// hide from another. A test re-executes its own binary as the child:
//
//	func TestMain(m *testing.M) {
//		if dir := os.Getenv("DIFFTEST_DIR"); dir != "" {
//			if err := difftest.Serve(os.Stdin, os.Stdout, difftest.Dir(dir)); err != nil {
//				fmt.Fprintln(os.Stderr, err)
//				os.Exit(1)
//			}
//			os.Exit(0)
//		}
//		os.Exit(m.Run())
//	}
//
//	cmd := exec.Command(os.Args[0])
//	cmd.Env = append(os.Environ(), "DIFFTEST_DIR="+dir)
//	child, err := difftest.StartChild(cmd)
//
// The child exits when its standard input closes: on Child.Close, or
// when the test process dies.
package difftest

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/longtest"
)

// FS is a filesystem a sequence runs on. Names are slash-separated and
// relative to the filesystem's root.
type FS interface {
	// OpenFile opens the named file as os.OpenFile does.
	OpenFile(name string, flag int, perm os.FileMode) (File, error)
	// Truncate changes the size of the named file.
	Truncate(name string, size int64) error
	// Rename renames a file, replacing any file newname names.
	Rename(oldname, newname string) error
	// Remove unlinks the named file.
	Remove(name string) error
	// Stat returns the size of the named file.
	Stat(name string) (size int64, err error)
	// ReadFile returns the content of the named file.
	ReadFile(name string) ([]byte, error)
}

// A Linker is an FS with hard links, which a Config with Links needs on
// both sides.
type Linker interface {
	FS
	// Link makes newname another name of the file oldname names.
	Link(oldname, newname string) error
	// Links returns the number of names of the named file.
	Links(name string) (int64, error)
}

// File is an open descriptor of an FS.
type File interface {
	// Read reads at the descriptor's offset and advances it.
	Read(p []byte) (int, error)
	// ReadAt reads at off, as io.ReaderAt does.
	ReadAt(p []byte, off int64) (int, error)
	// Write writes at the descriptor's offset, or at the end of the file
	// when it was opened with os.O_APPEND, and advances the offset.
	Write(p []byte) (int, error)
	// WriteAt writes at off; it is never called on a descriptor opened
	// with os.O_APPEND.
	WriteAt(p []byte, off int64) (int, error)
	// Seek sets the descriptor's offset, as io.Seeker does.
	Seek(off int64, whence int) (int64, error)
	// Truncate changes the size of the file.
	Truncate(size int64) error
	// Sync commits the file to storage.
	Sync() error
	// Stat returns the size of the file.
	Stat() (size int64, err error)
	// Close closes the descriptor.
	Close() error
}

// Config describes a sequence of operations. The zero value of each field
// but Seed selects its default.
type Config struct {
	// Seed selects the sequence.
	Seed int64
	// Ops is the number of random operations, 1000 by default. The checks
	// and the final closes come on top.
	Ops int
	// Names are the files the operations use: "a", "b" and "c" by default.
	Names []string
	// MaxFiles is the number of descriptor slots, 6 by default.
	MaxFiles int
	// MaxSize bounds the size of the files, 70000 bytes by default, so
	// that files cross several 4 KiB pages.
	MaxSize int
	// CheckEvery is the number of random operations between checks, which
	// read and stat every name and stat every open descriptor; 50 by
	// default. A check comes at the end too.
	CheckEvery int
	// Links adds hard links to the operations, and link counts to the
	// checks: both sides must be Linkers.
	Links bool
	// NoRename leaves renames out of the operations, for a filesystem
	// that has none (an object store).
	NoRename bool
	// Replay, when not nil, is the sequence to apply instead of Ops(cfg):
	// a prefix of one, or a sequence written by hand.
	Replay []Op
}

func (cfg Config) withDefaults() Config {
	if cfg.Ops == 0 {
		cfg.Ops = 1000
	}
	if len(cfg.Names) == 0 {
		cfg.Names = []string{"a", "b", "c"}
	}
	if cfg.MaxFiles == 0 {
		cfg.MaxFiles = 6
	}
	if cfg.MaxSize == 0 {
		cfg.MaxSize = 70000
	}
	if cfg.CheckEvery == 0 {
		cfg.CheckEvery = 50
	}
	return cfg
}

// Run applies the sequence cfg describes to a and b in lockstep. It returns
// nil, or a *Difference for the first operation whose results differ.
func Run(cfg Config, a, b FS) error {
	return run(cfg, side{local: newLocal(a)}, side{local: newLocal(b)})
}

// RunSplit is Run with each side split between two processes: a's and
// b's descriptors in odd slots live in ac and bc, which must operate on the
// same files as a and b, and so do the operations by name at odd indexes.
func RunSplit(cfg Config, a FS, ac *Child, b FS, bc *Child) error {
	return run(cfg, side{local: newLocal(a), child: ac}, side{local: newLocal(b), child: bc})
}

// recent is the number of operations a Difference shows before its own.
const recent = 20

func run(cfg Config, a, b side) (err error) {
	cfg = cfg.withDefaults()
	if cfg.Links {
		for _, s := range []side{a, b} {
			if _, ok := s.local.fs.(Linker); !ok {
				return fmt.Errorf("difftest: Config.Links on %T, which has no hard links", s.local.fs)
			}
		}
	}
	ops := cfg.Replay
	if ops == nil {
		ops = Ops(cfg)
	}
	defer func() {
		if cerr := errors.Join(a.closeAll(cfg.MaxFiles), b.closeAll(cfg.MaxFiles)); err == nil {
			err = cerr
		}
	}()
	for i, op := range ops {
		ra, err := a.apply(op)
		if err != nil {
			return fmt.Errorf("difftest: side a, %v: %w", op, err)
		}
		rb, err := b.apply(op)
		if err != nil {
			return fmt.Errorf("difftest: side b, %v: %w", op, err)
		}
		if !ra.same(rb, op.Kind) {
			return &Difference{Seed: cfg.Seed, Op: op, A: ra, B: rb, Recent: ops[max(0, i-recent):i]}
		}
	}
	return nil
}

// A Difference is the first operation whose results differ.
type Difference struct {
	Seed   int64  // the Config's seed
	Op     Op     // the operation
	A, B   Result // its results on each side
	Recent []Op   // the operations before Op, at most 20
}

// Error describes the difference over several lines: the seed, the
// operation, both results, where their data first differ, and the
// operations before it.
func (d *Difference) Error() string {
	var s strings.Builder
	fmt.Fprintf(&s, "difftest: seed %d: results of %v differ\n", d.Seed, d.Op)
	fmt.Fprintf(&s, "\ta: %v\n\tb: %v\n", d.A.describe(d.Op.Kind), d.B.describe(d.Op.Kind))
	if line := dataDiff(d.A.Data, d.B.Data); line != "" {
		fmt.Fprintf(&s, "\t%s\n", line)
	}
	s.WriteString("the operations before it:\n")
	for _, op := range d.Recent {
		fmt.Fprintf(&s, "\t%v\n", op)
	}
	return s.String()
}

// OpsEnvVar names the environment variable that sets DefaultOps.
const OpsEnvVar = "B14FS_DIFF_OPS"

// DefaultOps is how many operations a test's seed runs by default:
// $B14FS_DIFF_OPS, else 20,000 with the long checks (longtest), 2,000
// without, 500 with go test -short.
func DefaultOps() int {
	if n, err := strconv.Atoi(os.Getenv(OpsEnvVar)); err == nil && n > 0 {
		return n
	}
	switch {
	case longtest.Enabled():
		return 20000
	case testing.Short():
		return 500
	}
	return 2000
}
