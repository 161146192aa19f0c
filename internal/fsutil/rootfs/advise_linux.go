package rootfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// adviseSequential tells the kernel that f will be read from start to end,
// which doubles its readahead.
func adviseSequential(f *os.File) {
	unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_SEQUENTIAL)
}
