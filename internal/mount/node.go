package mount

import (
	"cmp"
	"context"
	iofs "io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/spf13/afero"
)

// node is a file, directory or link of the served file system. Its path is
// asked of the inode tree each time, so it stays right across renames.
type node struct {
	fs.Inode
	m   *mnt
	ino uint64 // the inode number shown (st_ino)

	// Guarded by m.ids.mu.
	key    backingKey // the base file shown, when hasKey
	hasKey bool

	// Commits through the mount hold commit, from before the base file is
	// changed until n is bound to the new one, and a lookup of n's name
	// that finds another base file there waits for it, so that it does not
	// take the new base file of a commit for another file (table.child).
	commit sync.RWMutex

	// removed is set when n's name is removed (or renamed over) through
	// the mount: the writes its open handles hold are dropped, not stored,
	// as a local file system drops them with the file.
	removed atomic.Bool

	mu         sync.Mutex
	handles    map[*handle]struct{}
	lastWriter *handle
	gen        uint64 // the count of writes the mount stored into this file
	rewrite    uint64 // gen of the last of them that was not an append
	owner      *[2]uint32
}

var (
	_ fs.NodeLookuper    = (*node)(nil)
	_ fs.NodeReaddirer   = (*node)(nil)
	_ fs.NodeGetattrer   = (*node)(nil)
	_ fs.NodeSetattrer   = (*node)(nil)
	_ fs.NodeOpener      = (*node)(nil)
	_ fs.NodeCreater     = (*node)(nil)
	_ fs.NodeMkdirer     = (*node)(nil)
	_ fs.NodeUnlinker    = (*node)(nil)
	_ fs.NodeRmdirer     = (*node)(nil)
	_ fs.NodeRenamer     = (*node)(nil)
	_ fs.NodeSymlinker   = (*node)(nil)
	_ fs.NodeReadlinker  = (*node)(nil)
	_ fs.NodeLinker      = (*node)(nil)
	_ fs.NodeStatfser    = (*node)(nil)
	_ fs.NodeOnForgetter = (*node)(nil)

	_ fs.NodeGetxattrer    = (*node)(nil)
	_ fs.NodeSetxattrer    = (*node)(nil)
	_ fs.NodeRemovexattrer = (*node)(nil)
	_ fs.NodeListxattrer   = (*node)(nil)
)

// Extended attributes are not stored: a file has none, and setting one is
// not supported, which programs that copy them (cp -a, rsync -X) take as
// such.
func (n *node) Getxattr(ctx context.Context, attr string, dest []byte) (uint32, syscall.Errno) {
	return 0, syscall.ENODATA
}

func (n *node) Setxattr(ctx context.Context, attr string, data []byte, flags uint32) syscall.Errno {
	return syscall.ENOTSUP
}

func (n *node) Removexattr(ctx context.Context, attr string) syscall.Errno { return syscall.ENOTSUP }

func (n *node) Listxattr(ctx context.Context, dest []byte) (uint32, syscall.Errno) { return 0, 0 }

