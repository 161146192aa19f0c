package rootfs

import (
	"errors"
	"os"
	"syscall"

	"github.com/spf13/afero"
)

// OpenQuietly opens the named file for reading without changing its access
// time (O_NOATIME), where the process may ask for that (as the file's owner
// or with CAP_FOWNER); otherwise as Open does.
func (f *Fs) OpenQuietly(name string) (afero.File, error) {
	file, err := f.OpenFile(name, os.O_RDONLY|syscall.O_NOATIME, 0)
	if errors.Is(err, syscall.EPERM) {
		return f.Open(name)
	}
	return file, err
}
