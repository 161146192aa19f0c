// Package mount serves an afero.Fs through FUSE: b14fs mounts an fsx file
// system with it so that every program sees a directory's encoded files
// decoded, and, when mounted writable, stores what they write encoded.
package mount

import (
	"context"
	"errors"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/spf13/afero"
)

// cacheTimeout is how long the kernel may cache names and attributes. The
// view of a directory that others may change should stay fresh.
const cacheTimeout = time.Second

// Options configure a mount.
type Options struct {
	// Name is shown as the file system's source, in /proc/mounts.
	Name string
	// Writable lets programs create, write, rename and remove files and
	// directories. Without it the mount is read-only.
	Writable bool
	// Log, if set, is told of each error that reaches programs only as EIO,
	// such as bad data in a file, so that its cause can be shown.
	Log func(error)
}

// Mount serves fsys at mountpoint and returns the running server; call its
// Unmount to stop it, and Wait to wait for that.
func Mount(fsys afero.Fs, mountpoint string, opts Options) (*fuse.Server, error) {
	timeout := cacheTimeout
	mo := fuse.MountOptions{FsName: opts.Name, Name: "b14fs"}
	if !opts.Writable {
		mo.Options = []string{"ro"}
	}
	return fs.Mount(mountpoint, &node{fsys: fsys, opts: &opts}, &fs.Options{
		EntryTimeout: &timeout,
		AttrTimeout:  &timeout,
		MountOptions: mo,
	})
}

// node is a file or directory of the served file system. Its path is asked
// of the inode tree each time, so it stays right across renames.
type node struct {
	fs.Inode
	fsys afero.Fs
	opts *Options

	mu      sync.Mutex
	writers map[*handle]bool // handles open for writing: they know the size
}

var (
	_ fs.NodeLookuper  = (*node)(nil)
	_ fs.NodeReaddirer = (*node)(nil)
	_ fs.NodeGetattrer = (*node)(nil)
	_ fs.NodeSetattrer = (*node)(nil)
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeCreater   = (*node)(nil)
	_ fs.NodeMkdirer   = (*node)(nil)
	_ fs.NodeUnlinker  = (*node)(nil)
	_ fs.NodeRmdirer   = (*node)(nil)
	_ fs.NodeRenamer   = (*node)(nil)
)

func (n *node) path() string { return "/" + n.Path(nil) }

func (n *node) child(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p := path.Join(n.path(), name)
	fi, err := n.fsys.Stat(p)
	if err != nil {
		return nil, n.errno(err)
	}
	fillAttr(&out.Attr, fi, n.opts.Writable)
	c := &node{fsys: n.fsys, opts: n.opts}
	return n.NewInode(ctx, c, fs.StableAttr{Mode: out.Attr.Mode & syscall.S_IFMT}), 0
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return n.child(ctx, name, out)
}

func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	f, err := n.fsys.Open(n.path())
	if err != nil {
		return nil, n.errno(err)
	}
	defer f.Close()
	var entries []fuse.DirEntry
	if rd, ok := f.(iofs.ReadDirFile); ok {
		// Names and types only: no entry's size is worked out.
		des, err := rd.ReadDir(-1)
		if err != nil {
			return nil, n.errno(err)
		}
		for _, de := range des {
			entries = append(entries, fuse.DirEntry{Name: de.Name(), Mode: modeType(de.IsDir())})
		}
	} else {
		infos, err := f.Readdir(-1)
		if err != nil {
			return nil, n.errno(err)
		}
		for _, fi := range infos {
			entries = append(entries, fuse.DirEntry{Name: fi.Name(), Mode: modeType(fi.IsDir())})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return fs.NewListDirStream(entries), 0
}

// stat returns the node's attributes: from a handle open for writing when
// there is one (the base has not seen its data yet), from the file system
// otherwise.
func (n *node) stat() (os.FileInfo, error) {
	n.mu.Lock()
	for h := range n.writers {
		n.mu.Unlock()
		return h.stat()
	}
	n.mu.Unlock()
	return n.fsys.Stat(n.path())
}

func (n *node) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	fi, err := n.stat()
	if err != nil {
		return n.errno(err)
	}
	fillAttr(&out.Attr, fi, n.opts.Writable)
	return 0
}

func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if !n.opts.Writable {
		return syscall.EROFS
	}
	p := n.path()
	if size, ok := in.GetSize(); ok {
		if e := n.truncate(fh, int64(size)); e != 0 {
			return e
		}
	}
	if mode, ok := in.GetMode(); ok {
		if err := n.fsys.Chmod(p, os.FileMode(mode&0o7777)); err != nil {
			return n.errno(err)
		}
	}
	mtime, mok := in.GetMTime()
	atime, aok := in.GetATime()
	if mok || aok {
		fi, err := n.fsys.Stat(p)
		if err != nil {
			return n.errno(err)
		}
		if !mok {
			mtime = fi.ModTime()
		}
		if !aok {
			atime = mtime
		}
		if err := n.fsys.Chtimes(p, atime, mtime); err != nil {
			return n.errno(err)
		}
	}
	return n.Getattr(ctx, fh, out)
}

