package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/afero"
)

// Symbolic links.
//
// A link is named like a file: a link stored as "x.b14" is shown as "x", and
// a link whose name the mapping does not produce is shown only with
// ShowUnmapped, as it is. A link's target is shown with its last element
// mapped like a file's name when the target stays inside the base and that
// element is a stored name ("sub/notes.txt.b14" is shown as
// "sub/notes.txt"), unless a directory of that name is there; absolute
// targets, and targets that leave the base, are shown as they are.
// SymlinkIfPossible stores a target the other way round. fsx never follows
// a link itself: what a link points at is found by whoever follows it, such
// as the kernel for a FUSE mount.
//
// These need a base that is an afero.Lstater, afero.Linker and
// afero.LinkReader (OsFs, BasePathFs); with another base, Lstat is Stat and
// links cannot be made or read.

var _ afero.Symlinker = (*Fs)(nil)

// errNoSymlink is the error of making a link on a base that cannot: it
// matches both afero.ErrNoSymlink and errors.ErrUnsupported.
var errNoSymlink = fmt.Errorf("%w (%w)", afero.ErrNoSymlink, errors.ErrUnsupported)

// A storedLink is a link in the base and what the name resolving to it is.
type storedLink struct {
	stored string      // the base path
	info   os.FileInfo // the base's Lstat
}

// link finds the link that the shown name denotes, if it denotes one.
func (f *Fs) link(name string) (storedLink, bool, error) {
	l, ok, _, err := f.linkLookup(name)
	return l, ok, err
}

// isLink reports whether the base path stored is a link, where the base
// tells links apart.
func (f *Fs) isLink(stored string) bool {
	ls, ok := f.base.(afero.Lstater)
	if !ok {
		return false
	}
	info, _, err := ls.LstatIfPossible(stored)
	return err == nil && info.Mode()&os.ModeSymlink != 0
}

// linkLookup is link, and returns too, where the name is no link, the
// lookup of its mapped stored name that it made, if it made one: the
// base's Stat would answer the same (a file that is no link, or none).
func (f *Fs) linkLookup(name string) (storedLink, bool, *lookup, error) {
	ls, ok := f.base.(afero.Lstater)
	if !ok || isRoot(name) {
		return storedLink{}, false, nil, nil
	}
	dir, base := filepath.Split(name)
	lstat := func(name string) (os.FileInfo, error) {
		info, _, err := ls.LstatIfPossible(name)
		return info, err
	}
	var known *lookup
	if stored, mapped := f.names.storedName(base); mapped {
		l := f.lookUpMapped(dir+stored, name, lstat)
		info, err := l.info, l.err
		switch {
		case err == nil && info.Mode()&os.ModeSymlink != 0:
			return storedLink{dir + stored, info}, true, nil, nil
		case err == nil && !info.IsDir():
			return storedLink{}, false, l, nil // a mapped file: it wins the name
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENAMETOOLONG):
			// (A stored name too long for the base: resolveKnown tells.)
			return storedLink{}, false, nil, err
		case err != nil:
			known = l
		}
	}
	if f.showsUnmapped(base) {
		var info os.FileInfo
		var err error
		if known != nil && known.plain != nil {
			info, err = known.plain.info, known.plain.err
		} else {
			info, err = lstat(name)
		}
		switch {
		case err == nil && info.Mode()&os.ModeSymlink != 0:
			return storedLink{name, info}, true, nil, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return storedLink{}, false, nil, err
		}
	}
	if known != nil && known.plain != nil && known.plain.err == nil && known.plain.info.Mode()&os.ModeSymlink != 0 {
		known.plain = nil // a link, which the base's Stat follows
	}
	return storedLink{}, false, known, nil
}

// LstatIfPossible returns the FileInfo of the named file, directory or
// link, not following a link, and reports whether it could tell links
// apart (the base is an afero.Lstater). A link's size is the length of its
// shown target.
func (f *Fs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	name = filepath.Clean(name)
	_, lstater := f.base.(afero.Lstater)
	l, ok, known, err := f.linkLookup(name)
	if err != nil {
		return nil, lstater, pathError("lstat", name, err)
	}
	if !ok {
		info, err := f.stat(name, known)
		return info, lstater, err
	}
	target, err := f.readlink(l)
	if err != nil {
		return nil, true, pathError("lstat", name, err)
	}
	return &fileInfo{FileInfo: l.info, name: filepath.Base(name), size: int64(len(target))}, true, nil
}

