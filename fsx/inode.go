package fsx

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/afero"
)

// An inode is the state of one stored file, shared by every open of it
// through one Fs, as a kernel's inode and page cache are shared by the
// descriptors of a file: its content as stored (src), and the changes not
// stored yet (edit), which every open reads and writes. Sync or Close of
// any open stores that one state, so no close can bring back content that
// another open, or a writer before it, stored since.
//
// Changes made to the stored file by others than this Fs follow one rule
// (docs/fsx.md): while the inode holds no changes, it moves on to the
// stored file as it is now when an open or a Stat finds it changed, and a
// read that reaches the end looks again at the file it has open (an append
// by another program). While it holds changes, they are this Fs's until
// stored, and storing them replaces what others wrote meanwhile.
type inode struct {
	fsys *Fs
	seq  uint64 // the order inodes were made in, for locking several

	// Guarded by fsys.inodes.mu.
	stored   string              // the base path it is stored through, one of names
	names    map[string]struct{} // the base paths it is open by (several for hard links)
	id       fileID              // the stored file's identity, when the base tells it
	unlinked bool                // no name left: stores nothing any more
	refs     int                 // open files

	mu     sync.RWMutex // guards the fields below; read-locked by reads of src alone
	info   os.FileInfo  // the stored file's, as of the last load
	infoAt uint64       // the Fs's count of infos taken, when info was
	base   afero.File   // the stored file, open for reading
	baseAt *baseReaderAt
	src    *source // the stored content
	edit   edit    // nil while the content is src's
	opens  map[*file]struct{}
	dirty  time.Time // when the first change not yet stored was made
	// attrsChanged is set when this Fs changed the stored file's mode,
	// owner or times since info was taken (see settle).
	attrsChanged bool
}

// An edit is a change to a file's content not yet stored.
type edit interface {
	size() (int64, error)
	// writeAt writes p at off, or returns false when this edit cannot take
	// that write.
	writeAt(p []byte, off int64) (bool, error)
	// commit stores the content, ending the edit.
	commit() error
	// discard drops the edit.
	discard()
}

// inodeTable holds the inodes of an Fs's open files, by stored path and,
// where the base tells it, by the stored file's identity, so that the
// names of one file (hard links) share one inode.
type inodeTable struct {
	mu     sync.Mutex
	byPath map[string]*inode
	byID   map[fileID]*inode
	seq    uint64
}

// forgetName drops the name p of ino. t.mu is held.
func (t *inodeTable) forgetName(ino *inode, p string) {
	delete(ino.names, p)
	if t.byPath[p] == ino {
		delete(t.byPath, p)
	}
}

// addName records p as a name of ino. t.mu is held.
func (t *inodeTable) addName(ino *inode, p string) {
	ino.names[p] = struct{}{}
	t.byPath[p] = ino
}

// bindID makes ino found by the identity id, unless it is removed or
// another inode is found by it. t.mu is held.
func (t *inodeTable) bindID(ino *inode, id fileID) {
	t.forgetID(ino)
	ino.id = id
	if !ino.unlinked && t.byID[id] == nil {
		t.byID[id] = ino
	}
}

// forgetID makes ino no longer found by its identity. t.mu is held.
func (t *inodeTable) forgetID(ino *inode) {
	if t.byID[ino.id] == ino {
		delete(t.byID, ino.id)
	}
}

// acquire returns the inode of the stored file at path, loaded, with one
// more reference, making and loading it if no file of it is open. known is
// the base's Stat of path made just now, if any; created tells that this
// Fs has just created the file, which then has no other name open (no hard
// link) to look for.
func (f *Fs) acquire(path string, known seen, created bool) (*inode, error) {
	if ino, err := f.current(path, known); ino != nil || err != nil {
		return ino, err
	}
	info := known.info
	if !created && info == nil {
		info, _ = f.base.Stat(path)
	}
	var id fileID
	var hasID bool
	if info != nil {
		id, hasID = identity(info)
	}
	t := &f.inodes
	t.mu.Lock()
	if ino := t.byPath[path]; ino != nil {
		// Made meanwhile.
		t.mu.Unlock()
		return f.acquire(path, seen{}, false)
	}
	if t.byPath == nil {
		t.byPath = make(map[string]*inode)
		t.byID = make(map[fileID]*inode)
	}
	if ino := t.byID[id]; hasID && ino != nil && !ino.unlinked {
		// Another name of a file open: a hard link.
		ino.refs++
		t.addName(ino, path)
		t.mu.Unlock()
		return ino, nil
	}
	t.seq++
	ino := &inode{fsys: f, seq: t.seq, stored: path, names: map[string]struct{}{path: {}}, refs: 1, opens: make(map[*file]struct{})}
	ino.mu.Lock()
	t.byPath[path] = ino
	t.mu.Unlock()
	err := ino.load()
	ino.mu.Unlock()
	if err != nil {
		f.releaseInode(ino)
		return nil, err
	}
	return ino, nil
}

