// Package fsx wraps an afero.Fs with a codec, so that programs read and
// write plain data while the base filesystem stores it encoded.
//
// Files are stored under mapped names: by default the codec's suggested
// suffix (core.Suffixer) is added, so "notes.txt" is stored as
// "notes.txt.b14"; WithSuffix and WithExtension choose other mappings.
// Directories keep their names. Listings show only files whose stored names
// the mapping produces, unless ShowUnmapped is given.
//
// Stat and Readdir report decoded sizes, and files can be read at any offset.
// For a core.BlockCodec whose streams have blocks both take O(1) work: sizes come from the stored size
// and the last few bytes, and reads decode only the blocks they need. Other
// codecs are decoded from the start of the file.
//
// Writes go to a temporary file next to the target, which replaces it
// atomically on Close or Sync, so readers never see a half-written file and
// a failed write loses nothing. The exception is os.O_APPEND on a file
// stored by a block codec: then only the stored file's last block is
// rewritten in place, on Close or Sync.
package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/fsutil/parallel"
	"github.com/spf13/afero"
)

// Fs is an afero.Fs that stores files encoded in a base afero.Fs and shows
// them decoded. It is safe for concurrent use when its base is.
type Fs struct {
	base         afero.Fs
	codec        core.Codec
	decoders     *decoders
	names        mapping
	showUnmapped bool
	// inPlace is whether stored files may be changed where they are (not
	// on a Replacer, an object store that writes files whole).
	inPlace bool
	// highLatency is whether the base's calls wait for a network.
	highLatency bool
	// speculate is whether a name's second lookup goes with its first
	// (a HighLatency base with CheapLookups).
	speculate bool
	// infos counts the base FileInfos that inodes took, ordering them
	// with the lookups (seen).
	infos atomic.Uint64

	swept sync.Map // base directories whose stale temporary files are removed

	inodes    inodeTable // the state of each stored file open
	onReplace atomic.Pointer[func(old, new os.FileInfo, done bool)]
}

var _ afero.Fs = (*Fs)(nil)

// An Option configures an Fs. It returns an error for arguments it cannot
// use, which New returns.
type Option func(*Fs) error

// WithSuffix stores each file under its shown name followed by suffix
// (such as ".b14"). An empty suffix stores files under their own names, so
// every file in the base is taken to be encoded. A suffix holding a path
// separator or a NUL byte is an error wrapping ErrBadMapping.
func WithSuffix(suffix string) Option {
	return func(f *Fs) error {
		if err := checkSuffix("suffix", suffix, false); err != nil {
			return err
		}
		f.names = mapping{stored: suffix}
		return nil
	}
}

// WithExtension stores files whose shown names end in shown with that
// extension replaced by stored: WithExtension(".torrent", ".json") shows a
// stored "x.torrent" as "x.json". Both must be extensions: a dot followed by
// at least one byte, with no path separator or NUL byte; anything else is
// an error wrapping ErrBadMapping.
func WithExtension(stored, shown string) Option {
	return func(f *Fs) error {
		if err := checkSuffix("stored extension", stored, true); err != nil {
			return err
		}
		if err := checkSuffix("shown extension", shown, true); err != nil {
			return err
		}
		f.names = mapping{stored: stored, shown: shown}
		return nil
	}
}

// checkSuffix returns an error wrapping ErrBadMapping unless s can end a
// file name: no path separator or NUL, and when ext is set, a dot followed
// by at least one byte.
func checkSuffix(what, s string, ext bool) error {
	switch {
	case strings.ContainsAny(s, "/\x00") || strings.ContainsRune(s, filepath.Separator):
		return fmt.Errorf("%w: %s %q holds a path separator or NUL", ErrBadMapping, what, s)
	case ext && (len(s) < 2 || s[0] != '.'):
		return fmt.Errorf("%w: %s %q is not a dot followed by a name", ErrBadMapping, what, s)
	}
	return nil
}

