//go:build linux

package mount

import (
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/spf13/afero"
)

// How the kernel serves the opens of a file: through its page cache, or
// with direct I/O (FOPEN_DIRECT_IO: every read and write asked of the
// mount). Either way every open reads what the file holds now (the file's
// one state, docs/mount.md "Coherence"):
//
//   - The opens of a file open at once are all of one kind, the kind of
//     the first. A first open (no other open of the file) goes through the
//     page cache when it is read-only, with direct I/O when it may write:
//     most writes are not read back, and a write through the page cache
//     costs a copy into it.
//   - Through the page cache, the kernel keeps the cache true itself, as
//     for a local file system: a write is copied into the cached pages and
//     sent on at once (write-through), a truncation cuts them. So no page
//     is dropped while opens through the cache are open: a new open keeps
//     what is cached (FOPEN_KEEP_CACHE), and the mount runs without FUSE's
//     auto_inval_data, which drops a file's pages whenever it sees its time
//     change. A reader holding a page dropped so reads it to the file's
//     new size, while the write that grew the file went into a new page:
//     TestStress read zeros that way, in the middle of files others were
//     appending to or regrowing. Opens of both kinds at once fail the same
//     way, as the kernel drops the pages a direct write covers before
//     making it.
//   - A first open through the cache keeps what is cached only when
//     nothing changed the file since the last first open through the
//     cache: no write through the mount (node.changes) and the same size,
//     time and base file; never over a base without file identities
//     (SFTP, S3), whose times are whole seconds. Otherwise the mount has
//     the kernel drop the file's pages and forget its attributes, so that
//     reads go to the size as it is now; it does so itself, before it
//     answers the open or lets another open of the file through, and
//     answers FOPEN_KEEP_CACHE. An open answered without FOPEN_KEEP_CACHE
//     would drop the pages as the kernel ends it, possibly after another
//     open of the file through the cache got its answer and began to read:
//     TestStress read zeros that way too, under load.
//   - Pages cached earlier stay true under direct I/O: the kernel cuts
//     them at a truncation, and drops those a write covers (since Linux
//     6.6; node.changes makes the next first open drop them all on older
//     kernels).
//   - One node, one file's pages: an open of a node whose name holds
//     another file by now (renamed over since the kernel looked it up; over
//     a base without identities, another state of fsx's) is answered
//     ESTALE while opens through the cache are open, and the kernel looks
//     the name up again; with no open, it is direct I/O.
//   - Changes made underneath: the kernel drops a file's pages when it
//     fetches its attributes and finds its size changed (within the
//     attribute timeout, so tail -f follows appends); a change underneath
//     that keeps the size reaches reads at the next first open (by the
//     file's change time, also when its modification time is put back).

// A stamp is what a first open through the page cache saw of its file:
// when the next one sees the same, the kernel's cached pages are still the
// file's content.
type stamp struct {
	changes uint64 // node.changes
	key     backingKey
	size    int64
	mtime   time.Time
	ctime   time.Time // where the base gives it: a change that puts mtime back moves it
}

// cacheLocked decides how the kernel serves h, a new open of n's file f,
// and returns its FOPEN flags, or ESTALE. n.mu is held, and h is not yet
// among n.handles.
func (n *node) cacheLocked(h *handle, f afero.File) (open uint32, errno syscall.Errno) {
	if n.m.opts.Cache {
		h.cached = true
		return fuse.FOPEN_KEEP_CACHE, 0
	}
	var other *handle // an open of the file, whose kind h takes
	for o := range n.handles {
		other = o
		break
	}
	if other != nil && !other.cached || other == nil && h.writable {
		return fuse.FOPEN_DIRECT_IO, 0
	}
	info, err := f.Stat()
	if err != nil {
		return 0, n.m.errno(err)
	}
	key, hasKey := keyOf(info)
	own := hasKey && n.shows(key)
	if !hasKey {
		// The node's own file, by path (pathChild), unless it is open and f
		// is another: one node, one file's pages.
		own = other == nil || other.opens(info)
	}
	switch {
	case other != nil && !own:
		return 0, syscall.ESTALE
	case other != nil:
		h.cached = true
		return fuse.FOPEN_KEEP_CACHE, 0
	case !own:
		return fuse.FOPEN_DIRECT_IO, 0
	}
	h.cached = true
	st := stamp{changes: n.changes.Load(), key: key, size: info.Size(), mtime: info.ModTime(), ctime: changeTime(info)}
	// Without an identity, a file replaced underneath by one of the same
	// size within the same second (the times SFTP and S3 keep) would look
	// unchanged: its pages are not kept from one first open to the next.
	keep := n.stamped && n.stamp == st && hasKey
	n.stamp, n.stamped = st, true
	if !keep {
		// No open of the file reads its pages now (n.handles is empty).
		n.NotifyContent(0, 0)
	}
	return fuse.FOPEN_KEEP_CACHE, 0
}

// changed records that the content of n's file changed through the mount:
// the next first open through the page cache does not keep what the
// kernel cached.
func (n *node) changed() { n.changes.Add(1) }
