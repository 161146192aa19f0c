//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// fileOwner returns the owner and group of the file info describes, if it
// tells them.
func fileOwner(info os.FileInfo) (uid, gid int, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
