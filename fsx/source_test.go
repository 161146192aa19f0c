package fsx

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"go.uber.org/goleak"
)

// gatedReaderAt serves data, and holds each ReadAt at or past offset gate
// until release is closed; every such call is announced on reached first.
type gatedReaderAt struct {
	data    []byte
	gate    int64
	fail    error // returned by reads at or past the gate, when set
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
		if g.fail != nil {
			return 0, g.fail
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
	for i, gate := range starts[1:] {
		prev := starts[i]
		t.Run("", func(t *testing.T) {
			g := newGated(data, gate)
			var c chunkReader
			c.reset(io.NewSectionReader(g, 0, size), readAhead)
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
			var total int64
			for _, call := range g.calls {
				if call[0] != total {
					t.Errorf("read at %d, want %d: %v", call[0], total, g.calls)
				}
				total += call[1]
			}
			if total != size {
				t.Errorf("read %d bytes from the base, want %d", total, size)
			}
		})
	}
}

// TestPrefetchReaders reads sections through every testing/iotest reader.
func TestPrefetchReaders(t *testing.T) {
	data := make([]byte, 7<<20+3)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, first := range []int{readAhead, readChunk} {
		var c chunkReader
		c.reset(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), first)
		if err := iotest.TestReader(&c, data); err != nil {
			t.Error(err)
		}
		c.stop()
	}
}

// TestPrefetchError checks that a base error met in the background shows
// after all the bytes before it.
func TestPrefetchError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // not what other tests left
	const size = 9 << 20
	data := bytes.Repeat([]byte("0123456"), size/7+1)[:size]
	starts := chunkBounds(size, readAhead)
	gate := starts[len(starts)-1]
	g := newGated(data, gate)
	g.fail = errors.New("connection reset")
	var c chunkReader
	c.reset(io.NewSectionReader(g, 0, size), readAhead)
	got := make([]byte, gate)
	if _, err := io.ReadFull(&c, got[:gate-1]); err != nil {
		t.Fatal(err)
	}
	g.waitReached(t)
	close(g.release)
	if _, err := io.ReadFull(&c, got[gate-1:]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data[:gate]) {
		t.Fatal("content before the error differs")
	}
	if n, err := c.Read(make([]byte, 10)); n != 0 || err != g.fail {
		t.Fatalf("Read at the failing chunk = %d, %v; want 0, %v", n, err, g.fail)
	}
	c.stop()
}

// TestPrefetchStop checks that stopping a reader waits for the chunk being
// read in the background, whose buffer it would otherwise hand to the next
// reader while the base still writes into it.
func TestPrefetchStop(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // not what other tests left
	const size = 6 << 20
	data := make([]byte, size)
	starts := chunkBounds(size, readAhead)
	gate := starts[len(starts)-1]
	g := newGated(data, gate)
	var c chunkReader
	c.reset(io.NewSectionReader(g, 0, size), readAhead)
	if _, err := io.ReadFull(&c, make([]byte, gate-1)); err != nil {
		t.Fatal(err)
	}
	g.waitReached(t)
	stopped := make(chan struct{})
	go func() {
		c.stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("stop returned while the base was still reading into the reader's buffer")
	case <-time.After(50 * time.Millisecond):
	}
	close(g.release)
	<-stopped
}
