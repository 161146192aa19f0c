//go:build unix

package atomicfile

import "syscall"

// running reports whether a process with this ID exists.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