// nodePath returns the path of in from the root, and false when in is no
// longer in the tree (removed, while a program still has it open).
func nodePath(in *fs.Inode) (string, bool) {
	var parts []string
	for !in.IsRoot() {
		name, parent := in.Parent()
		if parent == nil {
			return "", false
		}
		parts = append(parts, name)
		in = parent
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/"), true
}

func joinPath(dir, name string) string { return path.Join(dir, name) }

func (n *node) path() (string, bool) { return nodePath(n.EmbeddedInode()) }

func (n *node) childPath(name string) (string, bool) {
	dir, ok := n.path()
	return joinPath(dir, name), ok
}

// osMode turns the mode bits of a FUSE request into an os.FileMode.
func osMode(mode uint32) os.FileMode {
	m := os.FileMode(mode & 0o777)
	if mode&syscall.S_ISUID != 0 {
		m |= os.ModeSetuid
	}
	if mode&syscall.S_ISGID != 0 {
		m |= os.ModeSetgid
	}
	if mode&syscall.S_ISVTX != 0 {
		m |= os.ModeSticky
	}
	return m
}

// fillAttr fills a with what info says: the file's type and mode bits as
// the base has them, its shown size, and the base file's owner, link count,
// times and disk use.
func fillAttr(a *fuse.Attr, info os.FileInfo) {
	m := info.Mode()
	a.Mode = fileType(m) | uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		a.Mode |= syscall.S_ISUID
	}
	if m&os.ModeSetgid != 0 {
		a.Mode |= syscall.S_ISGID
	}
	if m&os.ModeSticky != 0 {
		a.Mode |= syscall.S_ISVTX
	}
	a.Size = uint64(max(info.Size(), 0))
	t := info.ModTime()
	if !fillSys(a, info) {
		a.Nlink = 1
		a.Blocks = (a.Size + 511) / 512
		a.Uid, a.Gid = uint32(os.Getuid()), uint32(os.Getgid())
		a.SetTimes(&t, &t, &t)
	}
	a.Mtime, a.Mtimensec = uint64(t.Unix()), uint32(t.Nanosecond())
}

// noteOwner remembers the owner of n's base file as last seen.
func (n *node) noteOwner(a *fuse.Attr) {
	n.mu.Lock()
	n.owner = &[2]uint32{a.Uid, a.Gid}
	n.mu.Unlock()
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p, ok := n.childPath(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	info, err := n.m.lstat(p)
	if err != nil {
		return nil, n.m.errno(err)
	}
	fillAttr(&out.Attr, info)
	child := n.m.ids.child(ctx, n, name, info)
	c := child.Operations().(*node)
	c.noteOwner(&out.Attr)
	c.writerSize(&out.Attr)
	return child, 0
}

// Readdir lists the directory, "." and ".." first. It works out no sizes.
func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	p, ok := n.path()
	if !ok {
		return nil, syscall.ENOENT
	}
	f, err := n.m.fsys.Open(p)
	if err != nil {
		return nil, n.m.errno(err)
	}
	defer f.Close()
	parent := n.ino
	if _, p := n.Parent(); p != nil {
		parent = p.StableAttr().Ino
	}
	entries := []fuse.DirEntry{
		{Name: ".", Mode: syscall.S_IFDIR, Ino: n.ino},
		{Name: "..", Mode: syscall.S_IFDIR, Ino: parent},
	}
	if rd, ok := f.(iofs.ReadDirFile); ok {
		des, err := rd.ReadDir(-1)
		if err != nil {
			return nil, n.m.errno(err)
		}
		for _, de := range des {
			entries = append(entries, fuse.DirEntry{Name: de.Name(), Mode: fileType(de.Type())})
		}
	} else {
		infos, err := f.Readdir(-1)
		if err != nil {
			return nil, n.m.errno(err)
		}
		slices.SortFunc(infos, func(a, b os.FileInfo) int { return strings.Compare(a.Name(), b.Name()) })
		for _, fi := range infos {
			entries = append(entries, fuse.DirEntry{Name: fi.Name(), Mode: fileType(fi.Mode())})
		}
	}
	return fs.NewListDirStream(entries), 0
}

// Getattr reports the file as a handle holding writes not yet stored sees
// it (its size), as the base has it otherwise, or, for a file removed while
// open, as an open handle has it.
func (n *node) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h := n.pendingWriter(); h != nil {
		if info, ok := h.stat(); ok {
			fillAttr(&out.Attr, info)
			return 0
		}
	}
	p, ok := n.path()
	var err error = iofs.ErrNotExist
	if ok {
		var info os.FileInfo
		if info, err = n.m.lstat(p); err == nil {
			if n.replaced(info) {
				// Another file is at n's name now (replaced underneath;
				// the kernel looks the name up again soon): n is what
				// its open handles have.
				if h := n.anyHandle(); h != nil {
					if hinfo, ok := h.stat(); ok {
						fillAttr(&out.Attr, hinfo)
						return 0
					}
				}
			}
			fillAttr(&out.Attr, info)
			n.noteOwner(&out.Attr)
			return 0
		}
	}
	if h := n.anyHandle(); h != nil {
		if info, ok := h.stat(); ok {
			fillAttr(&out.Attr, info)
			return 0
		}
	}
	return n.m.errno(err)
}

