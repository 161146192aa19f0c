package mount

import (
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/spf13/afero"
)

// How the kernel serves the opens of a file: through its page cache or
// with direct I/O (FOPEN_DIRECT_IO, every read and write asked of the
// mount). Either way every open reads what the file holds now (the file's
// one state, docs/mount.md "Coherence"):
//
//   - The opens of a file open at once are all of one kind. While a
//     descriptor opened with direct I/O is open, every new open is direct
//     I/O too; while one served through the page cache is open, every new
//     open is served through it too. A file that nothing has open is
//     opened through the page cache when the open is read-only, with
//     direct I/O when it may write (as most writes are not followed by
//     reads, and a write through the page cache costs a copy into it).
//   - Through the page cache, the kernel keeps the cache true itself:
//     writes go into it and on to the mount at once (write-through), and
//     truncations cut it. Mixing the kinds would not be true: a read
//     through the cache racing with a direct write, or with a truncation
//     and a write that regrows the file, can put bytes in the cache that
//     the file never held at the size the kernel then knows (TestStress
//     found zeros read in the middle of a file that way).
//   - With direct I/O the kernel drops the cached pages of each range
//     written, and cuts the cache at each truncation, so that pages left
//     from earlier opens through the cache stay true.
//   - An open through the page cache keeps what the kernel cached
//     (FOPEN_KEEP_CACHE) only when nothing changed the file since the last
//     such open: no write through the mount (node.changes), no change
//     underneath, which moves the file's size or time. Otherwise the
//     kernel drops the file's pages as it opens it, and newHandle makes it
//     forget the file's attributes, so that reads see the size as it is
//     now.
//   - A file changed underneath while open through the cache is dropped
//     from it when the kernel next fetches its attributes and finds its
//     size or time moved (FUSE's auto_inval_data, on by default).

// A stamp is what an open through the page cache saw of its file: when a
// later one sees the same, the kernel's cached pages are still its content.
type stamp struct {
	changes uint64 // node.changes
	size    int64
	mtime   time.Time
}

// cacheLocked decides how the kernel serves h, a new open of n's file f,
// and returns its FOPEN flags, and whether the kernel must forget the
// file's attributes. n.mu is held, and h is not yet among n.handles.
func (n *node) cacheLocked(h *handle, f afero.File) (open uint32, forget bool) {
	if n.m.opts.Cache {
		h.cached = true
		return fuse.FOPEN_KEEP_CACHE, false
	}
	cached := !h.writable
	for o := range n.handles {
		cached = o.cached
		break
	}
	if !cached {
		return fuse.FOPEN_DIRECT_IO, false
	}
	info, err := f.Stat()
	if err != nil {
		return fuse.FOPEN_DIRECT_IO, false
	}
	h.cached = true
	st := stamp{changes: n.changes.Load(), size: info.Size(), mtime: info.ModTime()}
	keep := n.stamped && n.stamp == st
	n.stamp, n.stamped = st, true
	if keep {
		return fuse.FOPEN_KEEP_CACHE, false
	}
	return 0, true
}

// changed records that the content of n's file changed through the mount:
// the next open through the page cache does not keep what the kernel
// cached.
func (n *node) changed() { n.changes.Add(1) }
