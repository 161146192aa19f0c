package fsx_test

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

// concurrentFs is a base whose files report concurrent (fsx.ConcurrentReaderAt)
// and count the most ReadAt calls that ran at once. While meet is set,
// each ReadAt waits, up to patience, until two have run at once.
type concurrentFs struct {
	afero.Fs
	concurrent bool
	patience   time.Duration

	mu      sync.Mutex
	meet    bool
	inside  int
	most    int
	arrived *sync.Cond
}

func newConcurrentFs(base afero.Fs, concurrent bool, patience time.Duration) *concurrentFs {
	c := &concurrentFs{Fs: base, concurrent: concurrent, patience: patience}
	c.arrived = sync.NewCond(&c.mu)
	return c
}

// counts returns how many ReadAt calls run now, and the most that ran at
// once.
func (c *concurrentFs) counts() (inside, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inside, c.most
}

// meeting makes ReadAt calls wait for one another, or stops that, and
// resets the count of calls at once.
func (c *concurrentFs) meeting(on bool) {
	c.mu.Lock()
	c.meet, c.most = on, 0
	c.mu.Unlock()
}

func (c *concurrentFs) Open(name string) (afero.File, error) {
	f, err := c.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return &concurrentFile{File: f, fs: c}, nil
}

type concurrentFile struct {
	afero.File
	fs *concurrentFs
}

func (f *concurrentFile) ConcurrentReadAt() bool { return f.fs.concurrent }

func (f *concurrentFile) ReadAt(p []byte, off int64) (int, error) {
	c := f.fs
	c.mu.Lock()
	c.inside++
	c.most = max(c.most, c.inside)
	c.arrived.Broadcast()
	if c.meet {
		deadline := time.Now().Add(c.patience)
		timer := time.AfterFunc(c.patience, func() {
			c.mu.Lock()
			c.arrived.Broadcast()
			c.mu.Unlock()
		})
		for c.most < 2 && time.Now().Before(deadline) {
			c.arrived.Wait()
		}
		timer.Stop()
	}
	c.mu.Unlock()
	n, err := f.File.ReadAt(p, off)
	c.mu.Lock()
	c.inside--
	c.mu.Unlock()
	return n, err
}

var _ fsx.ConcurrentReaderAt = (*concurrentFile)(nil)

// TestConcurrentReaderAt checks that ReadAt calls on one fsx file run at
// once on a base file that is a fsx.ConcurrentReaderAt reporting true, also
// through an afero.BasePathFs, and one at a time on one reporting false.
func TestConcurrentReaderAt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		concurrent bool
		basePath   bool // seen through an afero.BasePathFs
	}{
		{"concurrent", true, false},
		{"concurrent/BasePathFs", true, true},
		{"serialized", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			patience := map[bool]time.Duration{true: 10 * time.Second, false: 50 * time.Millisecond}[tc.concurrent]
			base := newConcurrentFs(afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()), tc.concurrent, patience)
			var shown afero.Fs = base
			if tc.basePath {
				shown = afero.NewBasePathFs(base, "/")
			}
			fsys := newFs(t, shown, base16384.NewCodec())
			data := randomBytes(1<<20, 5)
			mustWrite(t, fsys, "x", data)
			f, err := fsys.Open("x")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			base.meeting(true)
			var wg sync.WaitGroup
			var bad atomic.Int32
			for g := range 2 {
				wg.Go(func() {
					for i := range 3 {
						off := int64(g*400_000 + i*100_000)
						p := make([]byte, 4096)
						if _, err := f.ReadAt(p, off); err != nil || !bytes.Equal(p, data[off:off+4096]) {
							bad.Add(1)
						}
					}
				})
			}
			wg.Wait()
			_, most := base.counts()
			base.meeting(false)
			if bad.Load() != 0 {
				t.Fatalf("%d reads failed or read other bytes", bad.Load())
			}
			if want := map[bool]int{true: 2, false: 1}[tc.concurrent]; most != want {
				t.Errorf("%d base reads ran at once, want %d", most, want)
			}
		})
	}
}

