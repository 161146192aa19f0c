package fsx_test

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/core"
)

// eager is gz whose decoder reads its source ahead from a goroutine of its
// own, as a plugin's stream does: its Close ends the goroutine and returns
// once the goroutine reads the source no more.
type eager struct{ gz }

func (eager) Name() string { return "eager" }

func (e eager) NewDecodeReader(r io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	d := &eagerReader{dec: e.gz.NewDecodeReader(pr), pr: pr, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		buf := make([]byte, 512)
		for {
			n, err := r.Read(buf)
			if _, werr := pw.Write(buf[:n]); werr != nil {
				return
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return d
}

type eagerReader struct {
	dec  io.ReadCloser
	pr   *io.PipeReader
	done chan struct{} // closed when the goroutine reads the source no more
	once sync.Once
}

func (d *eagerReader) Read(p []byte) (int, error) { return d.dec.Read(p) }

func (d *eagerReader) Close() error {
	d.once.Do(func() { d.pr.CloseWithError(core.ErrClosed) })
	<-d.done
	return d.dec.Close()
}

// TestCloseBeforeSourceReuse reads a few bytes of files whose decoders read
// their source from a goroutine, and closes them, many times: fsx closes
// such a decoder before it stops the reader of the stored bytes and reuses
// it for another file (run with -race).
func TestCloseBeforeSourceReuse(t *testing.T) {
	t.Parallel()
	base := afero.NewMemMapFs()
	fsys := newFs(t, base, eager{})
	want := randomBytes(1<<18, 7)
	mustWrite(t, fsys, "f", want)
	for range 200 {
		f, err := fsys.Open("f")
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 16)
		if _, err := io.ReadFull(f, got); err != nil || !bytes.Equal(got, want[:16]) {
			t.Fatalf("read %x, %v; want %x", got, err, want[:16])
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