// replaced reports whether info, of the base file at n's name, describes
// another file than the one n shows.
func (n *node) replaced(info os.FileInfo) bool {
	key, ok := keyOf(info)
	if !ok {
		return false
	}
	nkey, nok := n.currentKey()
	return nok && key != nkey
}

// writerSize sets a's size to what a handle holding writes not yet stored
// sees, if there is one.
func (n *node) writerSize(a *fuse.Attr) {
	if h := n.pendingWriter(); h != nil {
		if info, ok := h.stat(); ok {
			a.Size = uint64(max(info.Size(), 0))
		}
	}
}

func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if !n.m.opts.Writable {
		return syscall.EROFS
	}
	p, ok := n.path()
	if size, set := in.GetSize(); set {
		if h, isHandle := fh.(*handle); isHandle && h.writable {
			if e := h.truncate(int64(size)); e != 0 {
				return e
			}
		} else if !ok {
			return syscall.ENOENT
		} else if e := n.truncatePath(p, int64(size)); e != 0 {
			return e
		}
	}
	mode, setMode := in.GetMode()
	uid, setUID := in.GetUID()
	gid, setGID := in.GetGID()
	mtime, setM := in.GetMTime()
	atime, setA := in.GetATime()
	if setMode || setUID || setGID || setM || setA {
		if !ok {
			return syscall.ENOENT
		}
		// Store pending writes first, or storing them later would undo
		// this (a new mode kept, but a new time lost): cp -a sets both
		// before it closes.
		if e := n.syncWriters(); e != 0 {
			return e
		}
		if setMode {
			if err := n.m.fsys.Chmod(p, osMode(mode)); err != nil {
				return n.m.errno(err)
			}
		}
		if setUID || setGID {
			u, g := -1, -1
			if setUID {
				u = int(uid)
			}
			if setGID {
				g = int(gid)
			}
			if err := n.m.fsys.Chown(p, u, g); err != nil {
				return n.m.errno(err)
			}
		}
		if setM || setA {
			if !setM || !setA {
				info, err := n.m.lstat(p)
				if err != nil {
					return n.m.errno(err)
				}
				var a fuse.Attr
				fillAttr(&a, info)
				if !setM {
					mtime = info.ModTime()
				}
				if !setA {
					atime = time.Unix(int64(a.Atime), int64(a.Atimensec))
				}
			}
			if err := n.m.fsys.Chtimes(p, atime, mtime); err != nil {
				return n.m.errno(err)
			}
		}
	}
	return n.Getattr(ctx, fh, out)
}

// truncatePath sets the size of the file at p, for truncate(2) of a name
// or ftruncate of a file opened read-only: through a file of its own,
// stored at once. A handle holding writes stores them when it closes, over
// this (the last close wins).
func (n *node) truncatePath(p string, size int64) syscall.Errno {
	f, err := n.m.open(p, os.O_RDWR, 0)
	if err != nil {
		return n.m.errno(err)
	}
	cur, err := f.Stat()
	if err != nil || cur.Size() == size {
		f.Close()
		return n.m.errno(err)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return n.m.errno(err)
	}
	return n.m.errno(n.store(f.Close, size >= cur.Size()))
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	acc := int(flags) & syscall.O_ACCMODE
	trunc := flags&syscall.O_TRUNC != 0
	write := acc != syscall.O_RDONLY || trunc
	if write && !n.m.opts.Writable {
		return nil, 0, syscall.EROFS
	}
	p, ok := n.path()
	if !ok {
		return nil, 0, syscall.ENOENT
	}
	fl := int(flags) & (syscall.O_ACCMODE | syscall.O_TRUNC | syscall.O_APPEND)
	if trunc && acc == syscall.O_RDONLY {
		fl = fl&^syscall.O_ACCMODE | syscall.O_RDWR
	}
	// The store count goes with the file opened: a store that ends before
	// the handle counts it must not pass for one the handle has seen,
	// which would let it read on into another version (see
	// handle.refresh).
	n.commit.RLock()
	f, err := n.m.open(p, fl, 0)
	gen := n.storeCount()
	n.commit.RUnlock()
	if err != nil {
		return nil, 0, n.m.errno(err)
	}
	if hook := testHookOpened.Load(); hook != nil {
		(*hook)()
	}
	h := n.newHandle(f, fl, write, gen)
	if trunc {
		h.dirty.Store(true)
		h.appendOnly = false
	}
	return h, n.m.openFlags(), 0
}

