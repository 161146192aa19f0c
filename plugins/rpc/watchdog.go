package rpc

import (
	"sync"
	"time"
)

// A watchdog ends a stream whose plugin makes no progress for a time limit.
//
// It counts only time the host spends waiting on the plugin. The host is
// busy (not waiting) while the code that uses the stream is elsewhere
// (between calls of Read or Write), while the stream reads its source and
// while it writes its output: a slow source or sink is never the plugin's
// fault. Whenever nothing on the host side is busy, the plugin has limit
// from the last sign of progress (a frame sent to it or received from it, or
// the host becoming idle) to show the next one.
type watchdog struct {
	limit time.Duration
	stall func() // called once, when the limit passes

	mu       sync.Mutex
	busy     int       // host-side operations in progress
	deadline time.Time // when the plugin stalls, if busy == 0
	timer    *time.Timer
	done     bool
}

// newWatchdog returns a watchdog with busy host-side operations already in
// progress; a limit of 0 or less returns a watchdog that never fires.
func newWatchdog(limit time.Duration, busy int, stall func()) *watchdog {
	w := &watchdog{limit: limit, stall: stall, busy: busy}
	if limit <= 0 {
		w.done = true
		return w
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = time.AfterFunc(limit, w.check)
	w.rearm()
	return w
}

// rearm starts the limit over, if the host is waiting. w.mu is held.
func (w *watchdog) rearm() {
	if w.done {
		return
	}
	if w.busy > 0 {
		w.timer.Stop()
		return
	}
	w.deadline = time.Now().Add(w.limit)
	w.timer.Reset(w.limit)
}

// enter marks the start of a host-side operation, leave its end.
func (w *watchdog) enter() { w.add(1) }
func (w *watchdog) leave() { w.add(-1) }

func (w *watchdog) add(d int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.busy += d
	w.rearm()
}

// progress notes a sign of progress from the plugin.
func (w *watchdog) progress() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.busy == 0 {
		w.rearm()
	}
}

// stop ends the watch: the stream is over.
func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.done = true
		w.timer.Stop()
	}
}

func (w *watchdog) check() {
	w.mu.Lock()
	if w.done || w.busy > 0 {
		w.mu.Unlock()
		return
	}
	if left := time.Until(w.deadline); left > 0 {
		w.timer.Reset(left) // rearmed while this call was on its way
		w.mu.Unlock()
		return
	}
	w.done = true
	w.mu.Unlock()
	w.stall()
}
