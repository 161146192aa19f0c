package main

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

const (
	// progressDelay is how long a conversion runs before auto progress
	// shows: quick ones never draw anything.
	progressDelay = time.Second
	// progressInterval is how often progress is redrawn.
	progressInterval = 150 * time.Millisecond
)

// progressModes are the values of --progress.
var progressModes = []string{"auto", "always", "never"}

// progressDelayFor interprets the --progress flag for a conversion whose
// diagnostics go to errOut and whose output goes to a terminal or not, and
// returns how long to wait before showing progress, or -1 for never. auto
// follows curl: progress on standard error when that is a terminal and the
// output is not, after progressDelay; always shows it at once, wherever
// standard error goes.
func progressDelayFor(mode string, errOut io.Writer, outputIsTerminal bool) (time.Duration, error) {
	switch mode {
	case "always":
		return 0, nil
	case "never":
		return -1, nil
	case "auto":
		if isTerminal(errOut) && !outputIsTerminal {
			return progressDelay, nil
		}
		return -1, nil
	}
	return -1, usageError{fmt.Errorf("--progress %q: want auto, always or never", mode)}
}

// progress counts the bytes read through it and, once delay has passed,
// draws a progress bar on w (size, rate, and the ETA when the total is
// known) until stopped, which clears it after a delay (auto) and leaves
// its final state on a line of its own otherwise (always, for logs).
type progress struct {
	r    io.Reader
	n    atomic.Int64
	done chan struct{}
	wg   sync.WaitGroup
}

// startProgress returns r counted, with progress for the conversion named
// verb of total bytes (-1 when unknown) drawn on w after delay.
func startProgress(w io.Writer, verb string, r io.Reader, total int64, delay time.Duration) *progress {
	p := &progress{r: r, done: make(chan struct{})}
	p.wg.Go(func() {
		if delay > 0 {
			select {
			case <-p.done:
				return
			case <-time.After(delay):
			}
		}
		opts := []progressbar.Option{
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(verb),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionUseIECUnits(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionSetPredictTime(total >= 0),
			progressbar.OptionSetElapsedTime(total < 0),
			progressbar.OptionSetSpinnerChangeInterval(0),
		}
		if delay > 0 {
			opts = append(opts, progressbar.OptionClearOnFinish())
		}
		bar := progressbar.NewOptions64(total, opts...)
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			bar.Set64(p.n.Load())
			select {
			case <-t.C:
			case <-p.done:
				bar.Set64(p.n.Load())
				bar.Finish()
				if delay == 0 {
					fmt.Fprintln(w)
				}
				return
			}
		}
	})
	return p
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n.Add(int64(n))
	return n, err
}

// stop ends the progress and clears what it drew.
func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
}