// openFlags returns the FOPEN flags of every open: direct I/O, so that
// each read asks the mount, which answers from the file as the handle sees
// it (see docs/mount.md); with Options.Cache, the kernel's page cache.
func (m *mnt) openFlags() uint32 {
	if m.opts.Cache {
		return fuse.FOPEN_KEEP_CACHE
	}
	return fuse.FOPEN_DIRECT_IO
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if !n.m.opts.Writable {
		return nil, nil, 0, syscall.EROFS
	}
	p, ok := n.childPath(name)
	if !ok {
		return nil, nil, 0, syscall.ENOENT
	}
	fl := int(flags)&(syscall.O_ACCMODE|syscall.O_TRUNC|syscall.O_APPEND|syscall.O_EXCL) | os.O_CREATE
	f, err := n.m.open(p, fl, osMode(mode))
	if err != nil {
		return nil, nil, 0, n.createErrno(err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, 0, n.m.errno(err)
	}
	fillAttr(&out.Attr, info)
	child := n.m.ids.child(ctx, n, name, info)
	c := child.Operations().(*node)
	c.noteOwner(&out.Attr)
	h := c.newHandle(f, fl, true, c.storeCount())
	h.dirty.Store(true) // so that close stores the codec's encoding of no data
	h.appendOnly = false
	return child, h, n.m.openFlags(), 0
}

// createErrno maps an error of making a file: a name that cannot be stored
// (no stored form under the mapping) is EINVAL, not "no such file".
func (n *node) createErrno(err error) syscall.Errno {
	if e := n.m.errno(err); e != syscall.ENOENT || !isNotMapped(err) {
		return e
	}
	return syscall.EINVAL
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if !n.m.opts.Writable {
		return nil, syscall.EROFS
	}
	p, ok := n.childPath(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	if err := n.m.fsys.Mkdir(p, osMode(mode)); err != nil {
		return nil, n.m.errno(err)
	}
	return n.newEntry(ctx, name, p, out)
}

// newEntry returns the inode of the entry the mount just made at p.
func (n *node) newEntry(ctx context.Context, name, p string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	info, err := n.m.lstat(p)
	if err != nil {
		return nil, n.m.errno(err)
	}
	fillAttr(&out.Attr, info)
	child := n.m.ids.child(ctx, n, name, info)
	child.Operations().(*node).noteOwner(&out.Attr)
	return child, 0
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if !n.m.opts.Writable {
		return nil, syscall.EROFS
	}
	ln, ok := n.m.fsys.(afero.Linker)
	if !ok {
		return nil, syscall.ENOTSUP
	}
	p, ok := n.childPath(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	if err := ln.SymlinkIfPossible(target, p); err != nil {
		return nil, n.createErrno(err)
	}
	return n.newEntry(ctx, name, p, out)
}

func (n *node) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	lr, ok := n.m.fsys.(afero.LinkReader)
	if !ok {
		return nil, syscall.EINVAL
	}
	p, ok := n.path()
	if !ok {
		return nil, syscall.ENOENT
	}
	target, err := lr.ReadlinkIfPossible(p)
	if err != nil {
		return nil, n.m.errno(err)
	}
	return []byte(target), 0
}

// Link refuses hard links: the first write through either name would
// store a new file under that name only (writes are stored by replacing the
// stored file), silently splitting them.
func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if !n.m.opts.Writable {
		return nil, syscall.EROFS
	}
	return nil, syscall.EPERM
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno { return n.remove(name) }
func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno  { return n.remove(name) }

func (n *node) remove(name string) syscall.Errno {
	if !n.m.opts.Writable {
		return syscall.EROFS
	}
	p, ok := n.childPath(name)
	if !ok {
		return syscall.ENOENT
	}
	victim := n.GetChild(name)
	if err := n.m.fsys.Remove(p); err != nil {
		return n.m.errno(err)
	}
	if victim != nil {
		victim.Operations().(*node).gone()
	}
	return 0
}

// gone records that n's name was removed through the mount.
func (n *node) gone() {
	n.removed.Store(true)
	n.unbind()
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if !n.m.opts.Writable {
		return syscall.EROFS
	}
	const noReplace, exchange = 1, 2 // RENAME_NOREPLACE, RENAME_EXCHANGE
	if flags&^noReplace != 0 {
		return syscall.EINVAL
	}
	from, ok := n.childPath(name)
	np, ok2 := nodePath(newParent.EmbeddedInode())
	if !ok || !ok2 {
		return syscall.ENOENT
	}
	to := joinPath(np, newName)
	if flags&noReplace != 0 {
		if _, err := n.m.lstat(to); err == nil {
			return syscall.EEXIST
		}
	}
	victim := newParent.EmbeddedInode().GetChild(newName)
	var writers []*handle
	if moved := n.GetChild(name); moved != nil && moved.Mode() == syscall.S_IFREG {
		// Its open files store their writes under the old name: store
		// what they hold now, and reopen them under the new one after.
		writers = moved.Operations().(*node).lockWriters()
		defer unlockAll(writers)
		for _, h := range writers {
			if e := h.syncLocked(); e != 0 {
				return e
			}
		}
	}
	if err := n.m.fsys.Rename(from, to); err != nil {
		return n.createErrno(err)
	}
	for _, h := range writers {
		h.reopenLocked(to)
	}
	if victim != nil && victim != n.GetChild(name) {
		victim.Operations().(*node).gone()
	}
	return 0
}

// lockWriters locks n's open handles that write and returns them.
func (n *node) lockWriters() []*handle {
	n.mu.Lock()
	var hs []*handle
	for h := range n.handles {
		if h.writable {
			hs = append(hs, h)
		}
	}
	n.mu.Unlock()
	slices.SortFunc(hs, func(a, b *handle) int { return cmp.Compare(a.seq, b.seq) })
	for _, h := range hs {
		h.mu.Lock()
	}
	return hs
}

func unlockAll(hs []*handle) {
	for _, h := range hs {
		h.mu.Unlock()
	}
}

func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	if n.m.opts.Dir == "" {
		return 0
	}
	return n.m.errno(statfs(n.m.opts.Dir, out))
}

// testHookOpened, when set, runs in Open between opening a file and
// making its handle.
var testHookOpened atomic.Pointer[func()]

// storeCount returns how many writes the mount stored into n.
func (n *node) storeCount() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.gen
}

