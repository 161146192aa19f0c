package umask

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestGetAsKernel checks Get against the mode the kernel gives a file made
// with mode 0777, under several umasks.
func TestGetAsKernel(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	for i, mask := range []int{0o022, 0o077, 0o002, 0} {
		syscall.Umask(mask)
		if got := Get(); got != os.FileMode(mask) {
			t.Errorf("Get() under umask %04o: %04o", mask, got)
		}
		path := filepath.Join(t.TempDir(), string(rune('a'+i)))
		if err := os.WriteFile(path, nil, 0o777); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != Apply(0o777) {
			t.Errorf("under umask %04o: the kernel made %v, Apply gives %v (%v)", mask, fi.Mode().Perm(), Apply(0o777), err)
		}
	}
}
