//go:build linux

package mount

import (
	"context"
	"errors"
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

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/unixmode"
)

// node is a file, directory or link of the served file system. Its path is
// asked of the inode tree each time, so it stays right across renames. Its
// content, when it is a file, is the file system's: the node keeps only
// its identity (the inode number shown) and its open handles.
type node struct {
	fs.Inode
	m   *mnt
	ino uint64 // the inode number shown (st_ino)

	// Guarded by m.ids.mu.
	key    backingKey // the base file shown, when hasKey
	hasKey bool

	changes atomic.Uint64           // changes to the file's content through the mount
	cut     atomic.Pointer[cutTail] // what a truncation running now cut off (cut.go)

	mu      sync.Mutex
	ahead   *lookahead // of a directory's entries, by its last Readdir
	handles map[*handle]struct{}
	stamp   stamp // what the last first open through the page cache saw, when stamped
	stamped bool
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
	_ fs.NodeMknoder     = (*node)(nil)
	_ fs.NodeStatfser    = (*node)(nil)
	_ fs.NodeFsyncer     = (*node)(nil)
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

// osMode turns the permission and special bits of a FUSE request's mode
// into an os.FileMode, leaving its type out.
func osMode(mode uint32) os.FileMode { return unixmode.FileMode(mode &^ syscall.S_IFMT) }

// fillAttr fills a with what info says: the file's type and mode bits as
// the base has them, its shown size, and the base file's owner, link count,
// times and disk use.
func fillAttr(a *fuse.Attr, info os.FileInfo) {
	m := info.Mode()
	a.Mode = unixmode.Type(m) | uint32(m.Perm())
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

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p, ok := n.childPath(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	info, err, ahead := n.lookedAhead(name)
	if !ahead {
		info, err = n.m.lstat(p)
	}
	if err != nil {
		return nil, n.m.errno(err)
	}
	fillAttr(&out.Attr, info)
	return n.m.ids.child(ctx, n, name, info), 0
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
	var names []string
	if rd, ok := f.(iofs.ReadDirFile); ok {
		des, err := rd.ReadDir(-1)
		if err != nil {
			return nil, n.m.errno(err)
		}
		for _, de := range des {
			entries = append(entries, fuse.DirEntry{Name: de.Name(), Mode: unixmode.Type(de.Type())})
			names = append(names, de.Name())
		}
	} else {
		infos, err := f.Readdir(-1)
		if err != nil {
			return nil, n.m.errno(err)
		}
		slices.SortFunc(infos, func(a, b os.FileInfo) int { return strings.Compare(a.Name(), b.Name()) })
		for _, fi := range infos {
			entries = append(entries, fuse.DirEntry{Name: fi.Name(), Mode: unixmode.Type(fi.Mode())})
			names = append(names, fi.Name())
		}
	}
	if n.m.lookups > 1 {
		n.lookAhead(p, names)
	}
	return fs.NewListDirStream(entries), 0
}

// Getattr describes the file at n's name (fsx shows the changes open files
// hold, not stored yet), or, for a file removed while open, as an open
// handle has it. A request that names a handle goes to the handle.
func (n *node) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := fh.(*handle); ok {
		return h.Getattr(ctx, out)
	}
	var err error = iofs.ErrNotExist
	if p, ok := n.path(); ok {
		var info os.FileInfo
		if info, err = n.m.lstat(p); err == nil && !n.replaced(info) {
			fillAttr(&out.Attr, info)
			return 0
		}
	}
	if h := n.anyHandle(); h != nil {
		return h.Getattr(ctx, out)
	}
	if err == nil {
		return syscall.ENOENT // another file at the name: n is gone
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

func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if !n.m.opts.Writable {
		return syscall.EROFS
	}
	defer n.m.changing()()
	p, ok := n.path()
	if size, set := in.GetSize(); set {
		e := n.shrink(int64(size), func() syscall.Errno {
			if h, isHandle := fh.(*handle); isHandle && h.writable {
				return h.truncate(int64(size))
			}
			if !ok {
				return syscall.ENOENT
			}
			return n.truncatePath(p, int64(size))
		})
		if e != 0 {
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
			if err := n.chown(p, u, g); err != nil {
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
			if err := n.chtimes(p, atime, mtime); err != nil {
				return n.m.errno(err)
			}
		}
	}
	return n.Getattr(ctx, fh, out)
}

// chown changes the owner and group of the file at p (-1: unchanged), of a
// link itself. Where the base cannot change a link's (SFTP), it succeeds
// still when the link shows them already: cp -a as root asks that of
// every link it copies.
func (n *node) chown(p string, uid, gid int) error {
	err := n.m.fsys.Chown(p, uid, gid)
	if err == nil || n.Mode() != syscall.S_IFLNK || !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	info, lerr := n.m.lstat(p)
	if lerr != nil {
		return err
	}
	var a fuse.Attr
	fillAttr(&a, info)
	if (uid < 0 || uint32(uid) == a.Uid) && (gid < 0 || uint32(gid) == a.Gid) {
		return nil
	}
	return err
}

// chtimes sets the times of the file at p, of a link itself. Where the
// base cannot set a link's (SFTP), it fails with ENOSYS, as lutimes does
// where the system cannot, which cp -a and rsync -a take for "keep no
// link times", not for a failure.
func (n *node) chtimes(p string, atime, mtime time.Time) error {
	link := n.Mode() == syscall.S_IFLNK
	var err error
	if lc, ok := n.m.fsys.(fsx.Lchtimeser); ok && link {
		err = lc.Lchtimes(p, atime, mtime)
	} else {
		err = n.m.fsys.Chtimes(p, atime, mtime)
	}
	if link && errors.Is(err, errors.ErrUnsupported) {
		return syscall.ENOSYS
	}
	return err
}

// Mknod makes a FIFO, a socket (a program binding a Unix socket makes
// one) or, as root, a device.
func (n *node) Mknod(ctx context.Context, name string, mode, dev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if !n.m.opts.Writable {
		return nil, syscall.EROFS
	}
	defer n.m.changing()()
	mk, ok := n.m.fsys.(fsx.Mknoder)
	if !ok {
		return nil, syscall.ENOTSUP
	}
	p, ok := n.childPath(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	perm := unixmode.FileMode(mode)
	if perm&(os.ModeNamedPipe|os.ModeSocket|os.ModeDevice) == 0 {
		return nil, syscall.EINVAL
	}
	if err := mk.Mknod(p, perm, uint64(dev)); err != nil {
		return nil, n.createErrno(err)
	}
	if e := n.m.own(ctx, p, perm&(os.ModePerm|os.ModeSetuid|os.ModeSetgid|os.ModeSticky), false); e != 0 {
		n.m.fsys.Remove(p)
		return nil, e
	}
	return n.newEntry(ctx, name, p, out)
}

// truncatePath sets the size of the file at p, for truncate(2) of a name
// or ftruncate of a file opened read-only: through a file of its own,
// closed at once, which stores the file's content.
func (n *node) truncatePath(p string, size int64) syscall.Errno {
	n.changed()
	f, err := n.m.fsys.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return n.m.errno(err)
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n.m.errno(err)
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	acc := int(flags) & syscall.O_ACCMODE
	trunc := flags&syscall.O_TRUNC != 0
	write := acc != syscall.O_RDONLY || trunc
	if write {
		defer n.m.changing()()
	}
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
	if hook := testHookOpening.Load(); hook != nil {
		(*hook)()
	}
	f, err := n.m.fsys.OpenFile(p, fl, 0)
	if err != nil {
		return nil, 0, n.m.errno(err)
	}
	if hook := testHookOpened.Load(); hook != nil {
		(*hook)()
	}
	if trunc {
		n.changed()
	}
	h, open, e := n.newHandle(f, fl, write)
	if e != 0 {
		return nil, 0, e
	}
	if hook := testHookAnswering.Load(); hook != nil {
		(*hook)()
	}
	return h, open, 0
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if !n.m.opts.Writable {
		return nil, nil, 0, syscall.EROFS
	}
	defer n.m.changing()()
	p, ok := n.childPath(name)
	if !ok {
		return nil, nil, 0, syscall.ENOENT
	}
	fl := int(flags)&(syscall.O_ACCMODE|syscall.O_TRUNC|syscall.O_APPEND|syscall.O_EXCL) | os.O_CREATE
	perm := osMode(mode)
	// The kernel asks to create names it has not looked up, which may
	// exist: only a file made now is the caller's.
	f, err := n.m.fsys.OpenFile(p, fl|os.O_EXCL, perm.Perm())
	created := err == nil
	if errors.Is(err, iofs.ErrExist) && fl&os.O_EXCL == 0 {
		f, err = n.m.fsys.OpenFile(p, fl&^os.O_CREATE, 0)
	}
	if err != nil {
		return nil, nil, 0, n.createErrno(err)
	}
	if created {
		if e := n.m.own(ctx, p, perm, false); e != 0 {
			f.Close()
			return nil, nil, 0, e
		}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, 0, n.m.errno(err)
	}
	fillAttr(&out.Attr, info)
	child := n.m.ids.child(ctx, n, name, info)
	cn := child.Operations().(*node)
	if !created && fl&os.O_TRUNC != 0 {
		cn.changed()
	}
	h, open, e := cn.newHandle(f, fl, true)
	if e != 0 {
		return nil, nil, 0, e
	}
	return child, h, open, 0
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
	defer n.m.changing()()
	p, ok := n.childPath(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	perm := osMode(mode)
	if err := n.m.fsys.Mkdir(p, perm.Perm()); err != nil {
		return nil, n.m.errno(err)
	}
	if e := n.m.own(ctx, p, perm, false); e != 0 {
		n.m.fsys.Remove(p)
		return nil, e
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
	return n.m.ids.child(ctx, n, name, info), 0
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if !n.m.opts.Writable {
		return nil, syscall.EROFS
	}
	defer n.m.changing()()
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
	if e := n.m.own(ctx, p, 0, true); e != 0 {
		n.m.fsys.Remove(p)
		return nil, e
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

// Link makes another name of a file (fsx keeps one state for both names,
// and stores a file with several names in place).
func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if !n.m.opts.Writable {
		return nil, syscall.EROFS
	}
	defer n.m.changing()()
	ln, ok := n.m.fsys.(fsx.HardLinker)
	if !ok {
		return nil, syscall.EPERM
	}
	from, ok := nodePath(target.EmbeddedInode())
	p, ok2 := n.childPath(name)
	if !ok || !ok2 {
		return nil, syscall.ENOENT
	}
	if err := ln.Link(from, p); err != nil {
		return nil, n.createErrno(err)
	}
	return n.newEntry(ctx, name, p, out)
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno { return n.remove(name) }
func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno  { return n.remove(name) }

func (n *node) remove(name string) syscall.Errno {
	if !n.m.opts.Writable {
		return syscall.EROFS
	}
	defer n.m.changing()()
	p, ok := n.childPath(name)
	if !ok {
		return syscall.ENOENT
	}
	victim := n.GetChild(name)
	if err := n.m.fsys.Remove(p); err != nil {
		return n.m.errno(err)
	}
	if victim != nil {
		victim.Operations().(*node).gone(n.EmbeddedInode(), name)
	}
	return 0
}

// gone records that n's name in dir was removed through the mount (or
// renamed over), and takes it out of the tree: unless n has another name
// still (a hard link, which keeps the file and its number), a file the base
// makes later with n's identity is another one.
func (n *node) gone(dir *fs.Inode, name string) {
	dir.RmChild(name)
	if _, parent := n.Parent(); parent == nil {
		n.unbind()
	}
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if !n.m.opts.Writable {
		return syscall.EROFS
	}
	defer n.m.changing()()
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
	if err := n.m.fsys.Rename(from, to); err != nil {
		return n.createErrno(err)
	}
	if victim != nil && victim != n.GetChild(name) {
		victim.Operations().(*node).gone(newParent.EmbeddedInode(), newName)
	}
	return 0
}

// Fsync syncs an open file through its handle, and a directory by syncing
// the stored directory (fsync(2) of a directory's descriptor: what
// programs do after a rename or a create, so that the entry is on disk).
func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if h, ok := f.(fs.FileFsyncer); ok {
		return h.Fsync(ctx, flags)
	}
	p, ok := n.path()
	if !ok {
		return syscall.ENOENT
	}
	d, err := n.m.fsys.Open(p)
	if err != nil {
		return n.m.errno(err)
	}
	defer d.Close()
	return n.m.errno(d.Sync())
}

// Statfs reports DIR's file system, with the longest name a file can have
// once the mapping adds its suffix.
func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	switch {
	case n.m.opts.Dir != "":
		if err := statfs(n.m.opts.Dir, out); err != nil {
			return n.m.errno(err)
		}
	case n.m.opts.Usage != nil:
		u, err := n.m.opts.Usage()
		if err != nil {
			return n.m.errno(err)
		}
		*out = fuse.StatfsOut{Blocks: u.Blocks, Bfree: u.Bfree, Bavail: u.Bavail, Files: u.Files, Ffree: u.Ffree,
			Bsize: u.Bsize, Frsize: u.Frsize, NameLen: u.NameLen}
	default:
		return 0
	}
	if fx, ok := n.m.fsys.(*fsx.Fs); ok {
		out.NameLen -= uint32(min(fx.NameOverhead(), int(out.NameLen)))
	}
	return 0
}

// Test hooks, run when set: testHookOpening in Open before opening the
// file at the node's name, testHookOpened between opening it and making
// its handle, testHookAnswering between making the handle and answering
// the kernel; testHookRead at each read the kernel asks of a handle, and
// testHookReleased when a handle is released, with the name of the
// handle's file.
var (
	testHookOpening, testHookOpened, testHookAnswering atomic.Pointer[func()]
	testHookRead, testHookReleased                     atomic.Pointer[func(name string)]
)

// newHandle opens a handle on n for the file f, opened with flags, and
// returns it with the FOPEN flags that say how the kernel serves it (see
// pagecache.go); or closes f and returns ESTALE, for a file that n does
// not show.
func (n *node) newHandle(f afero.File, flags int, write bool) (*handle, uint32, syscall.Errno) {
	h := &handle{n: n, f: f, writable: write, append: flags&syscall.O_APPEND != 0}
	if c, ok := f.(fsx.ConcurrentReaderAt); !ok || !c.ConcurrentReadAt() {
		h.readMu = new(sync.Mutex)
	}
	n.mu.Lock()
	open, e := n.cacheLocked(h, f)
	if e != 0 {
		n.mu.Unlock()
		f.Close()
		return nil, 0, e
	}
	if n.handles == nil {
		n.handles = make(map[*handle]struct{})
	}
	n.handles[h] = struct{}{}
	n.mu.Unlock()
	n.m.openMu.Lock()
	n.m.handles[h] = struct{}{}
	n.m.openMu.Unlock()
	return h, open, 0
}

// dropHandle forgets the released handle h.
func (n *node) dropHandle(h *handle) {
	n.m.openMu.Lock()
	delete(n.m.handles, h)
	n.m.openMu.Unlock()
	n.mu.Lock()
	delete(n.handles, h)
	n.mu.Unlock()
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
