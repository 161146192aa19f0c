package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/internal/testing/memtest"
	"github.com/b14fs/b14fs/torrent"
)

// manyFilesTorrent writes a v1 torrent of n files under nested
// directories to dir and returns its name and size.
func manyFilesTorrent(t *testing.T, dir string, n int) (string, int) {
	t.Helper()
	m := &torrent.MetaInfo{Announce: "udp://tracker.example.org:6969/announce"}
	in := &m.Info
	in.Name, in.PieceLength = "many", 1<<20
	var total int64
	for i := range n {
		f := torrent.File{Length: int64(i%5000 + 1), Path: []string{fmt.Sprintf("dir%02d", i*100/n), fmt.Sprintf("sub%02d", i%97), fmt.Sprintf("file%07d.dat", i)}}
		in.Files = append(in.Files, f)
		total += f.Length
	}
	in.Pieces = bytes.Repeat([]byte("0123456789abcdefghij"), int((total+in.PieceLength-1)/in.PieceLength))
	data, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "many.torrent")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name, len(data)
}

// show, verify and infohash read a torrent's files from its bytes as they
// walk them, and write them as they go: the memory they hold does not grow
// with the number of files. (A structure for each file, and the output
// held whole, took seven to ten times the torrent's size.)
func TestShowAndVerifyMemory(t *testing.T) {
	dir := t.TempDir()
	name, size := manyFilesTorrent(t, dir, 50_000)
	bound := uint64(2*size + 4<<20)
	for _, args := range [][]string{
		{"torrent", "show", name},
		{"torrent", "show", "--json", name},
		{"torrent", "verify", "--progress", "never", name, dir}, // every file missing
		{"torrent", "infohash", name},
	} {
		var errOut bytes.Buffer
		heap := memtest.PeakHeap(func() {
			if code := run(args, stdio{nil, io.Discard, &errOut}, builtin.Registry(), nil); code != exitOK && code != exitData {
				t.Fatalf("%q: exit %d: %s", args, code, errOut.String())
			}
		})
		t.Logf("%q: %d bytes of heap, torrent %d bytes", args[:2], heap, size)
		if heap > bound {
			t.Errorf("%q: %d bytes of heap in use for a torrent of %d bytes, want at most %d", args, heap, size, bound)
		}
	}

	// infohash decodes no file: it allocates about the torrent's size.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	if got := infohashes(t, name); len(got) != 40 {
		t.Fatalf("infohash %q", got)
	}
	runtime.ReadMemStats(&ms)
	if alloc, bound := ms.TotalAlloc-before, uint64(size+size/4+1<<20); alloc > bound {
		t.Errorf("infohash allocates %d bytes for a torrent of %d bytes, want at most %d", alloc, size, bound)
	}
}