// ShowUnmapped shows the base's files whose names the mapping does not
// produce as they are, neither decoded nor encoded. A mapped file wins over
// an unmapped one that would be shown under the same name.
func ShowUnmapped() Option {
	return func(f *Fs) error {
		f.showUnmapped = true
		return nil
	}
}

// New returns an Fs storing files in base encoded by c, or the error of the
// first option that cannot be used. Without an option for the names, files
// are stored under their names followed by c's suggested suffix when c is a
// core.Suffixer, and under their own names otherwise.
func New(base afero.Fs, c core.Codec, opts ...Option) (*Fs, error) {
	_, replacer := base.(Replacer)
	f := &Fs{base: base, codec: c, decoders: newDecoders(c), inPlace: !replacer}
	if h, ok := base.(HighLatency); ok {
		f.highLatency = h.HighLatency()
	}
	if c, ok := base.(CheapLookups); ok {
		f.speculate = f.highLatency && c.CheapLookups()
	}
	if s, ok := c.(core.Suffixer); ok {
		f.names = mapping{stored: s.Suffix()}
	}
	for _, opt := range opts {
		if err := opt(f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// HighLatency reports whether the base's calls wait for a network (see the
// HighLatency interface), as fsx's own then do.
func (f *Fs) HighLatency() bool { return f.highLatency }

// Name returns "fsx".
func (f *Fs) Name() string { return "fsx" }

// A target is what a shown name resolves to in the base.
type target struct {
	stored  string      // the base path
	info    os.FileInfo // the base's FileInfo, nil when nothing is there
	encoded bool        // whether the base file holds encoded data
	infos   uint64      // of an encoded file's info: see seen
}

// seen returns what the lookup of an encoded file saw.
func (t target) seen() seen { return seen{info: t.info, infos: t.infos} }

// resolve finds what the shown name denotes. A mapped regular file comes
// first, then a directory of that name, then (with ShowUnmapped) an unmapped
// file. When nothing exists, the target is where a new file would be stored.
func (f *Fs) resolve(name string) (target, error) { return f.resolveKnown(name, nil) }

// A lookup is the base's Stat of the mapped stored name of a shown name,
// made already (by link, as an Lstat of a file that is no link), and,
// where it was made at the same time, its Stat of the name itself (plain).
type lookup struct {
	info  os.FileInfo
	err   error
	infos uint64 // the Fs's count of infos taken (Fs.infos), before the Stat
	plain *lookup
}

// A seen is the base's FileInfo of a stored file, and the Fs's count of
// infos taken (Fs.infos) before the Stat that made it: an inode that took
// its info after (inode.infoAt) may know a newer file. Its info is nil when
// there is none.
type seen struct {
	info  os.FileInfo
	infos uint64
}

// lookUpMapped returns the lookup, by stat, of p, the mapped stored name of
// name. On a base whose calls wait for a network and whose lookups cost
// the server little (HighLatency and CheapLookups) it looks up name itself
// at the same time, which resolve needs next where p holds no file: a name
// that shows a directory, or nothing, then costs one round trip, not two.
func (f *Fs) lookUpMapped(p, name string, stat func(string) (os.FileInfo, error)) *lookup {
	l := &lookup{infos: f.infos.Load()}
	if !f.speculate {
		l.info, l.err = stat(p)
		return l
	}
	l.plain = new(lookup)
	parallel.For(2, 2, func(i int) {
		if i == 0 {
			l.info, l.err = stat(p)
		} else {
			l.plain.info, l.plain.err = stat(name)
		}
	})
	return l
}

// resolveKnown is resolve, with the base's lookups taken from known when it
// is set.
func (f *Fs) resolveKnown(name string, known *lookup) (target, error) {
	if isRoot(name) {
		info, err := f.base.Stat(name)
		return target{stored: name, info: info}, err
	}
	dir, base := filepath.Split(name)
	stored, mapped := f.names.storedName(base)
	var tooLong error // the stored name's ENAMETOOLONG: no file has the name
	if mapped {
		p := dir + stored
		if known == nil {
			known = f.lookUpMapped(p, name, f.base.Stat)
		}
		info, err := known.info, known.err
		switch {
		case err == nil && !info.IsDir():
			return target{stored: p, info: info, encoded: !isSpecial(info), infos: known.infos}, nil
		case err == nil && f.isLink(p):
			return target{stored: p, info: info}, nil // a link to a directory
		case errors.Is(err, syscall.ENAMETOOLONG):
			tooLong = err // a directory may have the name itself, shorter
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return target{}, err
		}
	}
	var info os.FileInfo
	var err error
	if known != nil && known.plain != nil {
		info, err = known.plain.info, known.plain.err
	} else {
		info, err = f.base.Stat(name)
	}
	switch {
	case err == nil && (info.IsDir() || f.showsUnmapped(base)):
		return target{stored: name, info: info}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return target{}, err
	case tooLong != nil:
		return target{}, tooLong
	case mapped:
		return target{stored: dir + stored, encoded: true}, nil
	case f.showsUnmapped(base):
		return target{stored: name}, nil
	}
	return target{}, ErrNotMapped
}

// showsUnmapped reports whether the base file of that name is shown as it is.
func (f *Fs) showsUnmapped(name string) bool {
	if !f.showUnmapped || atomicfile.IsTemp(name) {
		return false
	}
	_, stored := f.names.shownName(name)
	return !stored
}

// existing resolves name and reports fs.ErrNotExist when nothing is there.
func (f *Fs) existing(name string) (target, error) { return f.existingKnown(name, nil) }

// existingKnown is existing with resolveKnown.
func (f *Fs) existingKnown(name string, known *lookup) (target, error) {
	t, err := f.resolveKnown(name, known)
	if err == nil && t.info == nil {
		err = fs.ErrNotExist
	}
	return t, err
}

// Create creates or truncates the named file, opened for reading and writing.
func (f *Fs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Open opens the named file or directory for reading.
func (f *Fs) Open(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

// Mkdir creates a directory. It fails with fs.ErrExist when the name already
// shows a file or directory. As a file's first write in a directory does,
// it removes the temporary files ended processes left there.
func (f *Fs) Mkdir(name string, perm os.FileMode) error {
	name = filepath.Clean(name)
	t, err := f.resolve(name)
	switch {
	case errors.Is(err, ErrNotMapped), errors.Is(err, syscall.ENAMETOOLONG):
		// (A name too long for a file's stored name: a directory keeps
		// its own.)
	case err != nil:
		return pathError("mkdir", name, err)
	case t.info != nil:
		return pathError("mkdir", name, fs.ErrExist)
	}
	f.removeStale(filepath.Dir(name))
	if err := f.base.Mkdir(name, perm); err != nil {
		return pathError("mkdir", name, err)
	}
	return nil
}

// MkdirAll creates a directory and any parents it needs. It fails with
// syscall.ENOTDIR when one of them already shows a file.
func (f *Fs) MkdirAll(path string, perm os.FileMode) error {
	path = filepath.Clean(path)
	for p := filepath.Clean(path); !isRoot(p); p = filepath.Dir(p) {
		t, err := f.resolve(p)
		if err == nil && t.info != nil && !t.info.IsDir() {
			return pathError("mkdir", p, errNotDir)
		}
	}
	if err := f.base.MkdirAll(path, perm); err != nil {
		return pathError("mkdir", path, err)
	}
	return nil
}

// Remove removes the named file or empty directory. Files open keep their
// content until closed, as on a local filesystem, and store nothing more;
// unless the file has other names (hard links), through which they go on
// storing it.
func (f *Fs) Remove(name string) error {
	name = filepath.Clean(name)
	var t target
	l, isLink, err := f.link(name) // a link goes, not what it leads to (or loops on)
	if isLink {
		t.stored = l.stored
	} else if err == nil {
		t, err = f.existing(name)
	}
	if err == nil {
		err = f.removeStored(t.stored, func() error { return f.base.Remove(t.stored) })
	}
	if err != nil {
		return pathError("remove", name, err)
	}
	return nil
}

// RemoveAll removes the named file, or the named directory with everything
// it holds in the base (shown or not). Nothing there is not an error.
func (f *Fs) RemoveAll(path string) error {
	path = filepath.Clean(path)
	t, err := f.existing(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotMapped) || errors.Is(err, syscall.ENAMETOOLONG):
		return nil // (a name too long for a file's stored name that shows nothing)
	case err == nil:
		err = f.removeStored(t.stored, func() error { return f.base.RemoveAll(t.stored) })
	}
	if err != nil {
		return pathError("removeall", path, err)
	}
	return nil
}

// removeStored runs remove, which removes the base path stored, and
// unlinks the inodes of the files open there.
func (f *Fs) removeStored(stored string, remove func() error) error {
	inos := f.openUnder(stored)
	defer f.releaseAll(inos)
	unlock := lockInodes(inos...)
	defer unlock()
	if err := storeLinked(inos); err != nil {
		return err
	}
	if err := remove(); err != nil {
		return err
	}
	f.unlinkNames(inos, stored, false)
	f.relink(inos)
	return nil
}

// Rename renames a file or directory. An encoded file is stored under the
// mapped form of newname, so newname must have one. Files open under the
// old name store their content first, and under the new name from then on;
// files open under the new name keep their content until closed, and store
// nothing more.
func (f *Fs) Rename(oldname, newname string) error {
	oldname, newname = filepath.Clean(oldname), filepath.Clean(newname)
	err := f.rename(oldname, newname)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: unwrapPath(err)}
	}
	return nil
}

func (f *Fs) rename(oldname, newname string) error {
	from, err := f.existing(oldname)
	if err != nil {
		return err
	}
	to, err := f.newName(from, newname)
	if err != nil {
		return err
	}
	// A file (or link) and a directory have different stored names: the
	// base would rename the one beside the other, which it would hide.
	if there, _, err := f.LstatIfPossible(newname); err == nil {
		isDir := from.info.IsDir()
		if fromInfo, _, err := f.LstatIfPossible(oldname); err == nil {
			isDir = fromInfo.IsDir() // a link to a directory is none
		}
		switch {
		case isDir && !there.IsDir():
			return syscall.ENOTDIR
		case !isDir && there.IsDir():
			return syscall.EISDIR
		}
	}
	moved := f.openUnder(from.stored)
	defer f.releaseAll(moved)
	var victims []*inode
	if filepath.Clean(to) != filepath.Clean(from.stored) {
		victims = f.openUnder(to)
		defer f.releaseAll(victims)
	}
	unlock := lockInodes(append(slices.Clone(moved), victims...)...)
	defer unlock()
	for _, ino := range moved {
		if err := ino.commit(); err != nil {
			return err
		}
	}
	if err := storeLinked(victims); err != nil {
		return err
	}
	if err := f.base.Rename(from.stored, to); err != nil {
		return err
	}
	f.unlinkNames(victims, to, false)
	f.move(moved, from.stored, to)
	f.relink(victims)
	return nil
}

// Stat returns a FileInfo for the named file, with its shown name and
// decoded size.
func (f *Fs) Stat(name string) (os.FileInfo, error) { return f.stat(filepath.Clean(name), nil) }

// stat is Stat with existingKnown.
func (f *Fs) stat(name string, known *lookup) (os.FileInfo, error) {
	t, err := f.existingKnown(name, known)
	if err != nil {
		return nil, pathError("stat", name, err)
	}
	if !t.encoded {
		return asShown(t.info, name), nil
	}
	info, err := f.decodedInfo(name, t.stored, t.seen())
	if err != nil {
		return nil, pathError("stat", name, err)
	}
	return info, nil
}

// Chmod changes the mode of the named file. Changes an open file holds
// stay unstored: storing them keeps the stored file's mode.
func (f *Fs) Chmod(name string, mode os.FileMode) error {
	name = filepath.Clean(name)
	return f.onStored("chmod", name, false, func(p string) error { return f.base.Chmod(p, mode) })
}

// Chown changes the owner and group of the named file.
func (f *Fs) Chown(name string, uid, gid int) error {
	name = filepath.Clean(name)
	return f.onStored("chown", name, true, func(p string) error { return f.base.Chown(p, uid, gid) })
}

// Chtimes changes the access and modification times of the named file.
func (f *Fs) Chtimes(name string, atime, mtime time.Time) error {
	name = filepath.Clean(name)
	return f.onStored("chtimes", name, true, func(p string) error { return f.base.Chtimes(p, atime, mtime) })
}

// onStored runs do on the stored file of name. When the file is open and
// store is set, its content is stored first (or storing it later would
// undo what do did: cp -a sets a file's times before it closes it).
func (f *Fs) onStored(op, name string, store bool, do func(stored string) error) error {
	t, err := f.existing(name)
	if err == nil {
		err = f.changeStored(t.stored, store, do)
	}
	if err != nil {
		return pathError(op, name, err)
	}
	return nil
}

func (f *Fs) changeStored(stored string, store bool, do func(stored string) error) error {
	ino := f.openInode(stored)
	if ino == nil {
		return do(stored)
	}
	defer f.releaseInode(ino)
	ino.mu.Lock()
	defer ino.mu.Unlock()
	if store {
		if err := ino.commit(); err != nil {
			return err
		}
	}
	if err := do(stored); err != nil {
		return err
	}
	ino.attrsChanged = true
	return nil
}

// removeStale removes the temporary files that ended processes left in the
// base directory dir, the first time this Fs writes there. A failure leaves
// them for the next Fs to find; it does not stop the write.
func (f *Fs) removeStale(dir string) {
	if _, done := f.swept.LoadOrStore(dir, true); !done {
		atomicfile.RemoveStale(f.base, dir)
	}
}

// OnReplace makes fn be called each time the Fs replaces a stored file by a
// new one (a temporary file it renames over it), with the stored file's
// FileInfo and the new one's: with done false just before the rename, and
// with done true after it (when the rename failed too), so that a caller
// numbering files by their base identity (internal/mount) can go on
// showing one file, found by either identity meanwhile. It replaces the
// function an earlier call gave. fn must not call the Fs.
func (f *Fs) OnReplace(fn func(old, new os.FileInfo, done bool)) { f.onReplace.Store(&fn) }

// replace renames tmp over a stored file, telling the OnReplace function
// before and after, with old and info: the FileInfos of the stored file
// (nil when there is none) and of tmp. The inode stored is locked.
func (f *Fs) replace(tmp *atomicfile.File, old, info os.FileInfo) error {
	fn := f.onReplace.Load()
	if fn == nil || old == nil {
		return tmp.Commit()
	}
	(*fn)(old, info, false)
	defer (*fn)(old, info, true)
	return tmp.Commit()
}

// newName returns the base path that what from is (a file, link or special
// file stored under a mapped name, or anything else stored as it is) is
// stored at under the shown name newname.
func (f *Fs) newName(from target, newname string) (string, error) {
	if _, mapped := f.names.shownName(filepath.Base(from.stored)); mapped && !from.info.IsDir() {
		dir, base := filepath.Split(newname)
		stored, ok := f.names.storedName(base)
		if !ok {
			return "", ErrNotMapped
		}
		return dir + stored, nil
	}
	if !from.info.IsDir() && !f.showsUnmapped(filepath.Base(newname)) {
		return "", ErrNotMapped
	}
	return newname, nil
}