// truncate sets the file's size through the given handle, another handle
// open for writing, or a handle of its own.
func (n *node) truncate(fh fs.FileHandle, size int64) syscall.Errno {
	h, _ := fh.(*handle)
	if h == nil || !h.writable {
		n.mu.Lock()
		for w := range n.writers {
			h = w
			break
		}
		n.mu.Unlock()
	}
	if h != nil && h.writable {
		return h.truncate(size)
	}
	f, err := n.fsys.OpenFile(n.path(), os.O_RDWR, 0)
	if err != nil {
		return n.errno(err)
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n.errno(err)
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	write := flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&syscall.O_TRUNC != 0
	if write && !n.opts.Writable {
		return nil, 0, syscall.EROFS
	}
	// The kernel passes the offset of every write, O_APPEND included.
	f, err := n.fsys.OpenFile(n.path(), int(flags)&^(syscall.O_APPEND|syscall.O_CREAT|syscall.O_EXCL), 0)
	if err != nil {
		return nil, 0, n.errno(err)
	}
	return n.open(f, write), 0, 0
}

// open wraps f in a handle, noting it when it writes.
func (n *node) open(f afero.File, write bool) *handle {
	h := &handle{f: f, node: n, writable: write}
	if write {
		n.mu.Lock()
		if n.writers == nil {
			n.writers = make(map[*handle]bool)
		}
		n.writers[h] = true
		n.mu.Unlock()
	}
	return h
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if !n.opts.Writable {
		return nil, nil, 0, syscall.EROFS
	}
	p := path.Join(n.path(), name)
	f, err := n.fsys.OpenFile(p, int(flags)&^syscall.O_APPEND|os.O_CREATE, os.FileMode(mode&0o777))
	if err != nil {
		return nil, nil, 0, n.errno(err)
	}
	// Make the file exist in the base now, so that Lookup finds it.
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, nil, 0, n.errno(err)
	}
	inode, e := n.child(ctx, name, out)
	if e != 0 {
		f.Close()
		return nil, nil, 0, e
	}
	return inode, inode.Operations().(*node).open(f, true), 0, 0
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if !n.opts.Writable {
		return nil, syscall.EROFS
	}
	if err := n.fsys.Mkdir(path.Join(n.path(), name), os.FileMode(mode&0o777)); err != nil {
		return nil, n.errno(err)
	}
	return n.child(ctx, name, out)
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno { return n.remove(name) }
func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno  { return n.remove(name) }

func (n *node) remove(name string) syscall.Errno {
	if !n.opts.Writable {
		return syscall.EROFS
	}
	return n.errno(n.fsys.Remove(path.Join(n.path(), name)))
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if !n.opts.Writable {
		return syscall.EROFS
	}
	if flags != 0 {
		return syscall.ENOTSUP // RENAME_NOREPLACE, RENAME_EXCHANGE
	}
	to := path.Join("/"+newParent.EmbeddedInode().Path(nil), newName)
	return n.errno(n.fsys.Rename(path.Join(n.path(), name), to))
}

// handle is an open file. Its methods are serialised: a file of the file
// system need not take concurrent calls.
type handle struct {
	mu       sync.Mutex
	f        afero.File
	node     *node
	writable bool
}

var (
	_ fs.FileReader   = (*handle)(nil)
	_ fs.FileWriter   = (*handle)(nil)
	_ fs.FileFlusher  = (*handle)(nil)
	_ fs.FileFsyncer  = (*handle)(nil)
	_ fs.FileReleaser = (*handle)(nil)
)

func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m, err := h.f.ReadAt(dest, off)
	if err != nil && m < len(dest) && !errors.Is(err, io.EOF) {
		return nil, h.node.errno(err)
	}
	return fuse.ReadResultData(dest[:m]), 0
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m, err := h.f.WriteAt(data, off)
	if err != nil {
		return uint32(m), h.node.errno(err)
	}
	return uint32(m), 0
}

func (h *handle) stat() (os.FileInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.f.Stat()
}

func (h *handle) truncate(size int64) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.node.errno(h.f.Truncate(size))
}

// Flush runs at every close(2): what was written is stored, so that close
// reports a failure to store it.
func (h *handle) Flush(ctx context.Context) syscall.Errno {
	if !h.writable {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.node.errno(h.f.Sync())
}

func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno { return h.Flush(ctx) }

func (h *handle) Release(ctx context.Context) syscall.Errno {
	h.node.mu.Lock()
	delete(h.node.writers, h)
	h.node.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.node.errno(h.f.Close())
}

func modeType(dir bool) uint32 {
	if dir {
		return syscall.S_IFDIR
	}
	return syscall.S_IFREG
}

func fillAttr(a *fuse.Attr, fi os.FileInfo, writable bool) {
	perm := uint32(fi.Mode().Perm())
	if !writable {
		perm &^= 0o222
	}
	a.Mode = modeType(fi.IsDir()) | perm
	a.Size = uint64(max(fi.Size(), 0))
	a.Blocks = (a.Size + 511) / 512
	t := fi.ModTime()
	a.SetTimes(&t, &t, &t)
	a.Nlink = 1
}

// errno maps an error from the file system to the errno the kernel gets,
// and logs the errors that become EIO.
func (n *node) errno(err error) syscall.Errno {
	e := errno(err)
	if e == syscall.EIO && n.opts.Log != nil {
		n.opts.Log(err)
	}
	return e
}

// errno maps an error to an errno.
func errno(err error) syscall.Errno {
	var e syscall.Errno
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e
	case errors.Is(err, iofs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, iofs.ErrExist):
		return syscall.EEXIST
	case errors.Is(err, iofs.ErrPermission):
		return syscall.EACCES
	case errors.Is(err, iofs.ErrInvalid):
		return syscall.EINVAL
	}
	return syscall.EIO
}
