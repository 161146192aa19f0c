package fsx_test

import (
	"errors"
	"strconv"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
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
		name string
		opts []fsx.Option
		gz   bool
	}{{name: "base16384"}, {name: "stream", gz: true}} {
		for seed := range int64(5) {
			t.Run(c.name+"/"+strconv.FormatInt(seed, 10), func(t *testing.T) {
				t.Parallel()
				ref := t.TempDir()
				base := afero.NewBasePathFs(afero.NewOsFs(), t.TempDir())
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
				cfg := difftest.Config{Seed: seed, Ops: ops}
				if err := difftest.Run(cfg, difftest.Dir(ref), difftest.Afero(fsys, fsxErrno)); err != nil {
					t.Fatal(err)
				}
				checkNoTemp(t, base)
			})
		}
	}
}