// TestConcurrentReaderAtSequential reads files of many lengths whole, over a
// base whose files read concurrently, as reads ahead are then two chunks at
// a time.
func TestConcurrentReaderAtSequential(t *testing.T) {
	t.Parallel()
	base := newConcurrentFs(afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()), true, time.Millisecond)
	fsys := newFs(t, base, base16384.NewCodec())
	base.meeting(true)
	for _, n := range []int{0, 1, 1<<20 - 1, 3<<20 + 5, 13 << 20} {
		data := randomBytes(n, uint64(n))
		name := fmt.Sprint("f", n)
		mustWrite(t, fsys, name, data)
		for _, how := range []string{"Read", "ReadAt"} {
			f, err := fsys.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 0, n)
			p := make([]byte, 128<<10)
			for {
				var m int
				if how == "Read" {
					m, err = f.Read(p)
				} else {
					m, err = f.ReadAt(p, int64(len(got)))
				}
				got = append(got, p[:m]...)
				if err != nil {
					break
				}
			}
			f.Close()
			if !bytes.Equal(got, data) {
				t.Errorf("%d bytes in %s calls: read %d bytes, other than written (%v)", n, how, len(got), err)
			}
		}
	}
	if base.most < 2 {
		t.Errorf("at most %d base reads ran at once, want 2", base.most)
	}
}

// TestConcurrentLayout checks that the size of a file over a base whose
// files read concurrently comes from one read of both ends at once (one
// round trip to a network base), and that it is right for sizes around the
// ends' length.
func TestConcurrentLayout(t *testing.T) {
	t.Parallel()
	// A file whose stored bytes one read holds waits out the patience.
	base := newConcurrentFs(afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()), true, time.Second)
	fsys := newFs(t, base, base16384.NewCodec())
	for _, n := range []int{0, 1, 7, 3000, 3583, 3584, 3585, 7000, 7168, 7200, 100_000} {
		name := fmt.Sprint("f", n)
		data := randomBytes(n, uint64(n))
		mustWrite(t, fsys, name, data)
		base.meeting(true)
		start := time.Now()
		info, err := fsys.Stat(name)
		took := time.Since(start)
		base.mu.Lock()
		most := base.most
		base.mu.Unlock()
		base.meeting(false)
		if err != nil || info.Size() != int64(n) {
			t.Errorf("Stat of %d bytes: %v, %v", n, info, err)
			continue
		}
		if stored, _ := base.Stat(name + ".b14"); stored.Size() > 4096 && most < 2 {
			t.Errorf("Stat of %d bytes (%d stored): its base reads ran one at a time (%v)", n, stored.Size(), took)
		}
		checkContent(t, fsys, name, data)
	}
}

// TestSequentialReadsAtOnce sends a ReadAt that continues where another,
// still running, will end, as the kernel's readahead through a --cache
// mount does: it decodes its own blocks at once, without waiting for the cursor
// the other holds. (Waiting, the two went one at a time.)
func TestSequentialReadsAtOnce(t *testing.T) {
	t.Parallel()
	base := newConcurrentFs(afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()), true, 5*time.Second)
	fsys := newFs(t, base, base16384.NewCodec())
	data := randomBytes(1<<20, 7)
	mustWrite(t, fsys, "x", data)
	f, err := fsys.Open("x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const size = 64 << 10
	read := func(off int64) error {
		p := make([]byte, size)
		if _, err := f.ReadAt(p, off); err != nil || !bytes.Equal(p, data[off:off+size]) {
			return fmt.Errorf("ReadAt at %d: %v, or other bytes than written", off, err)
		}
		return nil
	}
	if err := read(0); err != nil {
		t.Fatal(err)
	}
	base.meeting(true)
	defer base.meeting(false)
	errs := make(chan error, 2)
	go func() { errs <- read(size) }() // where the cursor stopped
	for inside := 0; inside == 0; time.Sleep(time.Millisecond) {
		inside, _ = base.counts()
	}
	go func() { errs <- read(2 * size) }() // where the first will stop
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if _, most := base.counts(); most != 2 {
		t.Errorf("%d base reads ran at once, want 2", most)
	}
}
