package mount

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/spf13/afero"
)

// appendSyncBytes is how much a handle opened with O_APPEND takes before it
// stores what it appended, so that a long append holds at most that much in
// memory (fsx holds appended data in memory until it stores it).
const appendSyncBytes = 8 << 20

// handle is an open file. Its methods are serialised: a file of the file
// system need not take concurrent calls.
type handle struct {
	n        *node
	seq      uint64 // the order handles were opened in
	reopen   int    // the flags to open the file again with
	writable bool
	append   bool        // opened with O_APPEND: every write goes to the end
	dirty    atomic.Bool // holds writes (or a truncation) not yet stored

	mu         sync.Mutex
	f          afero.File
	closed     bool
	appendOnly bool  // every write since the last store was at the end
	size       int64 // the size as this handle sees it
	appended   int64 // bytes appended since the last store

	// What f holds, for a reader to tell when the base file changed.
	key    backingKey
	hasKey bool
	loaded int64     // the size f had when opened
	mtime  time.Time // the modification time f had when opened
	gen    uint64    // n.gen when f was opened
	seen   uint64    // n.gen when f last caught up with stores in place
}

var (
	_ fs.FileReader   = (*handle)(nil)
	_ fs.FileWriter   = (*handle)(nil)
	_ fs.FileFlusher  = (*handle)(nil)
	_ fs.FileFsyncer  = (*handle)(nil)
	_ fs.FileReleaser = (*handle)(nil)
)

// noteLoaded records what the file just opened holds.
func (h *handle) noteLoaded(info os.FileInfo) {
	h.key, h.hasKey = keyOf(info)
	h.loaded, h.size, h.mtime = info.Size(), info.Size(), info.ModTime()
}

// handleSeq numbers handles.
var handleSeq atomic.Uint64

// Read reads the file as this handle sees it. A handle holding writes
// stores them first (so that reading them back holds nothing in memory). A
// reader that meets the end of its file, or bad data, first checks whether
// the file changed meanwhile, and moves on to the new content when that is
// the same file grown or changed in place, or the mount stored appends to it
// (see refresh).
func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, syscall.EBADF
	}
	if h.dirty.Load() {
		if e := h.syncLocked(); e != 0 {
			return nil, e
		}
	}
	// Not while the mount stores a write into this file in place.
	h.n.commit.RLock()
	defer h.n.commit.RUnlock()
	h.catchUp()
	m, err := h.f.ReadAt(dest, off)
	for try := 0; !h.writable && (m < len(dest) || err != nil) && try < 4; try++ {
		failed := err != nil && !errors.Is(err, io.EOF)
		if failed && try > 0 {
			// Bad data may be a change in place underneath, half done
			// (an append by another program): look again shortly.
			time.Sleep(time.Duration(try*5) * time.Millisecond)
		}
		if !h.refresh(failed) {
			if !failed {
				break
			}
			continue
		}
		m, err = h.f.ReadAt(dest, off)
	}
	if err != nil && !errors.Is(err, io.EOF) && m < len(dest) {
		return nil, h.n.m.errno(err)
	}
	return fuse.ReadResultData(dest[:m]), 0
}

// catchUp brings the handle up to date with what the mount stored into its
// file since it last looked, when that may have been stored in place. Such a
// store moves the file's end, and the block layout loaded before it would
// read the blocks there wrongly: a new last block, shorter than a whole one,
// read as a whole one gives a byte nobody wrote. h.mu and h.n.commit (for
// reading) are held, so no store is running.
func (h *handle) catchUp() {
	h.n.mu.Lock()
	gen := h.n.gen
	h.n.mu.Unlock()
	if gen == h.seen {
		return
	}
	h.seen = gen
	if r, ok := h.f.(refresher); ok {
		if changed, err := r.Refresh(); err == nil && changed {
			if info, err := h.f.Stat(); err == nil {
				h.noteLoaded(info)
			}
		}
	}
}

// A refresher is an open file that can catch up with changes made in place
// to the file it has open (fsx's files can).
type refresher interface {
	Refresh() (bool, error)
}

