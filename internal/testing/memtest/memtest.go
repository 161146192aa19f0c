// Package memtest measures the heap a piece of code holds, for tests that
// bound memory by the size of their input rather than by time or luck.
package memtest

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// LiveHeap returns the bytes of the heap in use, after collections that
// leave nothing in the pools.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// PeakHeap runs f with the garbage collector running whenever the heap has
// grown by a tenth, and returns the most heap in use that a collection
// found meanwhile, beyond what was in use before.
func PeakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	base := LiveHeap()
	var most atomic.Uint64
	var done atomic.Bool
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	// A finalizer runs after each collection, and sets itself again.
	var measure func(*[64]byte)
	measure = func(*[64]byte) {
		metrics.Read(live)
		most.Store(max(most.Load(), live[0].Value.Uint64()))
		if !done.Load() {
			runtime.SetFinalizer(new([64]byte), measure)
		}
	}
	runtime.SetFinalizer(new([64]byte), measure)
	f()
	done.Store(true)
	return most.Load() - min(base, most.Load())
}