// current returns the inode of the files open at path, with one more
// reference, brought up to date with the stored file (see revalidate; known
// is the base's Stat of path made just now, if any), or nil when there is
// none. An inode whose stored file another program
// replaced is left to the files that have it open, which go on reading
// what they opened, as on a local filesystem: current returns nil then.
func (f *Fs) current(path string, known seen) (*inode, error) {
	ino := f.openInode(path)
	if ino == nil {
		return nil, nil
	}
	ino.mu.Lock()
	stale, err := ino.revalidate(known)
	if stale {
		f.unlinkNames([]*inode{ino}, path, true)
	}
	ino.mu.Unlock()
	if stale || err != nil {
		f.releaseInode(ino)
		return nil, err
	}
	return ino, nil
}

// releaseInode drops a reference to ino, and when it was the last, forgets
// ino and releases what it holds, dropping changes it still holds (those
// of a removed file).
func (f *Fs) releaseInode(ino *inode) {
	t := &f.inodes
	t.mu.Lock()
	ino.refs--
	last := ino.refs == 0
	if last {
		for p := range ino.names {
			t.forgetName(ino, p)
		}
		t.forgetID(ino)
	}
	t.mu.Unlock()
	if !last {
		return
	}
	ino.mu.Lock()
	defer ino.mu.Unlock()
	if ino.edit != nil {
		ino.edit.discard()
		ino.edit = nil
	}
	ino.unload()
}

// openInode returns the inode of the stored file at path when a file of it
// is open, with one more reference, or nil.
func (f *Fs) openInode(path string) *inode {
	t := &f.inodes
	t.mu.Lock()
	defer t.mu.Unlock()
	ino := t.byPath[path]
	if ino != nil {
		ino.refs++
	}
	return ino
}

// linkedInode returns the inode of the file info describes, a base file
// with several names (hard links) that is open under another name, with
// one more reference; or nil.
func (f *Fs) linkedInode(info os.FileInfo) *inode {
	id, ok := identity(info)
	if !ok || links(info) < 2 {
		return nil
	}
	t := &f.inodes
	t.mu.Lock()
	defer t.mu.Unlock()
	ino := t.byID[id]
	if ino == nil || ino.unlinked {
		return nil
	}
	ino.refs++
	return ino
}

// storedPath returns where ino is stored, and false once it is removed.
func (ino *inode) storedPath() (string, bool) {
	t := &ino.fsys.inodes
	t.mu.Lock()
	defer t.mu.Unlock()
	return ino.stored, !ino.unlinked
}

// load opens the stored file and reads its layout. ino.mu is held.
func (ino *inode) load() error {
	path, _ := ino.storedPath()
	bf, err := ino.fsys.base.Open(path)
	if err != nil {
		return err
	}
	unlock, _ := lockStored(bf, false) // its ends, as no append is rewriting them
	info, err := bf.Stat()
	switch {
	case err == nil && info.IsDir(): // a directory named like a stored file
		err = errIsDir
	case err == nil:
		at := newBaseReaderAt(bf)
		var src *source
		if src, err = newSource(ino.fsys.decoders, at, info.Size()); err == nil {
			ino.src, ino.baseAt = src, at
		}
	}
	unlock()
	if err != nil {
		bf.Close()
		return err
	}
	ino.base = bf
	ino.setInfo(info)
	if id, ok := identity(info); ok {
		t := &ino.fsys.inodes
		t.mu.Lock()
		t.bindID(ino, id)
		t.mu.Unlock()
	}
	return nil
}

