package fsx

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/spf13/afero"
	"go.uber.org/goleak"
)

// gatedReaderAt serves data, and holds each ReadAt at or past offset gate
// until release is closed; every such call is announced on reached first.
type gatedReaderAt struct {
	data    []byte
	gate    int64
	fail    error // returned once, by the read that starts at the gate, when set
	reached chan int64
	release chan struct{}

	mu    sync.Mutex
	calls [][2]int64 // offset and length of each ReadAt
}

func newGated(data []byte, gate int64) *gatedReaderAt {
	return &gatedReaderAt{data: data, gate: gate, reached: make(chan int64, 16), release: make(chan struct{})}
}

func (g *gatedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	g.mu.Lock()
	g.calls = append(g.calls, [2]int64{off, int64(len(p))})
	g.mu.Unlock()
	if off+int64(len(p)) > g.gate {
		g.reached <- off
		<-g.release
		g.mu.Lock()
		fail := g.fail
		if off != g.gate {
			fail = nil
		} else {
			g.fail = nil
		}
		g.mu.Unlock()
		if fail != nil {
			return 0, fail
		}
	}
	if off >= int64(len(g.data)) {
		return 0, io.EOF
	}
	n := copy(p, g.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// waitReached waits for a ReadAt at or past the gate.
func (g *gatedReaderAt) waitReached(t *testing.T) {
	t.Helper()
	select {
	case <-g.reached:
	case <-time.After(10 * time.Second):
		close(g.release)
		t.Fatal("the chunk at the gate was not asked for in the background")
	}
}

// chunkBounds returns where the chunks of a sequential read of size bytes
// start, the first of first bytes.
func chunkBounds(size int64, first int) []int64 {
	var starts []int64
	for off, n := int64(0), int64(first); off < size; off, n = off+n, min(2*n, readChunk) {
		starts = append(starts, off)
	}
	return starts
}

// TestPrefetch checks that a sequential read asks the base for the next
// chunk before its reader has consumed the current one, once its chunks
// are prefetchFrom bytes long (and the next is too), and never earlier;
// and that it reads each stored byte once, and no byte past its section.
func TestPrefetch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // not what other tests left
	const size = 11<<20 + 12345
	data := make([]byte, size+1000) // more than the section holds
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	starts := chunkBounds(size, readAhead)
	for _, ahead := range []int{1, 2} {
		for i, gate := range starts[1:] {
			prev := starts[i]
			t.Run(fmt.Sprintf("ahead=%d/gate=%d", ahead, gate), func(t *testing.T) {
				testPrefetchAt(t, data, size, ahead, prev, gate)
			})
		}
	}
}

// testPrefetchAt reads size bytes of data through a chunkReader reading
// ahead chunks ahead, checking that the chunk at gate, which follows the one
// at prev, is asked for before the reader needs it if it is prefetchFrom
// bytes long, and only when needed otherwise.
func testPrefetchAt(t *testing.T, data []byte, size int64, ahead int, prev, gate int64) {
	g := newGated(data, gate)
	var c chunkReader
	c.reset(io.NewSectionReader(g, 0, size), readAhead, ahead)
	defer c.stop()
	// Read all bytes before the chunk that starts at the gate, but the
	// last one.
	got := make([]byte, gate-1)
	if _, err := io.ReadFull(&c, got); err != nil {
		t.Fatal(err)
	}
	// The chunk at the gate is twice as long as the one before.
	wantAhead := min(2*(gate-prev), readChunk, size-gate) >= prefetchFrom
	select {
	case <-g.reached:
		if !wantAhead {
			t.Fatalf("the chunk at %d was asked for before the one at %d was read: chunks shorter than %d are read when needed", gate, prev, prefetchFrom)
		}
	case <-time.After(map[bool]time.Duration{true: 10 * time.Second, false: 50 * time.Millisecond}[wantAhead]):
		if wantAhead {
			t.Fatalf("the chunk at %d was not asked for while the reader read the one at %d", gate, prev)
		}
	}
	close(g.release)
	rest, err := io.ReadAll(&c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, rest...), data[:size]) {
		t.Fatal("content differs")
	}
	g.checkCovered(t, size)
}

// checkCovered checks that the ReadAt calls g served read each of the first
// size bytes once, and none past them.
func (g *gatedReaderAt) checkCovered(t *testing.T, size int64) {
	t.Helper()
	calls := slices.Clone(g.calls) // reads in the background start in any order
	slices.SortFunc(calls, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var total int64
	for _, call := range calls {
		if call[0] != total {
			t.Errorf("read at %d, want %d: %v", call[0], total, calls)
		}
		total += call[1]
	}
	if total != size {
		t.Errorf("read %d bytes from the base, want %d", total, size)
	}
}

// TestPrefetchReaders reads sections through every testing/iotest reader.
func TestPrefetchReaders(t *testing.T) {
	t.Parallel()
	data := make([]byte, 7<<20+3)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, ahead := range []int{1, 2} {
		for _, first := range []int{readAhead, readChunk} {
			var c chunkReader
			c.reset(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), first, ahead)
			if err := iotest.TestReader(&c, data); err != nil {
				t.Errorf("ahead %d, first %d: %v", ahead, first, err)
			}
			c.stop()
		}
	}
}

