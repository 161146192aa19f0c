// Package parallel runs the calls of a loop at once, a bounded number at a
// time: for work that mostly waits, such as lookups over a network, where
// N calls one after the other take N round trips.
package parallel

import (
	"sync"
	"sync/atomic"
)

// For calls fn(i) for each i in [0, n), up to limit calls at once, taking
// the i in increasing order, and returns when all calls have returned.
// With a limit of 1 or less it calls them one after the other.
func For(n, limit int, fn func(i int)) {
	if limit <= 1 || n <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(limit, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
