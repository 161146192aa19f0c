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

// owner returns the owner and group of the base file info describes, if
// the base tells them.
func owner(info os.FileInfo) (uid, gid int, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