// readToGate starts a chunkReader reading ahead chunks ahead over data, of
// which the section is the first size bytes, gated at the start of the
// chunk at index i of chunkBounds (negative: from the end), and reads all
// the bytes before the gate but the last one, which it returns.
func readToGate(t *testing.T, data []byte, size int64, i, ahead int) (*gatedReaderAt, *chunkReader, []byte) {
	t.Helper()
	starts := chunkBounds(size, readAhead)
	if i < 0 {
		i += len(starts)
	}
	g := newGated(data, starts[i])
	c := new(chunkReader)
	c.reset(io.NewSectionReader(g, 0, size), readAhead, ahead)
	got := make([]byte, g.gate-1)
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	return g, c, got
}

// TestPrefetchInFlight checks that a sequential read keeps as many chunks
// in flight as it reads ahead, and no more.
func TestPrefetchInFlight(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // not what other tests left
	const size = 21 << 20
	data := make([]byte, size)
	for _, ahead := range []int{1, 2} {
		g, c, _ := readToGate(t, data, size, -4, ahead)
		for range ahead {
			g.waitReached(t)
		}
		select {
		case off := <-g.reached:
			t.Errorf("ahead %d: the chunk at %d was asked for too while %d were in flight", ahead, off, ahead)
		case <-time.After(50 * time.Millisecond):
		}
		close(g.release)
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatal(err)
		}
		c.stop()
		g.checkCovered(t, size)
	}
}

// TestPrefetchError checks that a base error met in the background shows
// after all the bytes before it, that chunks read ahead past it are
// dropped, and that the next read asks the base again from where it failed.
func TestPrefetchError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // not what other tests left
	const size = 13 << 20
	data := bytes.Repeat([]byte("0123456"), size/7+1)[:size]
	fail := errors.New("connection reset")
	for _, ahead := range []int{1, 2} {
		// The gate is a chunk ahead of the reader, with another after it.
		g, c, got := readToGate(t, data, size, -2, ahead)
		g.mu.Lock()
		g.fail = fail
		g.mu.Unlock()
		gate := g.gate
		for range ahead {
			g.waitReached(t)
		}
		close(g.release)
		got = append(got, 0)
		if _, err := io.ReadFull(c, got[gate-1:]); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data[:gate]) {
			t.Fatal("content before the error differs")
		}
		if n, err := c.Read(make([]byte, 10)); n != 0 || err != fail {
			t.Fatalf("ahead %d: Read at the failing chunk = %d, %v; want 0, %v", ahead, n, err, fail)
		}
		rest, err := io.ReadAll(c)
		if err != nil || !bytes.Equal(rest, data[gate:]) {
			t.Fatalf("ahead %d: after the error, read %d bytes (%v), want the %d from the failed chunk on", ahead, len(rest), err, size-gate)
		}
		c.stop()
	}
}

// TestPrefetchStop checks that stopping a reader waits for the chunks being
// read in the background, whose buffers it would otherwise hand to the
// next reader while the base still writes into them.
func TestPrefetchStop(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // not what other tests left
	const size = 6 << 20
	data := make([]byte, size)
	for _, ahead := range []int{1, 2} {
		g, c, _ := readToGate(t, data, size, -1, ahead)
		g.waitReached(t)
		stopped := make(chan struct{})
		go func() {
			c.stop()
			close(stopped)
		}()
		select {
		case <-stopped:
			t.Fatalf("ahead %d: stop returned while the base was still reading into the reader's buffer", ahead)
		case <-time.After(50 * time.Millisecond):
		}
		close(g.release)
		<-stopped
	}
}

// shortReaderAt returns fewer bytes than asked for, and no error, at every
// other call, which io.ReaderAt forbids; with none set, no bytes at all.
type shortReaderAt struct {
	data  []byte
	none  bool
	calls atomic.Int64
}

func (s *shortReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if s.none {
		return 0, nil
	}
	if off >= int64(len(s.data)) {
		return 0, io.EOF
	}
	n := copy(p, s.data[off:])
	if s.calls.Add(1)%2 == 0 && n > 1 {
		return n / 2, nil
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestPrefetchShortReads checks that a base whose ReadAt returns short
// reads without an error still gives every byte in order, read ahead or
// not, and that one returning nothing and no error gives io.ErrNoProgress
// rather than a read that never ends.
func TestPrefetchShortReads(t *testing.T) {
	t.Parallel()
	data := make([]byte, 13<<20+77)
	for i := range data {
		data[i] = byte(i * 13 >> 3)
	}
	for _, ahead := range []int{1, 2} {
		var c chunkReader
		c.reset(io.NewSectionReader(&shortReaderAt{data: data}, 0, int64(len(data))), readAhead, ahead)
		got, err := io.ReadAll(&c)
		c.stop()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("ahead %d: read %d bytes (%v), other than the %d stored", ahead, len(got), err, len(data))
		}
		c.reset(io.NewSectionReader(&shortReaderAt{none: true}, 0, 1000), readAhead, ahead)
		if n, err := c.Read(make([]byte, 10)); n != 0 || err != io.ErrNoProgress {
			t.Errorf("ahead %d: Read over a base that returns nothing = %d, %v; want 0, io.ErrNoProgress", ahead, n, err)
		}
		c.stop()
	}
}

// TestOSFileConcurrent checks that fsx reads an *os.File base, also seen
// through an afero.BasePathFs, without ordering its ReadAt calls: pread(2)
// takes them at once.
func TestOSFileConcurrent(t *testing.T) {
	base := afero.NewBasePathFs(afero.NewOsFs(), t.TempDir())
	if err := afero.WriteFile(base, "f", []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := base.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !newBaseReaderAt(f).concurrent {
		t.Error("an *os.File's ReadAt calls are ordered")
	}
	if newBaseReaderAt(bytes.NewReader(nil)).concurrent {
		t.Error("a ReaderAt that does not say so is read at once")
	}
}
