package mount

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

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

// changeTime returns the change time (ctime) of the base file info
// describes, or the zero time if the base does not tell it.
func changeTime(info os.FileInfo) time.Time {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return time.Time{}
	}
	return time.Unix(st.Ctim.Unix())
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

// setReadAhead sets how far the kernel reads ahead of a program reading a
// file of the mount at mountpoint through its page cache, to kib KiB: in
// sysfs, which only root may write (FUSE's INIT can lower the kernel's
// default of 128 KiB, not raise it).
func setReadAhead(mountpoint string, kib int) error {
	dev, err := mountDevice(mountpoint)
	if err != nil {
		return err
	}
	return os.WriteFile("/sys/class/bdi/"+dev+"/read_ahead_kb", []byte(strconv.Itoa(kib)), 0)
}

// mountDevice returns the device ("major:minor") of the last mount at
// mountpoint, from /proc/self/mountinfo; not by stat(2), which a mount's
// own process must not ask of it (kill_test.go).
func mountDevice(mountpoint string) (string, error) {
	dir, err := filepath.Abs(filepath.Dir(mountpoint))
	if err != nil {
		return "", err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return "", err
	}
	want := filepath.Join(dir, filepath.Base(mountpoint))
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	dev := ""
	for line := range strings.Lines(string(info)) {
		// ID, parent ID, major:minor, root, mount point, ...
		f := strings.Fields(line)
		if len(f) > 4 && unescapeMountinfo(f[4]) == want {
			dev = f[2]
		}
	}
	if dev == "" {
		return "", fmt.Errorf("%s: not in /proc/self/mountinfo", want)
	}
	return dev, nil
}

// unescapeMountinfo undoes the octal escapes (\040 for a space) of a path
// in /proc/self/mountinfo.
func unescapeMountinfo(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
