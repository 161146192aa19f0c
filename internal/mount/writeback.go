//go:build linux

package mount

import (
	"context"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// rawFS passes the kernel's requests on to go-fuse's file system of nodes,
// noting which WRITE requests write back pages of the kernel's cache (the
// pages of a shared mapping): those write their data at its offset even
// through a handle opened with O_APPEND, whose other writes go to the end
// of the file as it is (handle.Write), since the kernel writes a file's
// pages back through any of its writable handles.
type rawFS struct {
	fuse.RawFileSystem
	m *mnt
}

func (r rawFS) Write(cancel <-chan struct{}, in *fuse.WriteIn, data []byte) (uint32, fuse.Status) {
	defer r.m.writing(cancel, in)()
	return r.RawFileSystem.Write(cancel, in, data)
}

func (r rawFS) Writev(cancel <-chan struct{}, in *fuse.WriteIn, data [][]byte) (uint32, fuse.Status) {
	defer r.m.writing(cancel, in)()
	return r.RawFileSystem.Writev(cancel, in, data)
}

// writing notes the WRITE request in, whose cancel channel is cancel, as
// one that writes back cached pages if it is one, until the function it
// returns is called.
func (m *mnt) writing(cancel <-chan struct{}, in *fuse.WriteIn) func() {
	if in.WriteFlags&fuse.WRITE_CACHE == 0 {
		return func() {}
	}
	m.writeback.Store(cancel, struct{}{})
	return func() { m.writeback.Delete(cancel) }
}

// writesBack reports whether ctx is a WRITE request's that writes back
// cached pages.
func (m *mnt) writesBack(ctx context.Context) bool {
	c, ok := ctx.(*fuse.Context)
	if !ok {
		return false
	}
	_, ok = m.writeback.Load(c.Cancel)
	return ok
}
