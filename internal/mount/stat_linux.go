package mount

import (
	"os"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// keyOf returns the identity of the base file info describes, if the base
// tells it (OsFs and DirFs do; fsx passes it on).
func keyOf(info os.FileInfo) (backingKey, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return backingKey{}, false
	}
	return backingKey{uint64(st.Dev), uint64(st.Ino)}, true
}

// fillSys copies the owner, link count, times and disk use of the base
// file from info to a, and reports whether info had them.
func fillSys(a *fuse.Attr, info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return false
	}
	a.Blocks = uint64(st.Blocks)
	a.Blksize = uint32(st.Blksize)
	a.Nlink = uint32(st.Nlink)
	a.Uid, a.Gid = st.Uid, st.Gid
	a.Rdev = uint32(st.Rdev)
	a.Atime, a.Atimensec = uint64(st.Atim.Sec), uint32(st.Atim.Nsec)
	a.Ctime, a.Ctimensec = uint64(st.Ctim.Sec), uint32(st.Ctim.Nsec)
	return true
}

// statfs returns the statfs of dir.
func statfs(dir string, out *fuse.StatfsOut) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return err
	}
	out.FromStatfsT(&st)
	return nil
}