// unload closes what load opened. ino.mu is held.
func (ino *inode) unload() {
	// No longer found by its identity before the file is closed, when the
	// base may give the identity to another file.
	t := &ino.fsys.inodes
	t.mu.Lock()
	t.forgetID(ino)
	t.mu.Unlock()
	if ino.base != nil {
		ino.src.close()
		ino.base.Close()
		ino.base, ino.src = nil, nil
	}
}

// reload loads the stored file again, after a store or a change by
// another program. When that fails, the inode holds nothing loaded, and
// its next use tries again (ensureLoaded). ino.mu is held.
func (ino *inode) reload() error {
	ino.unload()
	return ino.load()
}

// setInfo makes info, the stored file's FileInfo taken just now, the
// inode's. ino.mu is held.
func (ino *inode) setInfo(info os.FileInfo) {
	ino.info = info
	ino.infoAt = ino.fsys.infos.Add(1)
	ino.attrsChanged = false
}

// settle takes the stored file's FileInfo again after this Fs changed its
// mode, owner or times, which leave the content as loaded. It is left for
// the next look at the inode, not made at the change: a lookup of its name
// (revalidate) tells it at no cost, and a mount's Getattr follows each
// change with one; else (the open file's own Stat) it asks the file it has
// open. Where that fails, or shows another size (another program wrote
// it), the inode keeps the FileInfo it has. ino.mu is held.
func (ino *inode) settle() {
	ino.attrsChanged = false
	if ino.base == nil {
		return
	}
	if info, err := ino.base.Stat(); err == nil && sameFile(info, ino.info) && info.Size() == ino.info.Size() {
		ino.setInfo(info)
	}
}

// ensureLoaded loads the stored file if a reload failed. ino.mu is held.
func (ino *inode) ensureLoaded() error {
	if ino.base != nil {
		return nil
	}
	return ino.load()
}

// revalidate brings a clean inode up to date with the stored file at its
// name: it loads the file again when another program changed it in place,
// and reports stale when another file is there now (or, on a base without
// file identities, when the file's size or time changed: a replacement,
// for all it can tell). known is the base's Stat of the stored file made
// just now, if any: it stands for a Stat unless the inode took its info
// after it was made. ino.mu is held.
func (ino *inode) revalidate(known seen) (stale bool, err error) {
	path, linked := ino.storedPath()
	if ino.edit != nil || !linked || ino.base == nil {
		return false, ino.ensureLoaded()
	}
	info := known.info
	if info == nil || ino.infoAt > known.infos {
		info, err = ino.fsys.base.Stat(path)
	}
	if err == nil && ino.attrsChanged && sameFile(info, ino.info) && info.Size() == ino.info.Size() {
		ino.setInfo(info) // with the mode, owner or times this Fs set
		return false, nil
	}
	switch {
	case err != nil || sameVersion(info, ino.info):
		return false, nil // the next operation on the name reports what is wrong
	case hasIdentity(info) && sameID(info, ino.info):
		return false, ino.reload()
	}
	return true, nil
}

// refreshOpen looks again at the file a clean inode has open, after a read
// reached the end of its content or for an open file's Stat, and reports
// whether it changed: another program appended to it or changed it in
// place. Only bases whose files have identities are asked (a local disk);
// over a network each such look would cost a round trip. ino.mu is held.
func (ino *inode) refreshOpen() bool {
	if ino.edit != nil || ino.base == nil {
		return false
	}
	if !hasIdentity(ino.info) {
		return false
	}
	if ino.attrsChanged {
		ino.settle()
	}
	info, err := ino.base.Stat()
	if err != nil || sameVersion(info, ino.info) {
		return false
	}
	src, err := newSource(ino.fsys.decoders, ino.baseAt, info.Size())
	if err != nil {
		return false
	}
	ino.src.close()
	ino.src = src
	ino.setInfo(info)
	return true
}

// sameVersion reports whether a and b describe the same stored file at the
// same size and modification time.
func sameVersion(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && sameFile(a, b)
}

// sameFile reports whether a and b describe one stored file, as far as the
// base tells (bases without file identities: yes).
func sameFile(a, b os.FileInfo) bool {
	return !hasIdentity(a) || sameID(a, b)
}

// size returns the content's decoded size. ino.mu is held.
func (ino *inode) size() (int64, error) {
	if ino.edit != nil {
		return ino.edit.size()
	}
	if err := ino.ensureLoaded(); err != nil {
		return 0, err
	}
	return ino.src.Size()
}

