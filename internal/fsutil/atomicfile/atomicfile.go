// Package atomicfile writes files through temporary files that are renamed
// over their targets, so that a failure or a crash never leaves a half
// written file, and finds the temporary files a crashed process left behind.
//
// Every temporary file or directory the project makes is named by TempName:
//
//	.HEAD.b14fs-HOST-PID-RANDOM.tmp
//
// where HEAD is the start of the target's name, HOST a hash of the host name
// and PID the owner's process ID. The name fits wherever the target's name
// fits (it is never longer than the target's name or 64 bytes, whichever is
// more), and it tells whether its owner is still running: a temporary file
// of this host whose process is gone is stale, and RemoveStale removes it.
package atomicfile

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/afero"
)

const (
	tag    = ".b14fs-"
	suffix = ".tmp"
	// minLen is the length a temporary name may reach whatever its target:
	// every filesystem in use allows names of 64 bytes.
	minLen = 64
)

// host identifies this machine in temporary names, so that a process ID is
// only ever judged on the host it belongs to.
var host = func() string {
	name, _ := os.Hostname()
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%08x", h.Sum32())
}()

// TempName returns a new temporary base name for a file or directory that
// is to replace target (a base name), owned by this process.
func TempName(target string) string {
	owner := tag + host + "-" + strconv.Itoa(os.Getpid()) + "-" +
		strconv.FormatUint(rand.Uint64(), 36) + suffix
	room := max(len(target), minLen) - len(owner) - 1
	return "." + head(target, room) + owner
}

// head returns the longest prefix of s of at most n bytes that does not cut
// a UTF-8 sequence.
func head(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// owner parses a temporary base name made by TempName into its host and
// process ID.
func owner(name string) (host string, pid int, ok bool) {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, suffix) {
		return "", 0, false
	}
	i := strings.LastIndex(name, tag)
	if i < 0 {
		return "", 0, false
	}
	parts := strings.Split(name[i+len(tag):len(name)-len(suffix)], "-")
	if len(parts) != 3 || len(parts[0]) != 8 || parts[2] == "" {
		return "", 0, false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return parts[0], pid, true
}

// IsTemp reports whether the base name is one TempName makes.
func IsTemp(name string) bool {
	_, _, ok := owner(name)
	return ok
}

// Stale reports whether the base name is a temporary name of this host
// whose owner process has ended. A process ID that was reused since counts
// as running: a stale file may be kept, a live one is never called stale.
func Stale(name string) bool {
	h, pid, ok := owner(name)
	return ok && h == host && pid != os.Getpid() && !running(pid)
}

// RemoveStale removes the stale temporary files and directories in dir.
func RemoveStale(fsys afero.Fs, dir string) error {
	d, err := fsys.Open(dir)
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, name := range names {
		if Stale(name) {
			if err := fsys.RemoveAll(filepath.Join(dir, name)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// A Replacer is a filesystem that replaces a file's content whole without
// a rename, such as an object store, where a PUT is atomic and there is no
// rename. Create then writes the new content through Replace, and makes no
// temporary file. Bases implement it as fsx.Replacer, the same method set
// (fsx is above this package, which cannot name it).
type Replacer interface {
	afero.Fs
	// Replace returns a new, empty content for the file name, open for
	// reading and writing (at any offset). Its Close makes it name's
	// content, whole and at once; its Discard drops it, and name stays as
	// it was. Replacements keep no mode of their own: their Chmod does
	// nothing.
	Replace(name string, perm os.FileMode) (Replacement, error)
}

// A Replacement is the pending new content of a file of a Replacer. It is
// an interface literal, the same type as fsx.Replacement, so that a base
// that implements one Replacer implements the other.
type Replacement = interface {
	afero.File
	// Discard drops the content, leaving the file as it was. It does
	// nothing after Close.
	Discard()
}

// File is a temporary file that Commit renames over its target, or the
// Replacement that Commit closes into it.
type File struct {
	afero.File
	fsys   afero.Fs
	name   string // as created: a base's File.Name may differ
	target string
	repl   Replacement // when fsys is a Replacer
	done   bool
}

// Create creates a temporary file in target's directory, with perm as
// os.OpenFile takes it (before the umask). When fsys is a Replacer, it
// returns a Replacement of target instead.
func Create(fsys afero.Fs, target string, perm os.FileMode) (*File, error) {
	if r, ok := fsys.(Replacer); ok {
		repl, err := r.Replace(target, perm)
		if err != nil {
			return nil, err
		}
		return &File{File: repl, fsys: fsys, name: target, target: target, repl: repl}, nil
	}
	dir, base := filepath.Split(target)
	for range 100 {
		name := dir + TempName(base)
		f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &File{File: f, fsys: fsys, name: name, target: target}, nil
	}
	return nil, &fs.PathError{Op: "create", Path: target, Err: errors.New("no free temporary name beside it")}
}

// Name returns the temporary file's name, as given to the base.
func (f *File) Name() string { return f.name }

// Chmod sets the temporary file's mode bits exactly, as the target's will
// be after Commit. A Replacement keeps no mode: it does nothing then. It
// goes through the open file where the base's files can (an *os.File, a
// file over SFTP): no lookup of the name, a round trip over a network.
func (f *File) Chmod(mode os.FileMode) error {
	switch c, ok := f.File.(interface{ Chmod(os.FileMode) error }); {
	case f.repl != nil:
		return nil
	case ok:
		return c.Chmod(mode)
	}
	return f.fsys.Chmod(f.name, mode)
}

// Chown sets the temporary file's owner and group, as the target's will be
// after Commit. A Replacement keeps no owner: it does nothing then. Like
// Chmod, it goes through the open file where it can.
func (f *File) Chown(uid, gid int) error {
	switch c, ok := f.File.(interface{ Chown(uid, gid int) error }); {
	case f.repl != nil:
		return nil
	case ok:
		return c.Chown(uid, gid)
	}
	return f.fsys.Chown(f.name, uid, gid)
}

// Commit flushes the file to stable storage, renames it over its target and
// flushes the directory, so that the new content is there after a crash.
// On failure the temporary file is removed and the target is as it was. A
// Replacement is closed into its target instead.
func (f *File) Commit() error {
	if f.done {
		return fs.ErrClosed
	}
	f.done = true
	if f.repl != nil {
		return f.repl.Close()
	}
	err := f.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.fsys.Rename(f.name, f.target)
	}
	if err != nil {
		f.fsys.Remove(f.name)
		return err
	}
	return SyncDir(f.fsys, filepath.Dir(f.target))
}

// Abort closes and removes the temporary file, leaving the target as it
// was. It does nothing after Commit or Abort.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.repl != nil {
		f.repl.Discard()
		return
	}
	f.File.Close()
	f.fsys.Remove(f.name)
}

// A DirSyncer is a filesystem that flushes a directory its own way, which
// SyncDir asks rather than opening the directory: one over a network that
// cannot flush a directory says so without a round trip. SyncDir takes its
// errors as those of a directory's Sync.
type DirSyncer interface {
	SyncDir(dir string) error
}

// SyncDir flushes a directory's entries to stable storage, so that a rename
// or a creation in it survives a crash. Bases that cannot sync a directory
// are not an error.
func SyncDir(fsys afero.Fs, dir string) error {
	var err error
	if s, ok := fsys.(DirSyncer); ok {
		err = s.SyncDir(dir)
	} else {
		var d afero.File
		if d, err = fsys.Open(dir); err != nil {
			return err
		}
		err = d.Sync()
		d.Close()
	}
	if errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}
