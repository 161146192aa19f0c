//go:build linux

package mount

import (
	"context"
	"errors"
	"io"
	iofs "io/fs"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/spf13/afero"
	"golang.org/x/sys/unix"

	"github.com/b14fs/b14fs/fsx"
)

// handle is an open file: a file of the file system, opened by the
// kernel's OPEN or CREATE. Its content is the file system's, shared by
// every open of the file (fsx keeps one state per stored file), so the
// handle only passes the kernel's requests on. Its methods may run at once.
type handle struct {
	n        *node
	f        afero.File
	writable bool
	append   bool // opened with O_APPEND: every write goes to the end
	cached   bool // served through the kernel's page cache (pagecache.go)

	// readMu orders the reads of a file whose ReadAt calls may not run at
	// once (not an fsx.ConcurrentReaderAt): the kernel sends the reads of
	// a file read through its page cache at once.
	readMu *sync.Mutex

	privsChecked atomic.Bool // a write cleared the setuid and setgid bits if due
}

var (
	_ fs.FileReader    = (*handle)(nil)
	_ fs.FileWriter    = (*handle)(nil)
	_ fs.FileFlusher   = (*handle)(nil)
	_ fs.FileFsyncer   = (*handle)(nil)
	_ fs.FileReleaser  = (*handle)(nil)
	_ fs.FileGetattrer = (*handle)(nil)
	_ fs.FileLseeker   = (*handle)(nil)
)

func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if hook := testHookRead.Load(); hook != nil {
		(*hook)(h.f.Name())
	}
	if h.readMu != nil {
		h.readMu.Lock()
		defer h.readMu.Unlock()
	}
	m, err := h.f.ReadAt(dest, off)
	if err != nil && !errors.Is(err, io.EOF) && m < len(dest) {
		return nil, h.n.m.errno(err)
	}
	if m < len(dest) && h.cached {
		m = h.n.fromCut(dest, off, m)
	}
	return fuse.ReadResultData(dest[:m]), 0
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	defer h.n.m.changing()()
	if !h.privsChecked.Swap(true) {
		if e := h.dropPrivs(ctx); e != 0 {
			return 0, e
		}
	}
	var err error
	switch {
	case !h.append:
		_, err = h.f.WriteAt(data, off)
	case h.n.m.writesBack(ctx):
		// The pages of a shared mapping, which the kernel writes back
		// through any writable handle of the file, go at their offsets.
		if w, ok := h.f.(fsx.NoAppendWriterAt); ok {
			_, err = w.WriteAtNoAppend(data, off)
		} else {
			_, err = h.f.WriteAt(data, off)
		}
	default:
		// The kernel passes the end as it knows it; the file system
		// appends at the end as it is.
		_, err = h.f.Write(data)
	}
	h.n.changed()
	if err != nil {
		return 0, h.n.m.errno(err)
	}
	return uint32(len(data)), 0
}

// Lseek answers SEEK_DATA and SEEK_HOLE (the kernel moves the offset of
// the other whences itself): the whole file is data, as fsx shows no
// holes, and an offset at or past the end is ENXIO, as lseek(2) says.
func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	info, err := h.f.Stat()
	if err != nil {
		return 0, h.n.m.errno(err)
	}
	size := uint64(info.Size())
	switch {
	case whence != unix.SEEK_DATA && whence != unix.SEEK_HOLE:
		return 0, syscall.EINVAL
	case off >= size:
		return 0, syscall.ENXIO
	case whence == unix.SEEK_DATA:
		return off, 0
	}
	return size, 0
}

// dropPrivs clears the file's setuid bit, and its setgid bit when it is
// group-executable, when a user other than root writes it, as a local file
// system does (so that a setuid program changed by another cannot run as
// its owner).
func (h *handle) dropPrivs(ctx context.Context) syscall.Errno {
	if c, ok := fuse.FromContext(ctx); !ok || c.Uid == 0 {
		return 0
	}
	info, err := h.f.Stat()
	if err != nil {
		return h.n.m.errno(err)
	}
	mode := info.Mode()
	drop := mode & os.ModeSetuid
	if mode&0o010 != 0 {
		drop |= mode & os.ModeSetgid
	}
	p, ok := h.n.path()
	if drop == 0 || !ok {
		return 0
	}
	return h.n.m.errno(h.n.m.fsys.Chmod(p, mode&^drop&(os.ModePerm|os.ModeSetuid|os.ModeSetgid|os.ModeSticky)))
}

// Getattr describes the file as its content is now.
func (h *handle) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	info, err := h.f.Stat()
	if err != nil {
		return h.n.m.errno(err)
	}
	fillAttr(&out.Attr, info)
	return 0
}

// truncate sets the file's size.
func (h *handle) truncate(size int64) syscall.Errno {
	h.n.changed()
	return h.n.m.errno(h.f.Truncate(size))
}

// Flush runs at every close(2) of a descriptor: what the descriptor
// changed is stored, so that close reports a failure to store it.
func (h *handle) Flush(ctx context.Context) syscall.Errno {
	if fl, ok := h.f.(flusher); ok && h.writable {
		defer h.n.m.changing()()
		return h.n.m.errno(fl.Flush())
	}
	return 0
}

// A flusher stores what its file changed (fsx's files are flushers).
type flusher interface {
	Flush() error
}

// Fsync stores what the file holds; fsx syncs what it stores.
func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	defer h.n.m.changing()()
	return h.n.m.errno(h.f.Sync())
}

// Release closes the file. A failure to store what it still holds reaches
// no program; it is logged.
func (h *handle) Release(ctx context.Context) syscall.Errno {
	if h.writable {
		defer h.n.m.changing()()
	}
	h.n.dropHandle(h)
	err := h.f.Close()
	if hook := testHookReleased.Load(); hook != nil {
		(*hook)(h.f.Name())
	}
	if errors.Is(err, iofs.ErrClosed) {
		return 0 // released when the mount went (closeAll)
	}
	if err != nil {
		h.n.m.log(err)
		return h.n.m.errno(err)
	}
	return 0
}
