package rootfs

import "golang.org/x/sys/unix"

// mknodat is mknodat(2).
func mknodat(dirfd int, name string, mode uint32, dev uint64) error {
	return unix.Mknodat(dirfd, name, mode, dev)
}