// readAt reads the content at off for the open file f, as io.ReaderAt
// does. Reads of a clean inode run concurrently.
func (ino *inode) readAt(f *file, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errNegativeOffset
	}
	ino.mu.RLock()
	if f.err != nil {
		ino.mu.RUnlock()
		return 0, f.err
	}
	if ino.edit == nil && ino.src != nil {
		n, err := ino.src.ReadAt(p, off)
		ino.mu.RUnlock()
		if n == len(p) || err != io.EOF {
			return n, err
		}
		ino.mu.Lock()
		defer ino.mu.Unlock()
		if !ino.refreshOpen() {
			return n, err
		}
		m, err := ino.readAtLocked(p[n:], off+int64(n))
		return n + m, err
	}
	ino.mu.RUnlock()
	ino.mu.Lock()
	defer ino.mu.Unlock()
	return ino.readAtLocked(p, off)
}

// readAtLocked reads the content at off. ino.mu is held.
func (ino *inode) readAtLocked(p []byte, off int64) (int, error) {
	switch e := ino.edit.(type) {
	case nil:
		if err := ino.ensureLoaded(); err != nil {
			return 0, err
		}
		return ino.src.ReadAt(p, off)
	case *appendEdit:
		return e.readAt(p, off)
	}
	s, err := ino.stage()
	if err != nil {
		return 0, err
	}
	return s.readAt(p, off)
}

