// Package slowfs gives tests a base file system whose lookups each take a
// while, as over a network, and which counts them and how many ran at
// once: for the code that makes lookups several at once over such bases.
package slowfs

import (
	"os"
	"sync"
	"time"

	"github.com/spf13/afero"
)

// Fs is an afero.Fs whose Stat and LstatIfPossible each sleep for Delay
// before looking up, and which reports HighLatency (fsx.HighLatency), so
// that fsx, the mount and the WebDAV server take it for a base over a
// network.
type Fs struct {
	afero.Fs
	Delay time.Duration

	mu      sync.Mutex
	running int
	most    int
	calls   int
}

// New returns an Fs over base whose lookups take delay each.
func New(base afero.Fs, delay time.Duration) *Fs {
	return &Fs{Fs: base, Delay: delay}
}

// HighLatency reports true.
func (s *Fs) HighLatency() bool { return true }

// Stat looks name up after Delay.
func (s *Fs) Stat(name string) (os.FileInfo, error) {
	s.wait()
	return s.Fs.Stat(name)
}

// LstatIfPossible looks name up after Delay, without following a link
// where the base can.
func (s *Fs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	s.wait()
	if l, ok := s.Fs.(afero.Lstater); ok {
		return l.LstatIfPossible(name)
	}
	info, err := s.Fs.Stat(name)
	return info, false, err
}

func (s *Fs) wait() {
	s.mu.Lock()
	s.running++
	s.calls++
	s.most = max(s.most, s.running)
	s.mu.Unlock()
	time.Sleep(s.Delay)
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
}

// Counts returns how many lookups were made, and the most that ran at once.
func (s *Fs) Counts() (lookups, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls, s.most
}
