package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// progressInterval is how often progress is redrawn.
const progressInterval = 200 * time.Millisecond

// progressEnabled interprets the --progress flag: "auto" shows progress when
// w is a terminal.
func progressEnabled(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, usageError{fmt.Errorf("--progress %q: want auto, always or never", mode)}
}

// progress counts the bytes read through it and redraws a status line on w
// until stopped.
type progress struct {
	r     io.Reader
	n     atomic.Int64
	done  chan struct{}
	wg    sync.WaitGroup
	w     io.Writer
	verb  string
	total int64 // -1 when unknown
	start time.Time
}

func startProgress(w io.Writer, verb string, r io.Reader, total int64) *progress {
	p := &progress{r: r, done: make(chan struct{}), w: w, verb: verb, total: total, start: time.Now()}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.draw("\r")
			case <-p.done:
				p.draw("\r")
				fmt.Fprintln(p.w)
				return
			}
		}
	}()
	return p
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n.Add(int64(n))
	return n, err
}

func (p *progress) draw(prefix string) {
	n := p.n.Load()
	rate := float64(n) / max(time.Since(p.start).Seconds(), 1e-3)
	if p.total > 0 {
		fmt.Fprintf(p.w, "%s%s: %3d%% %s of %s, %s/s ", prefix, p.verb, n*100/p.total, size(float64(n)), size(float64(p.total)), size(rate))
	} else {
		fmt.Fprintf(p.w, "%s%s: %s, %s/s ", prefix, p.verb, size(float64(n)), size(rate))
	}
}

func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
}

// size formats a byte count with a binary unit.
func size(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}
