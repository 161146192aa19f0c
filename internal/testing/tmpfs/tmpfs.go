// Package tmpfs gives tests a small file system of their own to fill: a
// tmpfs of a given size, for what must happen when a disk is full.
package tmpfs

import (
	"os/exec"
	"testing"
)

// Mount mounts a tmpfs of size (as mount(8) takes it: "1m", "256k") on a
// new temporary directory, returns the directory, and unmounts it when the
// test ends. It skips the test where it cannot mount one (not root).
func Mount(t testing.TB, size string) string {
	t.Helper()
	return MountAt(t, t.TempDir(), size)
}

// MountAt is Mount on dir, an empty directory.
func MountAt(t testing.TB, dir, size string) string {
	t.Helper()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		// A server of the test may hold a file there open a little
		// longer (a remote mount's last close): then it is detached,
		// and freed once that is closed.
		if exec.Command("umount", dir).Run() != nil {
			if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
				t.Errorf("umount -l %s: %v: %s", dir, err, out)
			}
		}
	})
	return dir
}