// commit stores the changes the inode holds, if any, and loads what it
// stored. A removed file's changes stay held until its last close drops
// them, as a local filesystem drops a removed file's data. A failure drops
// the changes (the stored file is as it was) and is reported by every file
// open now at its next operation. ino.mu is held.
func (ino *inode) commit() error {
	if ino.edit == nil {
		return nil
	}
	if _, linked := ino.storedPath(); !linked {
		return nil
	}
	err := ino.edit.commit()
	ino.edit = nil
	for f := range ino.opens {
		f.changed = false
		if err != nil && f.err == nil {
			f.err = err
		}
	}
	if err != nil {
		if rerr := ino.reload(); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	return ino.reload()
}

// setEdit replaces the inode's changes with e. ino.mu is held.
func (ino *inode) setEdit(e edit) {
	if ino.edit != nil && ino.edit != e {
		ino.edit.discard()
	}
	if ino.edit == nil {
		ino.dirty = time.Now()
	}
	ino.edit = e
}

// shownInfo returns the stored file's FileInfo as the inode shows it: its
// decoded size, and for a file holding changes, the time of the first.
// ino.mu is held.
func (ino *inode) shownInfo(name string) (os.FileInfo, error) {
	if ino.attrsChanged {
		ino.settle()
	}
	size, err := ino.size()
	if err != nil {
		return nil, err
	}
	info := ino.info
	if _, linked := ino.storedPath(); (!linked || hasIdentity(info)) && ino.base != nil {
		// Its owner, mode, link count and change time as they are now
		// (cheap on a local disk, where files have identities).
		if now, err := ino.base.Stat(); err == nil {
			info = now
		}
	}
	fi := &fileInfo{FileInfo: info, name: filepath.Base(name), size: size, state: ino}
	if ino.edit != nil {
		fi.mtime = ino.dirty
	}
	return fi, nil
}

// lockInodes locks the given inodes (nil ones left out) in the order they
// were made, so that two callers locking the same ones cannot deadlock, and
// returns the function that unlocks them.
func lockInodes(inos ...*inode) (unlock func()) {
	inos = slices.DeleteFunc(slices.Clone(inos), func(i *inode) bool { return i == nil })
	slices.SortFunc(inos, func(a, b *inode) int { return int(a.seq - b.seq) })
	inos = slices.Compact(inos)
	for _, ino := range inos {
		ino.mu.Lock()
	}
	return func() {
		for _, ino := range inos {
			ino.mu.Unlock()
		}
	}
}

// openUnder returns the inodes of the files open at path or under it (a
// directory), each with one more reference.
func (f *Fs) openUnder(path string) []*inode {
	t := &f.inodes
	t.mu.Lock()
	defer t.mu.Unlock()
	var inos []*inode
	for p, ino := range t.byPath {
		if under(p, path, false) && !slices.Contains(inos, ino) {
			ino.refs++
			inos = append(inos, ino)
		}
	}
	return inos
}

// releaseAll drops a reference to each of inos.
func (f *Fs) releaseAll(inos []*inode) {
	for _, ino := range inos {
		f.releaseInode(ino)
	}
}

// unlinkNames records that the names of inos at path, or under it unless
// exact, are gone (removed, renamed over, or replaced underneath). An inode
// with no name left stores nothing any more, and a new file at those names
// gets an inode of its own; one with another name left (a hard link) is
// stored through that one.
func (f *Fs) unlinkNames(inos []*inode, path string, exact bool) {
	t := &f.inodes
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ino := range inos {
		for p := range ino.names {
			if under(p, path, exact) {
				t.forgetName(ino, p)
			}
		}
		if _, ok := ino.names[ino.stored]; ok {
			continue
		}
		for p := range ino.names {
			ino.stored = p
			break
		}
		if len(ino.names) == 0 {
			ino.unlinked = true
			t.forgetID(ino)
		}
	}
}

// storeLinked stores the changes of those of inos whose stored file has
// several names (hard links), before some of the names go: the file lives
// on under the others, and the changes would otherwise be stored over the
// name they began under. The inodes are locked.
func storeLinked(inos []*inode) error {
	for _, ino := range inos {
		if ino.edit == nil || ino.base == nil {
			continue
		}
		if info, err := ino.base.Stat(); err != nil || links(info) < 2 {
			continue
		}
		if err := ino.commit(); err != nil {
			return err
		}
	}
	return nil
}

// relink gives each of inos that lost its last known name while its stored
// file has other names (hard links not open through the Fs) one of those,
// found in the directory of the name it lost, else anywhere in the base:
// it goes on storing through that name, so that what its open files write
// is seen under the file's other names, as on a local filesystem. The
// inodes are locked.
func (f *Fs) relink(inos []*inode) {
	for _, ino := range inos {
		old, linked := ino.storedPath()
		if linked || ino.base == nil {
			continue
		}
		info, err := ino.base.Stat()
		if err != nil || links(info) == 0 {
			continue
		}
		id, ok := identity(info)
		if !ok {
			continue
		}
		p, ok := findName(f.base, old, id)
		if !ok {
			continue
		}
		t := &f.inodes
		t.mu.Lock()
		if ino.unlinked && t.byPath[p] == nil {
			ino.unlinked = false
			ino.stored = p
			t.addName(ino, p)
			t.bindID(ino, id)
		}
		t.mu.Unlock()
	}
}

// findName returns a name in base of the file id, looked for in the
// directory of old (a name it had), then in the whole base.
func findName(base afero.Fs, old string, id fileID) (string, bool) {
	is := func(info os.FileInfo) bool {
		got, ok := identity(info)
		return ok && got == id && info.Mode().IsRegular()
	}
	dir := filepath.Dir(old)
	if d, err := base.Open(dir); err == nil {
		infos, _ := d.Readdir(-1)
		d.Close()
		for _, info := range infos {
			if is(info) {
				return filepath.Join(dir, info.Name()), true
			}
		}
	}
	root := "."
	if filepath.IsAbs(old) {
		root = string(filepath.Separator)
	}
	var found string
	stop := errors.New("found")
	afero.Walk(base, root, func(p string, info os.FileInfo, err error) error {
		if err == nil && is(info) {
			found = p
			return stop
		}
		return nil // and past a directory that cannot be read
	})
	return found, found != ""
}

// move records that the names of inos at from or under it are under to
// now.
func (f *Fs) move(inos []*inode, from, to string) {
	t := &f.inodes
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ino := range inos {
		for p := range ino.names {
			if !under(p, from, false) {
				continue
			}
			np := to + strings.TrimPrefix(p, from)
			t.forgetName(ino, p)
			t.addName(ino, np)
			if ino.stored == p {
				ino.stored = np
			}
		}
	}
}

// under reports whether the base path p is path, or, unless exact, in the
// directory path.
func under(p, path string, exact bool) bool {
	if p == path {
		return true
	}
	return !exact && (isRoot(path) || strings.HasPrefix(p, strings.TrimSuffix(path, "/")+"/"))
}
