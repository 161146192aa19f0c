//go:build unix

// Package guardpage gives tests buffers that lie right against memory that
// cannot be touched, so that a read or write one byte outside a buffer
// faults instead of passing unseen: the check for code (assembly above all)
// that must stay inside the slices it is given.
package guardpage

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Region maps size bytes (rounded up to whole pages) between two
// inaccessible pages and returns them; any access before or after faults.
// The mapping is removed when the test ends.
func Region(t testing.TB, size int) []byte {
	t.Helper()
	page := unix.Getpagesize()
	size = (size + page - 1) / page * page
	m, err := unix.Mmap(-1, 0, size+2*page, unix.PROT_NONE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	region := m[page : page+size : page+size]
	if err := unix.Mprotect(region, unix.PROT_READ|unix.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	return region
}

// Place returns a slice of region as long as b, at its start or, with
// atEnd, at its end (so that the byte after it faults), holding a copy of b.
// The slice's capacity is its length.
func Place(region, b []byte, atEnd bool) []byte {
	if atEnd {
		region = region[len(region)-len(b):]
	}
	region = region[:len(b):len(b)]
	copy(region, b)
	return region
}