// ReadlinkIfPossible returns the shown target of the named link.
func (f *Fs) ReadlinkIfPossible(name string) (string, error) {
	name = filepath.Clean(name)
	l, ok, err := f.link(name)
	switch {
	case err != nil:
		return "", pathError("readlink", name, err)
	case !ok:
		if _, err := f.Stat(name); err != nil {
			return "", pathError("readlink", name, unwrapPath(err))
		}
		return "", pathError("readlink", name, syscall.EINVAL)
	}
	target, err := f.readlink(l)
	if err != nil {
		return "", pathError("readlink", name, err)
	}
	return target, nil
}

func (f *Fs) readlink(l storedLink) (string, error) {
	lr, ok := f.base.(afero.LinkReader)
	if !ok {
		return "", afero.ErrNoReadlink
	}
	target, err := lr.ReadlinkIfPossible(l.stored)
	if err != nil {
		return "", unwrapPath(err)
	}
	return f.shownTarget(filepath.Dir(l.stored), target), nil
}

// SymlinkIfPossible creates newname as a link to oldname, stored under the
// mapped form of newname with the target's last element mapped (see the
// package's notes on links). It fails with fs.ErrExist when newname shows
// anything already.
func (f *Fs) SymlinkIfPossible(oldname, newname string) error {
	newname = filepath.Clean(newname)
	err := f.symlink(oldname, newname)
	if err != nil {
		return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: unwrapPath(err)}
	}
	return nil
}

func (f *Fs) symlink(target, name string) error {
	ln, ok := f.base.(afero.Linker)
	if !ok {
		return errNoSymlink
	}
	stored, err := f.newEntryPath(name)
	if err != nil {
		return err
	}
	dir, _ := filepath.Split(name)
	return ln.SymlinkIfPossible(f.storedTarget(dir, target), stored)
}

// shownTarget returns how the target of a link stored in the base directory
// dir is shown.
func (f *Fs) shownTarget(dir, target string) string {
	tdir, last, ok := f.mappableTarget(dir, target)
	if !ok {
		return target
	}
	shown, ok := f.names.shownName(last)
	if !ok {
		return target
	}
	if info, err := f.lstat(filepath.Join(dir, tdir, last)); err == nil && info.IsDir() {
		return target // a directory keeps its name
	}
	return tdir + shown
}

// storedTarget returns how the target of a link to be stored in the base
// directory dir is stored.
func (f *Fs) storedTarget(dir, target string) string {
	tdir, last, ok := f.mappableTarget(dir, target)
	if !ok {
		return target
	}
	stored, ok := f.names.storedName(last)
	if !ok {
		return target
	}
	if info, err := f.lstat(filepath.Join(dir, tdir, stored)); err == nil && !info.IsDir() {
		return tdir + stored // a mapped file (or link) wins the name
	}
	if info, err := f.lstat(filepath.Join(dir, tdir, last)); err == nil {
		if _, mapped := f.names.shownName(last); !mapped || info.IsDir() {
			return target // a directory, or a file shown as it is
		}
		// The stored file of another name ("foo.b14", which shows "foo"):
		// the target is a file of the name itself, to come.
	}
	return tdir + stored // nothing there yet: a file to come
}

// mappableTarget splits a link target into the directory part and the last
// element, and reports whether the last element is a name to map: the
// target is relative, stays inside the base, and ends in a name.
func (f *Fs) mappableTarget(dir, target string) (string, string, bool) {
	if target == "" || filepath.IsAbs(target) || escapes(dir, target) {
		return "", "", false
	}
	tdir, last := filepath.Split(target)
	if last == "" || last == "." || last == ".." {
		return "", "", false
	}
	return tdir, last, true
}

// escapes reports whether the relative target of a link in the base
// directory dir leads out of the base.
func escapes(dir, target string) bool {
	depth := 0
	for _, e := range strings.Split(filepath.ToSlash(filepath.Clean("/"+dir)), "/") {
		if e != "" {
			depth++
		}
	}
	for _, e := range strings.Split(filepath.ToSlash(target), "/") {
		switch e {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}

// lstat is the base's Lstat, or its Stat when it has none.
func (f *Fs) lstat(name string) (os.FileInfo, error) {
	if ls, ok := f.base.(afero.Lstater); ok {
		info, _, err := ls.LstatIfPossible(name)
		return info, err
	}
	return f.base.Stat(name)
}