// refresh brings a reader up to date, and reports whether reading again
// can give more: the file it has open was changed in place (grown by an
// append in place, truncated, rewritten by another program), or, when a
// read failed, was read again in any case; or the mount stored appends into
// a new base file for it since the handle opened its content, which it then
// opens. A base file replaced by another, or rewritten through the mount,
// is not followed: the handle keeps reading what it opened, as a local file
// system keeps serving a replaced file to those who have it open; on a base
// that tells no file identities, only the mount's own appends are followed
// by name. h.mu is held.
func (h *handle) refresh(failed bool) bool {
	if r, ok := h.f.(refresher); ok {
		changed, err := r.Refresh()
		if err == nil && (changed || failed) {
			if info, err := h.f.Stat(); err == nil {
				h.noteLoaded(info)
			}
			return true
		}
	}
	if !h.hasKey {
		// No identities (remote bases, MemMapFs): only the mount's own
		// stores are followed (below). Without one since, there is nothing
		// to look up, which would cost round trips at every read at the end
		// of a file.
		h.n.mu.Lock()
		gen, rewrite := h.n.gen, h.n.rewrite
		h.n.mu.Unlock()
		if gen == h.gen || rewrite > h.gen {
			h.seen = gen
			return false
		}
	}
	p, ok := h.n.path()
	if !ok {
		return false
	}
	info, err := h.n.m.lstat(p)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	key, hasKey := keyOf(info)
	h.n.mu.Lock()
	gen, rewrite := h.n.gen, h.n.rewrite
	h.n.mu.Unlock()
	h.seen = gen
	switch {
	case hasKey && h.hasKey && key != h.key:
		nkey, nok := h.n.currentKey()
		if !nok || nkey != key || rewrite > h.gen {
			return false
		}
	case !hasKey || !h.hasKey:
		// No identities (remote bases, MemMapFs): a change the mount did
		// not store may be another file put in its place (S3 stores every
		// change so, SFTP a rewrite), whose bytes past what this handle
		// read belong to another version. Follow only the appends the
		// mount stored itself.
		if gen == h.gen || rewrite > h.gen || info.Size() == h.loaded && info.ModTime().Equal(h.mtime) {
			return false
		}
	default:
		if _, ok := h.f.(refresher); ok {
			return false // the same file: Refresh saw it all
		}
		if info.Size() == h.loaded && info.ModTime().Equal(h.mtime) {
			return false
		}
	}
	f, err := h.n.m.open(p, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	finfo, err := f.Stat()
	if err != nil {
		f.Close()
		return false
	}
	if fkey, ok := keyOf(finfo); hasKey && (!ok || fkey != key) {
		f.Close() // replaced again meanwhile
		return false
	}
	h.f.Close()
	h.f = f
	h.noteLoaded(finfo)
	h.gen = gen
	return true
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0, syscall.EBADF
	}
	var err error
	if h.append {
		// The kernel passes the end as it knows it; fsx appends at the
		// end as it is.
		_, err = h.f.Write(data)
		off = h.size
	} else {
		_, err = h.f.WriteAt(data, off)
	}
	if err != nil {
		return 0, h.n.m.errno(err)
	}
	if off < h.size {
		h.appendOnly = false
	}
	h.size = max(h.size, off+int64(len(data)))
	h.dirty.Store(true)
	h.n.noteWriter(h)
	if h.append {
		if h.appended += int64(len(data)); h.appended >= appendSyncBytes {
			if e := h.syncLocked(); e != 0 {
				return 0, e
			}
		}
	}
	return uint32(len(data)), 0
}

// stat returns the file's FileInfo as this handle sees it, and false once
// it is closed.
func (h *handle) stat() (os.FileInfo, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false
	}
	info, err := h.f.Stat()
	return info, err == nil
}

func (h *handle) truncate(size int64) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return syscall.EBADF
	}
	if err := h.f.Truncate(size); err != nil {
		return h.n.m.errno(err)
	}
	if size < h.size {
		h.appendOnly = false
	}
	h.size = size
	h.dirty.Store(true)
	h.n.noteWriter(h)
	return 0
}

// Flush runs at every close(2): what was written is stored, so that close
// reports a failure to store it.
func (h *handle) Flush(ctx context.Context) syscall.Errno {
	if !h.writable {
		return 0
	}
	return h.sync()
}

// Fsync stores what was written; fsx syncs what it stores.
func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	if !h.writable {
		return 0
	}
	return h.sync()
}

// sync stores what the handle holds.
func (h *handle) sync() syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0
	}
	return h.syncLocked()
}

// syncLocked stores what the handle holds. h.mu is held.
func (h *handle) syncLocked() syscall.Errno {
	if !h.dirty.Load() || h.n.removed.Load() {
		return 0 // nothing to store, or the file is gone
	}
	appendOnly := h.appendOnly
	h.dirty.Store(false)
	h.appendOnly, h.appended = true, 0
	if err := h.n.store(h.f.Sync, appendOnly); err != nil {
		return h.n.m.errno(err)
	}
	if info, err := h.f.Stat(); err == nil {
		h.noteLoaded(info)
	}
	return 0
}

// Release closes the file, storing what it still holds (after a failed
// Flush: fsx then reports the same failure, which is logged, as no program
// gets it).
func (h *handle) Release(ctx context.Context) syscall.Errno {
	h.n.dropHandle(h)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0 // released when the mount went (closeAll)
	}
	h.closed = true
	var err error
	dirty := h.dirty.Swap(false)
	d, canDiscard := h.f.(discarder)
	switch {
	case dirty && h.n.removed.Load() && canDiscard:
		err = d.Discard() // removed while open: its writes go with it
	case dirty && !h.n.removed.Load():
		err = h.n.store(h.f.Close, h.appendOnly)
	default:
		err = h.f.Close()
	}
	if err != nil {
		h.n.m.log(err)
		return h.n.m.errno(err)
	}
	return 0
}

// A discarder is an open file that can be closed without storing the writes
// it holds (fsx's files can).
type discarder interface {
	Discard() error
}

// reopenLocked opens the file again at p, where it was renamed to, after
// its writes were stored: so that later writes are stored there. h.mu is
// held.
func (h *handle) reopenLocked(p string) {
	if h.closed {
		return
	}
	f, err := h.n.m.open(p, h.reopen, 0)
	if err != nil {
		h.n.m.log(err)
		return
	}
	h.f.Close()
	h.f = f
	if info, err := f.Stat(); err == nil {
		h.noteLoaded(info)
	}
}
