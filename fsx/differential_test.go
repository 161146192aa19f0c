package fsx_test

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/internal/testing/difftest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// fsxErrno maps fsx's own errors to the errno a local filesystem gives for
// the same mistake, for difftest.
func fsxErrno(err error) error {
	switch {
	case errors.Is(err, syscall.EINVAL):
		return syscall.EINVAL
	case errors.Is(err, fsx.ErrReadOnly), errors.Is(err, fsx.ErrWriteOnly):
		return syscall.EBADF
	}
	return err
}

// TestDifferentialOsFs applies random sequences of operations through
// several descriptors and names (opens with each flag set, reads and
// writes at offsets and at the descriptor's offset, O_APPEND, truncations
// by descriptor and by name, fsync, renames over open files, removal of
// open files, closes) to a local directory and to fsx over an OsFs, and
// requires every result and every content to be the same.
func TestDifferentialOsFs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		opts  []fsx.Option
		gz    bool
		links bool // hard links too, on a base that has them
	}{{name: "base16384"}, {name: "stream", gz: true}, {name: "links", links: true}} {
		for seed := range int64(5) {
			t.Run(c.name+"/"+strconv.FormatInt(seed, 10), func(t *testing.T) {
				t.Parallel()
				ref := t.TempDir()
				base := afero.NewBasePathFs(afero.NewOsFs(), t.TempDir())
				if c.links {
					root, err := rootfs.Open(t.TempDir())
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { root.Close() })
					base = root
				}
				var fsys *fsx.Fs
				if c.gz {
					fsys = newFs(t, base, gz{})
				} else {
					fsys = newFs(t, base, base16384.NewCodec())
				}
				ops := difftest.DefaultOps()
				if c.gz {
					ops /= 4 // every read in the middle decodes from the start
				}
				cfg := difftest.Config{Seed: seed, Ops: ops, Links: c.links}
				if err := difftest.Run(cfg, difftest.Dir(ref), difftest.Afero(fsys, fsxErrno)); err != nil {
					t.Fatal(err)
				}
				checkNoTemp(t, base)
			})
		}
	}
}

// TestDifferentialBackends is TestDifferentialOsFs over every base of
// backends (in memory, a local directory, S3, SFTP with the long checks),
// without renames where the base has none (S3): what fsx shows of a remote
// store must behave as a local directory does, open files removed by name
// included. Over the remote bases, where each operation is a round trip,
// the sequences are a quarter as long.
func TestDifferentialBackends(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			for seed := range int64(3) {
				t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
					base := b.fresh(t)
					fsys := newFs(t, base, base16384.NewCodec())
					ops := difftest.DefaultOps()
					if can(base).remote {
						ops /= 4
					}
					cfg := difftest.Config{Seed: seed, Ops: ops, NoRename: !can(base).rename}
					if err := difftest.Run(cfg, difftest.Dir(t.TempDir()), difftest.Afero(fsys, fsxErrno)); err != nil {
						t.Fatal(err)
					}
					checkNoTemp(t, base)
				})
			}
		})
	}
}

// TestHardLinkReplays replays, on a local directory and on fsx over a base
// with hard links, the sequences TestDifferentialOsFs found where a file
// open under one name lost what it held, or showed, to its other names: a
// stat of another name while changes were not stored; a file open under a
// name removed or renamed over, while another name was never open through
// the Fs; and changes stored over the name they began under, removed
// meanwhile, bringing it back.
func TestHardLinkReplays(t *testing.T) {
	const rw, w = os.O_RDWR | os.O_CREATE, os.O_WRONLY | os.O_CREATE
	for _, tc := range []struct {
		name string
		ops  []difftest.Op
	}{
		{"stat of another name", []difftest.Op{
			{Kind: difftest.KindOpen, Slot: 0, Name: "b", Flag: rw},
			{Kind: difftest.KindLink, Name: "b", To: "c"},
			{Kind: difftest.KindWrite, Slot: 0, Len: 100},
		}},
		{"the open name removed", []difftest.Op{
			{Kind: difftest.KindOpen, Slot: 4, Name: "b", Flag: w | os.O_TRUNC | os.O_APPEND},
			{Kind: difftest.KindLink, Name: "b", To: "c"},
			{Kind: difftest.KindFtruncate, Slot: 4, Off: 20924},
			{Kind: difftest.KindRemove, Name: "b"},
			{Kind: difftest.KindOpen, Slot: 3, Name: "c", Flag: os.O_RDWR | os.O_APPEND},
			{Kind: difftest.KindReadAt, Slot: 3, Off: 11100, Len: 52},
		}},
		{"the open name renamed, then removed", []difftest.Op{
			{Kind: difftest.KindOpen, Slot: 0, Name: "b", Flag: w},
			{Kind: difftest.KindLink, Name: "b", To: "a"},
			{Kind: difftest.KindRename, Name: "b", To: "c"},
			{Kind: difftest.KindOpen, Slot: 5, Name: "c", Flag: rw},
			{Kind: difftest.KindRemove, Name: "c"},
			{Kind: difftest.KindTruncate, Name: "a", Off: 6572},
			{Kind: difftest.KindReadAt, Slot: 5, Off: 6473, Len: 64},
		}},
		{"the name changes began under removed", []difftest.Op{
			{Kind: difftest.KindOpen, Slot: 3, Name: "b", Flag: rw | os.O_EXCL | os.O_TRUNC | os.O_APPEND},
			{Kind: difftest.KindLink, Name: "b", To: "a"},
			{Kind: difftest.KindTruncate, Name: "a", Off: 10149},
			{Kind: difftest.KindLink, Name: "b", To: "c"},
			{Kind: difftest.KindRemove, Name: "b"},
			{Kind: difftest.KindOpen, Slot: 4, Name: "c", Flag: os.O_WRONLY | os.O_TRUNC},
			{Kind: difftest.KindRemove, Name: "a"},
			{Kind: difftest.KindClose, Slot: 4},
			{Kind: difftest.KindOpen, Slot: 2, Name: "a", Flag: os.O_RDONLY},
		}},
		{"the open name renamed over", []difftest.Op{
			{Kind: difftest.KindOpen, Slot: 2, Name: "c", Flag: rw},
			{Kind: difftest.KindOpen, Slot: 5, Name: "b", Flag: w | os.O_APPEND},
			{Kind: difftest.KindLink, Name: "c", To: "a"},
			{Kind: difftest.KindRename, Name: "b", To: "c"},
			{Kind: difftest.KindWrite, Slot: 2, Len: 77},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops := tc.ops
			for _, name := range []string{"a", "b", "c"} {
				ops = append(ops, difftest.Op{Kind: difftest.KindStat, Name: name},
					difftest.Op{Kind: difftest.KindReadFile, Name: name}, difftest.Op{Kind: difftest.KindLinks, Name: name})
			}
			for i := range ops {
				ops[i].Index = i
			}
			root, err := rootfs.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { root.Close() })
			fsys := newFs(t, root, base16384.NewCodec())
			cfg := difftest.Config{Links: true, Replay: ops}
			if err := difftest.Run(cfg, difftest.Dir(t.TempDir()), difftest.Afero(fsys, fsxErrno)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
