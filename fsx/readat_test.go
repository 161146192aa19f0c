package fsx_test

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestSequentialReadAt checks that short ReadAt calls that each start where
// the previous one ended, as a program reading a file through ReadAt in
// pieces does, cost a few growing reads of the base, while ReadAt calls in
// any other order cost one base read each.
func TestSequentialReadAt(t *testing.T) {
	t.Parallel()
	const size, piece = 16 << 20, 64 << 10
	content := randomBytes(size, 5)
	base := &countingFs{Fs: afero.NewMemMapFs()}
	fsys := newFs(t, base, base16384.NewCodec())
	mustWrite(t, fsys, "f", content)

	read := func(t *testing.T, offsets []int64) int64 {
		f, err := fsys.Open("f")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		before := base.reads.Load()
		p := make([]byte, piece)
		for _, off := range offsets {
			n, err := f.ReadAt(p, off)
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if !bytes.Equal(p[:n], content[off:off+int64(n)]) {
				t.Fatalf("ReadAt(%d) differs", off)
			}
		}
		return base.reads.Load() - before
	}
	var offsets []int64
	for off := int64(0); off < size; off += piece {
		offsets = append(offsets, off)
	}
	if n := read(t, offsets); n > 16 {
		t.Errorf("%d sequential ReadAt calls of %d bytes read the base %d times, want at most 16", len(offsets), piece, n)
	}
	// In a stride of 37 pieces (prime to their count): no call starts where
	// the one before it ended.
	for i := range offsets {
		offsets[i] = int64(i*37%len(offsets)) * piece
	}
	if n := read(t, offsets); n != int64(len(offsets)) {
		t.Errorf("%d ReadAt calls out of order read the base %d times, want one each", len(offsets), n)
	}
}

// TestConcurrentSequentialReadAt reads one open file from several
// goroutines, each reading its own part in order, so that their calls
// interleave: every byte must be right.
func TestConcurrentSequentialReadAt(t *testing.T) {
	t.Parallel()
	const size, parts = 6<<20 + 17, 4
	content := randomBytes(size, 6)
	fsys := newFs(t, afero.NewMemMapFs(), base16384.NewCodec())
	mustWrite(t, fsys, "f", content)
	f, err := fsys.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			start, end := int64(i)*size/parts, int64(i+1)*size/parts
			p := make([]byte, 50000)
			for off := start; off < end; off += int64(len(p)) {
				q := p[:min(int64(len(p)), end-off)]
				if _, err := f.ReadAt(q, off); err != nil && err != io.EOF {
					t.Error(err)
					return
				}
				if !bytes.Equal(q, content[off:off+int64(len(q))]) {
					t.Errorf("ReadAt(%d) differs", off)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestCursorStartsWhole checks that a sequential ReadAt that has to start
// the cursor (the first to continue where another read ended) reads its
// blocks from the base in one read, not in the cursor's short first reads
// growing to its length.
func TestCursorStartsWhole(t *testing.T) {
	t.Parallel()
	const piece = 96 << 10 // less than reads its own blocks anyway
	content := randomBytes(4*piece, 6)
	base := &countingFs{Fs: afero.NewMemMapFs()}
	fsys := newFs(t, base, base16384.NewCodec())
	mustWrite(t, fsys, "f", content)
	f, err := fsys.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, piece)
	if _, err := f.ReadAt(p, piece); err != nil { // no cursor yet
		t.Fatal(err)
	}
	before := base.reads.Load()
	if _, err := f.ReadAt(p, 2*piece); err != nil || !bytes.Equal(p, content[2*piece:3*piece]) {
		t.Fatalf("ReadAt: %v, or other bytes than written", err)
	}
	if n := base.reads.Load() - before; n != 1 {
		t.Errorf("a ReadAt of %d bytes that starts the cursor read the base %d times, want 1", piece, n)
	}
}
