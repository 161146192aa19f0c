//go:build linux

package mount

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/b14fs/b14fs/internal/fsutil/parallel"
)

const (
	// lookaheadMax is the most entries of one listing looked up ahead.
	lookaheadMax = 4096
	// lookaheadFor is how long a lookup made ahead stands for one made
	// now, once made.
	lookaheadFor = time.Second
)

// errNotLooked marks an entry a lookahead stopped before looking up.
var errNotLooked = errors.New("not looked up")

// A lookahead holds the lookups of a directory's entries that its Readdir
// starts at once, over a base whose calls each wait for a network, for the
// Lookups the kernel makes right after (readdirplus: ls, ls -l, find, du,
// rsync): a listing of N entries then takes about N/mnt.lookups lookups'
// time, not N. A lookup made ahead stands for one made
// now only while nothing was changed through the mount since the
// lookahead started (mnt.changing), and for lookaheadFor after it was
// made.
type lookahead struct {
	changes uint64 // mnt.changes when it started
	stop    context.CancelFunc
	entries map[string]*ahead // the entries not taken; guarded by the node's mu
}

// An ahead is the lookup of one entry, made or being made.
type ahead struct {
	done chan struct{} // closed when made
	info os.FileInfo
	err  error
	at   time.Time // when made
}

// lookAhead starts looking up names, entries of the directory dir that n
// shows, in place of the lookahead a Readdir of n started before.
func (n *node) lookAhead(dir string, names []string) {
	names = names[:min(len(names), lookaheadMax)]
	ctx, stop := context.WithCancel(context.Background())
	la := &lookahead{changes: n.m.changes.Load(), stop: stop, entries: make(map[string]*ahead, len(names))}
	todo := make([]*ahead, len(names))
	for i, name := range names {
		todo[i] = &ahead{done: make(chan struct{})}
		la.entries[name] = todo[i]
	}
	n.mu.Lock()
	old := n.ahead
	n.ahead = la
	n.mu.Unlock()
	if old != nil {
		old.stop()
	}
	go func() {
		parallel.For(len(todo), n.m.lookups, func(i int) {
			a := todo[i]
			if ctx.Err() != nil {
				a.err = errNotLooked
			} else {
				a.info, a.err = n.m.lstat(joinPath(dir, names[i]))
				a.at = time.Now()
			}
			close(a.done)
		})
		// Dropped when its last lookup can stand for one no more.
		time.AfterFunc(lookaheadFor, func() {
			n.mu.Lock()
			if n.ahead == la {
				n.ahead = nil
			}
			n.mu.Unlock()
			stop()
		})
	}()
}

// lookedAhead returns the lookup of the entry name that a lookahead made,
// waiting for it if it is being made, and reports whether there is one
// that stands for a lookup made now. It is taken: a second call for name
// finds none.
func (n *node) lookedAhead(name string) (os.FileInfo, error, bool) {
	n.mu.Lock()
	la := n.ahead
	var a *ahead
	if la != nil {
		a = la.entries[name]
		delete(la.entries, name)
	}
	n.mu.Unlock()
	if a == nil {
		return nil, nil, false
	}
	<-a.done
	if a.err == errNotLooked || n.m.changes.Load() != la.changes || time.Since(a.at) > lookaheadFor {
		return nil, nil, false
	}
	return a.info, a.err, true
}

// changing marks the start of an operation that changes the file system
// through the mount, and returns the function that marks its end: a
// lookahead started before either no longer stands for lookups.
func (m *mnt) changing() (done func()) {
	m.changes.Add(1)
	return func() { m.changes.Add(1) }
}
