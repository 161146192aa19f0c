//go:build unix

// Package unixmode converts file modes between the os package's
// os.FileMode and the mode words of Unix system calls (stat's st_mode,
// mknod's and FUSE's modes): the file type (S_IFMT), the permission bits,
// and the set-user-ID, set-group-ID and sticky bits.
package unixmode

import (
	"os"
	"syscall"
)

// FileMode returns the os.FileMode of the Unix mode m, as the os package
// makes it from a stat: its type, permission and special bits. A type
// that is none of the known ones (or none at all) is a regular file.
func FileMode(m uint32) os.FileMode {
	fm := os.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		fm |= os.ModeDevice
	case syscall.S_IFCHR:
		fm |= os.ModeDevice | os.ModeCharDevice
	case syscall.S_IFDIR:
		fm |= os.ModeDir
	case syscall.S_IFIFO:
		fm |= os.ModeNamedPipe
	case syscall.S_IFLNK:
		fm |= os.ModeSymlink
	case syscall.S_IFSOCK:
		fm |= os.ModeSocket
	}
	if m&syscall.S_ISUID != 0 {
		fm |= os.ModeSetuid
	}
	if m&syscall.S_ISGID != 0 {
		fm |= os.ModeSetgid
	}
	if m&syscall.S_ISVTX != 0 {
		fm |= os.ModeSticky
	}
	return fm
}

// Type returns the S_IFMT bits of the type of m (S_IFREG for a regular
// file).
func Type(m os.FileMode) uint32 {
	switch {
	case m.IsDir():
		return syscall.S_IFDIR
	case m&os.ModeSymlink != 0:
		return syscall.S_IFLNK
	case m&os.ModeNamedPipe != 0:
		return syscall.S_IFIFO
	case m&os.ModeSocket != 0:
		return syscall.S_IFSOCK
	case m&os.ModeCharDevice != 0:
		return syscall.S_IFCHR
	case m&os.ModeDevice != 0:
		return syscall.S_IFBLK
	}
	return syscall.S_IFREG
}

// Perm returns the permission and special bits of m as system calls take
// them (open's, mkdir's and chmod's mode), without its type.
func Perm(m os.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		u |= syscall.S_ISUID
	}
	if m&os.ModeSetgid != 0 {
		u |= syscall.S_ISGID
	}
	if m&os.ModeSticky != 0 {
		u |= syscall.S_ISVTX
	}
	return u
}
