package serve

import (
	"strings"
	"sync"
)

// A treeGuard keeps uploads apart from the MOVE, COPY and DELETE requests
// whose trees hold their targets. An upload is written in a stage beside
// its target and renamed into place at its end (put.go): a collection
// moved, replaced or removed meanwhile would take the stage with it, and
// the upload would be lost. While an upload is under way, such a request is
// refused with 423 Locked, and so is an upload into the tree of such a
// request under way.
type treeGuard struct {
	mu      sync.Mutex
	uploads map[string]int // the targets of the uploads under way
	changes map[string]int // the trees of the MOVE, COPY and DELETE requests under way
}

func newTreeGuard() *treeGuard {
	return &treeGuard{uploads: make(map[string]int), changes: make(map[string]int)}
}

// within reports whether the clean path p is root or lies under it.
func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// startUpload notes an upload to target, unless a request changing a tree
// that holds target is under way: then it reports false.
func (g *treeGuard) startUpload(target string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for root := range g.changes {
		if within(target, root) {
			return false
		}
	}
	g.uploads[target]++
	return true
}

// endUpload notes the end of an upload startUpload noted.
func (g *treeGuard) endUpload(target string) { g.end(g.uploads, target) }

// startChange notes a request changing the trees at roots, unless an upload
// into one of them is under way: then it reports false.
func (g *treeGuard) startChange(roots ...string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for target := range g.uploads {
		for _, root := range roots {
			if within(target, root) {
				return false
			}
		}
	}
	for _, root := range roots {
		g.changes[root]++
	}
	return true
}

// endChange notes the end of a request startChange noted.
func (g *treeGuard) endChange(roots ...string) {
	for _, root := range roots {
		g.end(g.changes, root)
	}
}

// end takes one use of key from m.
func (g *treeGuard) end(m map[string]int, key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if m[key]--; m[key] <= 0 {
		delete(m, key)
	}
}
