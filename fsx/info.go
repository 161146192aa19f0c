package fsx

import (
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/afero"
)

// fileInfo describes an encoded file as shown: its shown name and decoded
// size, with the stored file's mode, time and system data.
type fileInfo struct {
	os.FileInfo
	name  string
	size  int64
	mtime time.Time // when set, the time of changes not stored yet
	state *inode    // the state of the open file it shows, if any
}

// SameFile reports whether fi1 and fi2, returned by one Fs (its Stat and
// Lstat, and the Stat of files it opened), describe the same file: the one
// state of a file open through the Fs, which all its opens share (a name
// whose stored file another program replaced meanwhile has another), or
// two stored files that are one by their device and inode numbers, where
// the base tells them. Over a base that tells no identities (SFTP, S3), a
// file that is not open has none: SameFile is false for it, as it is for
// FileInfos of other origins.
func SameFile(fi1, fi2 os.FileInfo) bool {
	a, ok1 := fi1.(*fileInfo)
	b, ok2 := fi2.(*fileInfo)
	if ok1 && ok2 && a.state != nil && b.state != nil {
		return a.state == b.state
	}
	id1, ok1 := identity(fi1)
	id2, ok2 := identity(fi2)
	return ok1 && ok2 && id1 == id2
}

func (fi *fileInfo) Name() string { return fi.name }
func (fi *fileInfo) Size() int64  { return fi.size }

func (fi *fileInfo) ModTime() time.Time {
	if !fi.mtime.IsZero() {
		return fi.mtime
	}
	return fi.FileInfo.ModTime()
}

// shownInfo returns the FileInfo of the file shown as name (a path or a
// base name), stored as described by stored, whose decoded size is size.
func shownInfo(stored os.FileInfo, name string, size int64) os.FileInfo {
	return &fileInfo{FileInfo: stored, name: filepath.Base(name), size: size}
}

// decodedInfo returns the FileInfo of the file shown as name and stored at
// path: as its inode shows it when the file is open (with the changes not
// stored yet), else the stored file as opened, which a concurrent
// replacement may have made newer than a listing's FileInfo. known is the
// base's Stat of path made just now, if any.
func (f *Fs) decodedInfo(name, path string, known seen) (os.FileInfo, error) {
	ino, err := f.current(path, known)
	if err != nil {
		return nil, err
	}
	if ino != nil {
		defer f.releaseInode(ino)
		ino.mu.Lock()
		defer ino.mu.Unlock()
		return ino.shownInfo(name)
	}
	bf, err := f.openQuietly(path)
	if err != nil {
		return nil, err
	}
	defer bf.Close()
	stored, err := bf.Stat()
	if err != nil {
		return nil, err
	}
	if ino := f.linkedInode(stored); ino != nil {
		// Open under another name, with changes it may not have stored.
		defer f.releaseInode(ino)
		ino.mu.Lock()
		defer ino.mu.Unlock()
		return ino.shownInfo(name)
	}
	// Its ends, as no append is rewriting them (never while holding an
	// inode's lock, under which this process's appends take theirs).
	unlock, locked := lockStored(bf, false)
	defer unlock()
	if locked {
		if stored, err = bf.Stat(); err != nil {
			return nil, err
		}
	}
	src, err := newSource(f.decoders, bf, stored.Size())
	if err != nil {
		return nil, err
	}
	size, err := src.Size()
	if err != nil {
		return nil, err
	}
	return shownInfo(stored, name, size), nil
}

// openQuietly opens the stored file at path to read what its decoded size
// needs, without changing its access time where the base can
// (QuietOpener).
func (f *Fs) openQuietly(path string) (afero.File, error) {
	if q, ok := f.base.(QuietOpener); ok {
		return q.OpenQuietly(path)
	}
	return f.base.Open(path)
}

// asShown returns info, of a base entry shown as it is (a directory, an
// unmapped or special file), under the shown name.
func asShown(info os.FileInfo, name string) os.FileInfo {
	if base := filepath.Base(name); base != info.Name() && !isRoot(name) {
		return &fileInfo{FileInfo: info, name: base, size: info.Size()}
	}
	return info
}

// isSpecial reports whether info describes a special file (a FIFO, a
// socket, a device), which is stored as itself, under a mapped name.
func isSpecial(info os.FileInfo) bool {
	return info.Mode()&(os.ModeNamedPipe|os.ModeSocket|os.ModeDevice|os.ModeCharDevice) != 0
}
