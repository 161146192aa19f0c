package atomicfile

import "os"

// ModeBits are the mode bits a file keeps when another replaces it: its
// permissions and its setuid, setgid and sticky bits.
const ModeBits = os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky

// An AttrSetter changes the mode and owner of a file: a *File, or a file of
// a file system by its name.
type AttrSetter interface {
	Chmod(mode os.FileMode) error
	Chown(uid, gid int) error
}

// KeepAttrs gives f, a file described by finfo that is to replace the file
// info describes, that file's mode bits (ModeBits) and, in a process
// running as root, its owner and group, where both FileInfos tell them (a
// *syscall.Stat_t): a replaced file keeps them, as if it had been written
// in place. A process running as root makes files its own, and a Chmod may
// have changed the replaced file since f was made. It changes only what
// differs.
func KeepAttrs(f AttrSetter, info, finfo os.FileInfo) error {
	chowned := false
	if uid, gid, ok := fileOwner(info); ok && os.Geteuid() == 0 {
		if fuid, fgid, _ := fileOwner(finfo); fuid != uid || fgid != gid {
			if err := f.Chown(uid, gid); err != nil {
				return err
			}
			chowned = true // which clears the setuid and setgid bits
		}
	}
	if !chowned && finfo.Mode()&ModeBits == info.Mode()&ModeBits {
		return nil
	}
	return f.Chmod(info.Mode() & ModeBits)
}