// newHandle opens a handle on n for the file f, opened with flags when n
// had seen gen stores.
func (n *node) newHandle(f afero.File, flags int, write bool, gen uint64) *handle {
	h := &handle{n: n, f: f, writable: write, append: flags&syscall.O_APPEND != 0, appendOnly: true,
		seq: handleSeq.Add(1), reopen: flags &^ (syscall.O_TRUNC | syscall.O_CREAT | syscall.O_EXCL)}
	if info, err := f.Stat(); err == nil {
		h.noteLoaded(info)
	}
	n.m.openMu.Lock()
	n.m.handles[h] = struct{}{}
	n.m.openMu.Unlock()
	n.mu.Lock()
	if n.handles == nil {
		n.handles = make(map[*handle]struct{})
	}
	n.handles[h] = struct{}{}
	h.gen, h.seen = gen, gen
	n.mu.Unlock()
	return h
}

// dropHandle forgets the released handle h.
func (n *node) dropHandle(h *handle) {
	n.m.openMu.Lock()
	delete(n.m.handles, h)
	n.m.openMu.Unlock()
	n.mu.Lock()
	delete(n.handles, h)
	if n.lastWriter == h {
		n.lastWriter = nil
	}
	n.mu.Unlock()
}

// noteWriter records that h wrote last.
func (n *node) noteWriter(h *handle) {
	n.mu.Lock()
	n.lastWriter = h
	n.mu.Unlock()
}

