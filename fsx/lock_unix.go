//go:build unix

package fsx

import (
	"syscall"

	"github.com/spf13/afero"
)

// lockStored takes a lock (flock(2)) on bf, a stored file, where the base
// gives its descriptor (local files): exclusive for an append in place, so
// that the appends of other processes (other views of the directory, such
// as other mounts) on this machine wait for it rather than rewrite the same
// last block; shared for reading the file's ends (its layout), which such
// an append rewrites. The function it returns releases it. It reports false
// where it takes no lock.
func lockStored(bf afero.File, exclusive bool) (unlock func(), locked bool) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		if bp, ok := bf.(*afero.BasePathFile); ok {
			bf = bp.File
			continue
		}
		break
	}
	f, ok := bf.(interface{ Fd() uintptr })
	if !ok {
		return func() {}, false
	}
	fd := int(f.Fd())
	for {
		switch err := syscall.Flock(fd, how); err {
		case nil:
			return func() { syscall.Flock(fd, syscall.LOCK_UN) }, true
		case syscall.EINTR:
		default:
			return func() {}, false // a file system without locks
		}
	}
}
