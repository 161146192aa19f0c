package rootfs

import "golang.org/x/sys/unix"

// mknodat is mknodat(2), which the system calls of macOS that Go reaches
// do not include: special files are not made there.
func mknodat(dirfd int, name string, mode uint32, dev uint64) error {
	return unix.ENOTSUP
}
