//go:build unix

package atomicfile

import "syscall"

// running reports whether a process with this ID exists and has not exited:
// a zombie (a process that has exited, whose parent has not yet collected
// its status) writes nothing more.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return (err == nil || err == syscall.EPERM) && !zombie(pid)
}
