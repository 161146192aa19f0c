package fsx_test

import (
	"bytes"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/afero"
	"go.uber.org/goleak"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestCloseMidRead opens files of every codec, reads a little of each and
// closes them: no goroutine and no open base file may be left. What ran
// before (the servers of remote bases, a client's connection) is no leak;
// nor are the idle connections a remote base's client keeps, which are
// closed before counting: a response body left open keeps its connection
// busy, and shows.
func TestCloseMidRead(t *testing.T) {
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		content := randomBytes(100000, 3)
		mustWrite(t, fsys, "f", content)
		opens := 1000
		if can(base).remote {
			opens = 100
		}
		can(base).closeIdle()
		before := goleak.IgnoreCurrent()
		fds := can(base).openFiles()
		for i := range opens {
			f, err := fsys.Open("f")
			if err != nil {
				t.Fatal(err)
			}
			p := make([]byte, 1+i%50)
			if i%2 == 0 {
				_, err = f.Read(p)
			} else {
				_, err = f.ReadAt(p, int64(i*97))
			}
			if err != nil && err != io.EOF {
				t.Fatalf("read %d: %v", i, err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
		can(base).closeIdle()
		goleak.VerifyNone(t, before)
		if n := can(base).openFiles(); n > fds {
			t.Errorf("%d files open after closing them all, %d before", n, fds)
		}
	})
}

// openFiles returns how many file descriptors the process has open, or 0
// where /proc does not tell.
func openFiles() int {
	fds, _ := os.ReadDir("/proc/self/fd")
	return len(fds)
}

// liveDecoders is a codec whose decoders count how many of them are open,
// and that is no block codec, so that fsx decodes its files from the start
// with a decoder it keeps between reads.
type liveDecoders struct {
	core.Codec
	live *atomic.Int64
}

func (c liveDecoders) NewDecodeReader(r io.Reader) io.ReadCloser {
	c.live.Add(1)
	return &countedReader{ReadCloser: c.Codec.NewDecodeReader(r), live: c.live}
}

type countedReader struct {
	io.ReadCloser
	live   *atomic.Int64
	closed bool
}

func (r *countedReader) Close() error {
	if !r.closed {
		r.closed = true
		r.live.Add(-1)
	}
	return r.ReadCloser.Close()
}

// TestReloadWhileReading makes an open file load its stored file again (a
// Stat that finds it changed underneath) while other goroutines read it,
// sequentially and at offsets: reads see whole content, the race detector
// sees no race, and the decoders of the content replaced are closed, by the
// reload or by the read that was using one.
func TestReloadWhileReading(t *testing.T) {
	var live atomic.Int64
	c := liveDecoders{Codec: base16384.NewCodec(), live: &live}
	base := afero.NewMemMapFs()
	fsys := newFs(t, base, c)
	content := randomBytes(5000, 7)
	mustWrite(t, fsys, "f", content)
	f, err := fsys.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			p := make([]byte, 100)
			for i := range 200 {
				off := int64((i*131 + g*17) % (len(content) - len(p)))
				var n int
				var err error
				if g == 0 {
					n, err = f.Read(p) // the file's offset: a decoder kept
					if err == io.EOF {
						f.Seek(0, io.SeekStart)
						continue
					}
				} else {
					n, err = f.ReadAt(p, off)
				}
				if err != nil {
					t.Errorf("read: %v", err)
					return
				}
				if g != 0 && !bytes.Equal(p[:n], content[off:off+int64(n)]) {
					t.Errorf("ReadAt(%d) does not read the content", off)
					return
				}
			}
		})
	}
	for i := range 200 {
		// A change of time underneath, which the next Stat loads.
		if err := base.Chtimes("f", time.Unix(int64(i), 0), time.Unix(int64(i), 0)); err != nil {
			t.Fatal(err)
		}
		if _, err := fsys.Stat("f"); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if _, err := f.Read(make([]byte, 10)); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n := live.Load(); n != 0 {
		t.Errorf("%d decoders left open after Close", n)
	}
}
