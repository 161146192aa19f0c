//go:build unix

package fsx

import (
	"os"
	"syscall"
)

// hasIdentity reports whether info tells which file of the base it
// describes (a device and inode number), as local files do.
func hasIdentity(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st != nil
}

// A fileID identifies a file of the base: its device and inode number.
type fileID struct{ dev, ino uint64 }

// identity returns the identity of the base file info describes, if the
// base tells it.
func identity(info os.FileInfo) (fileID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}

// sameID reports whether a and b both tell their identity and describe
// one file of the base. Unlike os.SameFile, it takes any base's FileInfo
// whose Sys is a *syscall.Stat_t, not only the os package's.
func sameID(a, b os.FileInfo) bool {
	ia, oka := identity(a)
	ib, okb := identity(b)
	return oka && okb && ia == ib
}

// links returns the number of names the base file info describes has, or
// 1 when the base does not tell.
func links(info os.FileInfo) uint64 {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return 1
	}
	return uint64(st.Nlink)
}
