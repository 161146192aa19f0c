//go:build linux

package mount

import (
	"context"
	"os"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/unixmode"
)

// A backingKey identifies a file of the base: its device and inode number.
type backingKey struct{ dev, ino uint64 }

// firstSynthetic is the first inode number the mount makes up, for a file
// whose base gives none or whose number another file shown has; it counts
// down from there. Numbers stay below 2^32, which 32-bit programs need.
const firstSynthetic = 1<<32 - 2

// table maps the mount's nodes to the base files they show. A node is
// numbered (st_ino) after its base file when it is first looked up, so
// numbers are those of the stored files, stable across remounts. A node
// keeps its number as long as the kernel knows it, also when the mount
// replaces its base file (a write stored through a temporary file and a
// rename): programs see one file, as they would on a local file system
// (sqlite, for one, checks that its open database keeps its number). No two
// nodes the kernel knows share a number: a base file whose number a node
// has already is given a made-up one.
type table struct {
	mu    sync.Mutex
	byKey map[backingKey]*node // the node showing each base file
	byIno map[uint64]*node     // the live node of each inode number
	next  uint64               // the next made-up inode number
}

func (t *table) init() {
	t.byKey = make(map[backingKey]*node)
	t.byIno = make(map[uint64]*node)
	t.next = firstSynthetic
}

// newRoot returns the root node, for the directory info describes.
func (t *table) newRoot(m *mnt, info os.FileInfo) *node {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := &node{m: m}
	t.bind(n, info)
	return n
}

// bind numbers the new node n after info's base file, or with a synthetic
// number, and records it. t.mu is held.
func (t *table) bind(n *node, info os.FileInfo) {
	key, ok := keyOf(info)
	switch {
	case ok && key.ino != 0 && key.ino != ^uint64(0) && t.byIno[key.ino] == nil:
		n.ino = key.ino
	default:
		for t.byIno[t.next] != nil {
			t.next--
		}
		n.ino = t.next
		t.next--
	}
	t.byIno[n.ino] = n
	if ok {
		n.key, n.hasKey = key, true
		t.byKey[key] = n
	}
}

// child returns the inode to show for the entry name of parent, which
// info describes: the node already showing that base file, or a new one.
func (t *table) child(ctx context.Context, parent *node, name string, info os.FileInfo) *fs.Inode {
	mode := unixmode.Type(info.Mode())
	if key, ok := keyOf(info); ok {
		t.mu.Lock()
		c := t.byKey[key]
		t.mu.Unlock()
		if c != nil && !c.IsRoot() && c.Mode() == mode && c.StableAttr().Ino != 0 {
			if c.adopt(parent, name) {
				return c.EmbeddedInode()
			}
			c.unbind()
		}
	} else if c := pathChild(parent, name, mode, info); c != nil {
		return c.EmbeddedInode()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := &node{m: parent.m}
	t.bind(c, info)
	return parent.NewInode(ctx, c, fs.StableAttr{Mode: mode, Ino: c.ino})
}

// pathChild returns the node shown at parent/name already, to show again
// the file info describes, of a base that tells no file identities (SFTP,
// S3), where a file's only identity is its path: so that a file keeps its
// inode number, and the kernel its one inode (the size and pages its opens
// share), from one lookup to the next. It returns nil, for a new node,
// where the node's file is open and info describes another (fsx.SameFile:
// another program replaced it meanwhile).
func pathChild(parent *node, name string, mode uint32, info os.FileInfo) *node {
	ci := parent.GetChild(name)
	if ci == nil || ci.IsRoot() || ci.Mode() != mode {
		return nil
	}
	c, ok := ci.Operations().(*node)
	if !ok || !c.openAs(info) {
		return nil
	}
	return c
}

// openAs reports whether n's opens, if any, have open the file info
// describes.
func (n *node) openAs(info os.FileInfo) bool {
	var h *handle
	n.mu.Lock()
	for o := range n.handles {
		h = o
		break
	}
	n.mu.Unlock()
	return h == nil || h.opens(info)
}

// opens reports whether h has open the file info describes, of a base
// without file identities: the same state of fsx's (fsx.SameFile), or
// over another afero.Fs, any file at h's path.
func (h *handle) opens(info os.FileInfo) bool {
	if _, ok := h.n.m.fsys.(*fsx.Fs); !ok {
		return true
	}
	open, err := h.f.Stat()
	return err == nil && fsx.SameFile(open, info)
}

// adopt reports whether node c, found by the identity of the base file at
// parent/name, may show that entry: it is shown there already; its other
// name still holds the same file (a hard link; not for directories); or it
// moved there underneath, when its old entry is moved over. t.mu is not
// held: moving an entry can make the kernel forget a node.
func (c *node) adopt(parent *node, name string) bool {
	oldName, oldParent := c.Parent()
	switch {
	case oldParent == nil:
		// Removed, still open: the file found is another that the base
		// gave its number again.
		return false
	case oldParent == parent.EmbeddedInode() && oldName == name:
		return true
	}
	if oldPath, ok := nodePath(oldParent); ok {
		if info, err := c.m.lstat(joinPath(oldPath, oldName)); err == nil {
			if key, ok := keyOf(info); ok {
				if ckey, cok := c.currentKey(); cok && key == ckey {
					return c.Mode() != syscall.S_IFDIR // a hard link
				}
			}
		}
	}
	// Renamed underneath: the old entry is stale.
	oldParent.MvChild(oldName, parent.EmbeddedInode(), name, true)
	return true
}

// unbindLocked makes n no longer found by its base file's identity, as
// after that file was removed. t.mu is held.
func (n *node) unbindLocked() {
	if n.hasKey && n.m.ids.byKey[n.key] == n {
		delete(n.m.ids.byKey, n.key)
	}
	n.hasKey = false
}

// unbind is unbindLocked for callers not holding t.mu.
func (n *node) unbind() {
	n.m.ids.mu.Lock()
	defer n.m.ids.mu.Unlock()
	n.unbindLocked()
}

// replacedBase records that the base file old describes is being replaced
// by the one new describes (fsx stores a file's new content through a
// temporary file renamed over it): the node showing old shows new from then
// on, under its inode number, as programs expect of one file that was
// written (sqlite checks that its open database keeps its number). Until
// the rename is done, either identity finds the node, so that a lookup
// meanwhile does not give the file a second node.
func (t *table) replacedBase(old, new os.FileInfo, done bool) {
	okey, ok1 := keyOf(old)
	nkey, ok2 := keyOf(new)
	if !ok1 || !ok2 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !done {
		if n := t.byKey[okey]; n != nil {
			t.byKey[nkey] = n
		}
		return
	}
	n := t.byKey[nkey]
	if n == nil || t.byKey[okey] != n {
		return
	}
	delete(t.byKey, okey)
	if n.key == okey {
		n.key = nkey
	}
}

// shows reports whether the base file key is n's: the one the table finds
// n by (either of the two while fsx replaces n's base file).
func (n *node) shows(key backingKey) bool {
	n.m.ids.mu.Lock()
	defer n.m.ids.mu.Unlock()
	return n.m.ids.byKey[key] == n
}

// currentKey returns the identity of n's base file as last known.
func (n *node) currentKey() (backingKey, bool) {
	n.m.ids.mu.Lock()
	defer n.m.ids.mu.Unlock()
	return n.key, n.hasKey
}

// OnForget drops n from the table when the kernel has forgotten it.
func (n *node) OnForget() {
	t := &n.m.ids
	t.mu.Lock()
	defer t.mu.Unlock()
	n.unbindLocked()
	if t.byIno[n.ino] == n {
		delete(t.byIno, n.ino)
	}
}
