//go:build linux

package mount

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/difftest"
)

// TestDifferential applies random sequences of operations through several
// descriptors and names, hard links among them (see difftest), to a local
// directory and to the mount, and requires every result, content and link
// count to be the same.
func TestDifferential(t *testing.T) {
	tm := mountNew(t)
	for seed := range int64(5) {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			mnt := tm.at(strconv.FormatInt(seed, 10))
			if err := os.Mkdir(mnt, 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := difftest.Config{Seed: seed, Ops: difftest.DefaultOps(), Links: true}
			if err := difftest.Run(cfg, difftest.Dir(t.TempDir()), difftest.Dir(mnt)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDifferentialTwoProcesses is TestDifferential with half the
// descriptors, and half the operations by name, in a second process, in an
// order the test fixes.
func TestDifferentialTwoProcesses(t *testing.T) {
	tm := mountNew(t)
	for seed := range int64(2) {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			ref := t.TempDir()
			mnt := tm.at(strconv.FormatInt(seed, 10))
			if err := os.Mkdir(mnt, 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := difftest.Config{Seed: seed, Ops: difftest.DefaultOps() / 4, Links: true}
			err := difftest.RunSplit(cfg, difftest.Dir(ref), startDiffChild(t, ref), difftest.Dir(mnt), startDiffChild(t, mnt))
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// childDirEnv names the directory a test binary started by startDiffChild
// serves difftest's operations on (see TestMain).
const childDirEnv = "B14FS_DIFFTEST_DIR"

// startDiffChild starts this test binary again as a difftest child serving
// dir, stopped when the test ends.
func startDiffChild(t *testing.T, dir string) *difftest.Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
	cmd.Stderr = os.Stderr
	c, err := difftest.StartChild(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
