// Package mount serves an afero.Fs through FUSE, read-only: b14fs mounts an
// fsx file system with it so that every program sees a directory's encoded
// files decoded.
package mount

import (
	"context"
	"errors"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"sort"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/spf13/afero"
)

// cacheTimeout is how long the kernel may cache names and attributes. The
// view of a directory that others may change should stay fresh.
const cacheTimeout = time.Second

// Mount serves fsys read-only at mountpoint and returns the running server;
// call its Unmount to stop it, and Wait to wait for that. name is shown as
// the file system's source (in /proc/mounts).
func Mount(fsys afero.Fs, mountpoint, name string) (*fuse.Server, error) {
	timeout := cacheTimeout
	root := &node{fsys: fsys, path: "/"}
	return fs.Mount(mountpoint, root, &fs.Options{
		EntryTimeout: &timeout,
		AttrTimeout:  &timeout,
		MountOptions: fuse.MountOptions{
			FsName:  name,
			Name:    "b14fs",
			Options: []string{"ro"},
		},
	})
}

// node is a file or directory of the served file system.
type node struct {
	fs.Inode
	fsys afero.Fs
	path string
}

var (
	_ fs.NodeLookuper  = (*node)(nil)
	_ fs.NodeReaddirer = (*node)(nil)
	_ fs.NodeGetattrer = (*node)(nil)
	_ fs.NodeOpener    = (*node)(nil)
	_ fs.NodeReader    = (*node)(nil)
	_ fs.NodeReleaser  = (*node)(nil)
)

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p := path.Join(n.path, name)
	fi, err := n.fsys.Stat(p)
	if err != nil {
		return nil, errno(err)
	}
	fillAttr(&out.Attr, fi)
	child := &node{fsys: n.fsys, path: p}
	return n.NewInode(ctx, child, fs.StableAttr{Mode: out.Attr.Mode & syscall.S_IFMT}), 0
}

func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	f, err := n.fsys.Open(n.path)
	if err != nil {
		return nil, errno(err)
	}
	defer f.Close()
	infos, err := f.Readdir(-1)
	if err != nil {
		return nil, errno(err)
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name() < infos[j].Name() })
	entries := make([]fuse.DirEntry, len(infos))
	for i, fi := range infos {
		entries[i] = fuse.DirEntry{Name: fi.Name(), Mode: fileType(fi)}
	}
	return fs.NewListDirStream(entries), 0
}

func (n *node) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	fi, err := n.fsys.Stat(n.path)
	if err != nil {
		return errno(err)
	}
	fillAttr(&out.Attr, fi)
	return 0
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&(syscall.O_WRONLY|syscall.O_RDWR|syscall.O_TRUNC|syscall.O_APPEND) != 0 {
		return nil, 0, syscall.EROFS
	}
	f, err := n.fsys.Open(n.path)
	if err != nil {
		return nil, 0, errno(err)
	}
	return &handle{f}, 0, 0
}

func (n *node) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h, ok := fh.(*handle)
	if !ok {
		return nil, syscall.EBADF
	}
	m, err := h.f.ReadAt(dest, off)
	if err != nil && m < len(dest) && !errors.Is(err, io.EOF) {
		return nil, errno(err)
	}
	return fuse.ReadResultData(dest[:m]), 0
}

func (n *node) Release(ctx context.Context, fh fs.FileHandle) syscall.Errno {
	if h, ok := fh.(*handle); ok {
		return errno(h.f.Close())
	}
	return 0
}

// handle is an open file.
type handle struct{ f afero.File }

func fileType(fi os.FileInfo) uint32 {
	if fi.IsDir() {
		return syscall.S_IFDIR
	}
	return syscall.S_IFREG
}

func fillAttr(a *fuse.Attr, fi os.FileInfo) {
	a.Mode = fileType(fi) | uint32(fi.Mode().Perm())&^0o222
	a.Size = uint64(max(fi.Size(), 0))
	a.Blocks = (a.Size + 511) / 512
	t := fi.ModTime()
	a.SetTimes(&t, &t, &t)
	a.Nlink = 1
}

// errno maps an error from the file system to the errno the kernel gets.
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