// pendingWriter returns a handle holding writes not yet stored, the one
// that wrote last if it is one, or nil.
func (n *node) pendingWriter() *handle {
	n.mu.Lock()
	defer n.mu.Unlock()
	if h := n.lastWriter; h != nil && h.dirty.Load() {
		return h
	}
	for h := range n.handles {
		if h.dirty.Load() {
			return h
		}
	}
	return nil
}

// anyHandle returns an open handle of n, or nil.
func (n *node) anyHandle() *handle {
	n.mu.Lock()
	defer n.mu.Unlock()
	for h := range n.handles {
		return h
	}
	return nil
}

// syncWriters stores the pending writes of n's handles.
func (n *node) syncWriters() syscall.Errno {
	n.mu.Lock()
	var hs []*handle
	for h := range n.handles {
		if h.dirty.Load() {
			hs = append(hs, h)
		}
	}
	n.mu.Unlock()
	for _, h := range hs {
		if e := h.sync(); e != 0 {
			return e
		}
	}
	return 0
}

// store runs commit, which stores writes through the mount (a Sync or
// Close of an fsx file), and then committed if it stored something.
func (n *node) store(commit func() error, appendOnly bool) error {
	n.commit.Lock()
	defer n.commit.Unlock()
	if err := commit(); err != nil {
		return err
	}
	n.committed(appendOnly)
	return nil
}

// waitStores waits for the commits running on n to finish.
func (n *node) waitStores() {
	n.commit.RLock()
	//lint:ignore SA2001 a barrier: it waits for the commit running
	n.commit.RUnlock()
}

// committed records that a write through the mount was stored: the base
// file may be a new one (a write stored through a temporary file), which n
// goes on showing under its inode number, with its owner kept; open readers
// may move on to it (see handle.refresh); and the kernel drops what it
// cached of the file.
func (n *node) committed(appendOnly bool) {
	if p, ok := n.path(); ok {
		if info, err := n.m.lstat(p); err == nil && info.Mode().IsRegular() {
			n.keepOwner(p, info)
			n.rebind(info)
		}
	}
	n.mu.Lock()
	n.gen++
	if !appendOnly {
		n.rewrite = n.gen
	}
	n.mu.Unlock()
	if n.m.opts.Cache {
		// Before close returns: the kernel's page cache must not serve
		// the old data to the next open.
		n.NotifyContent(0, 0)
	} else {
		go n.NotifyContent(0, 0) // attributes only: no page cache
	}
}

// keepOwner gives the base file at p the owner n's file had before a write
// replaced it, which running as root would otherwise make root's.
func (n *node) keepOwner(p string, info os.FileInfo) {
	n.mu.Lock()
	owner := n.owner
	n.mu.Unlock()
	if owner == nil || os.Geteuid() != 0 {
		return
	}
	var a fuse.Attr
	if !fillSys(&a, info) || (a.Uid == owner[0] && a.Gid == owner[1]) {
		return
	}
	n.m.log(n.m.fsys.Chown(p, int(owner[0]), int(owner[1])))
}
