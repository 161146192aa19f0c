package codectest

import (
	"bytes"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/b14fs/b14fs/core"
)

// eager is the identity codec with pull streams that read their source
// ahead from a goroutine of their own. Its Close stops the goroutine and,
// when wait is set, waits for it, as a stream must; without wait, the
// goroutine may still read the source once Close has returned.
type eager struct{ wait bool }

func (eager) Name() string { return "eager" }

func (e eager) NewEncodeReader(r io.Reader) io.ReadCloser { return e.pull(r) }
func (e eager) NewDecodeReader(r io.Reader) io.ReadCloser { return e.pull(r) }

func (eager) NewEncodeWriter(w io.Writer) io.WriteCloser { return nopCloser{w} }
func (eager) NewDecodeWriter(w io.Writer) io.WriteCloser { return nopCloser{w} }

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func (e eager) pull(r io.Reader) io.ReadCloser {
	p := &eagerReader{wait: e.wait, pieces: make(chan []byte, 1<<13), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer close(p.pieces)
		for !p.stop.Load() {
			buf := make([]byte, 256)
			n, err := r.Read(buf)
			if n > 0 {
				p.pieces <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	return p
}

type eagerReader struct {
	wait    bool
	pieces  chan []byte // what the goroutine read, in order
	pending []byte
	stop    atomic.Bool
	done    chan struct{} // closed when the goroutine has returned
}

func (p *eagerReader) Read(b []byte) (int, error) {
	if p.stop.Load() {
		return 0, core.ErrClosed
	}
	if len(p.pending) == 0 {
		piece, ok := <-p.pieces
		if !ok {
			return 0, io.EOF
		}
		p.pending = piece
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}

func (p *eagerReader) Close() error {
	p.stop.Store(true)
	if p.wait {
		for range p.pieces { // the goroutine may wait to hand over a piece
		}
		<-p.done
	}
	return nil
}

// TestUsedLate checks the check of streams closed part way: it catches a
// pull stream whose goroutine reads the source once Close has returned, and
// passes one whose Close waits for its goroutine.
func TestUsedLate(t *testing.T) {
	in := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	late := usedLate(eager{}, in, in)
	if !strings.Contains(late, "pull, source") || !strings.Contains(late, "used once the stream's Close had returned") {
		t.Errorf("a stream whose goroutine outlives Close: %q, want the source used too late", late)
	}
	if late := usedLate(eager{wait: true}, in, in); late != "" {
		t.Errorf("a stream whose Close waits for its goroutine: %s", late)
	}
}
