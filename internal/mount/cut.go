//go:build linux

package mount

import (
	"errors"
	"io"
	"sync/atomic"
	"syscall"
)

// What a truncation cuts off a file read through the page cache.
//
// The kernel does not order a truncation with the reads it sends to fill
// the page cache (FUSE takes no lock against read-ahead as it truncates, as
// local file systems do): a read it sent with the size it knew may reach
// the mount after the file was cut, and before the kernel learns the new
// size. Answered short there, the read is taken for a hole: the kernel
// fills the rest of its pages with zeros, and a program reading the file
// meanwhile reads those zeros, up to the old size (TestStress did, under
// load; TestCutWhileReading).
//
// So while a truncation through the mount shrinks a file that opens
// through the page cache hold, the mount answers such reads from what the
// file held past its new end: the file as it was before the cut, as a read
// that ends before a truncation reads it on a local file system. Once the
// file is cut, the mount has the kernel drop its pages past the new end,
// which waits for every read sent for them: each is answered then, while
// what was cut is still at hand. Every page so filled was asked for before
// the mount answers the truncation, so the kernel cuts it as it ends the
// truncation: no page past the end keeps what was cut.
//
// An open with O_TRUNC needs none of this: the kernel does not hold its
// idea of the size while the mount opens, and takes a short read for the
// file's new end.
//
// What this leaves to the kernel (docs/mount.md, "Limits"): a read sent
// after the mount's drop and before the kernel learns the new size, and a
// reader holding a page while the kernel drops every cached page of the
// file at the end of the truncation, then copying from it once the file
// grew again, still show zeros past the new end. So does a read more than
// maxCutTail bytes past it.

// maxCutTail bounds what a truncation keeps of what it cuts off.
const maxCutTail = 16 << 20

// A cutTail is what a truncation running now cut off a file: data followed
// offset at.
type cutTail struct {
	at   int64
	data []byte
}

// Test hook, run when set: testHookCut in shrink between cutting the file
// and having the kernel drop its pages past the new end.
var testHookCut atomic.Pointer[func()]

// shrink runs cut, which truncates n's file to size, keeping what it cuts
// off for the reads of the page cache it answers meanwhile.
func (n *node) shrink(size int64, cut func() syscall.Errno) syscall.Errno {
	t := n.tailPast(size)
	if t == nil {
		return cut()
	}
	n.cut.Store(t)
	defer n.cut.CompareAndSwap(t, nil)
	e := cut()
	if e == 0 {
		if hook := testHookCut.Load(); hook != nil {
			(*hook)()
		}
		n.NotifyContent(size, 0)
	}
	return e
}

// tailPast returns what n's file holds past size, when it is longer and
// opens through the page cache have it open; else nil.
func (n *node) tailPast(size int64) *cutTail {
	if !n.cachedOpen() {
		return nil
	}
	p, ok := n.path()
	if !ok {
		return nil
	}
	f, err := n.m.fsys.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() <= size {
		return nil
	}
	if key, hasKey := keyOf(info); hasKey && !n.shows(key) {
		return nil // the name holds another file by now
	}
	data := make([]byte, min(info.Size()-size, maxCutTail))
	k, err := f.ReadAt(data, size)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	return &cutTail{at: size, data: data[:k]}
}

// cachedOpen reports whether an open through the page cache has n's file
// open.
func (n *node) cachedOpen() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for h := range n.handles {
		if h.cached {
			return true
		}
	}
	return false
}

// fromCut completes dest, read at off for the page cache and cut short by
// the file's end after m bytes, from what a truncation running now cut off
// (shrink); it returns how many bytes dest holds.
func (n *node) fromCut(dest []byte, off int64, m int) int {
	t := n.cut.Load()
	if t == nil {
		return m
	}
	if end := off + int64(m); end < t.at || m > 0 && end != t.at {
		return m // the file's end is not where the truncation cut it
	}
	start := max(off, t.at)
	if start-t.at >= int64(len(t.data)) {
		return m
	}
	return int(start-off) + copy(dest[start-off:], t.data[start-t.at:])
}
