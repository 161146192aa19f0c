//go:build !unix

package rootfs

// Rename renames oldname to newname.
func (f *Fs) Rename(oldname, newname string) error {
	return fix(f.root.Rename(rel(oldname), rel(newname)))
}

// noWait is the flag that keeps an open for reading from waiting; none here.
const noWait = 0
