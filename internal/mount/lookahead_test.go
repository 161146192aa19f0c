package mount

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// slowFs is a base whose lookups each take a while, as over a network, and
// which records how many ran at once at most.
type slowFs struct {
	afero.Fs
	mu      sync.Mutex
	running int
	most    int
	stats   int
}

func (s *slowFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	s.mu.Lock()
	s.running++
	s.stats++
	s.most = max(s.most, s.running)
	s.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
	info, err := s.Fs.Stat(name)
	return info, false, err
}

func (s *slowFs) HighLatency() bool { return true }

func (s *slowFs) counts() (stats, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats, s.most
}

// TestLookahead checks the lookups a Readdir makes ahead: several at once,
// each taken by one Lookup, and none taken once something changed through
// the mount since the lookahead started.
func TestLookahead(t *testing.T) {
	t.Parallel()
	base := &slowFs{Fs: afero.NewMemMapFs()}
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("f%02d", i)
		names = append(names, name)
		if err := afero.WriteFile(base, "/"+name, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := &node{m: &mnt{fsys: base}}
	n.lookAhead("/", names)
	for _, name := range names {
		info, err, ok := n.lookedAhead(name)
		if !ok || err != nil || info.Name() != name {
			t.Fatalf("lookedAhead(%s) = %v, %v, %v; want its lookup", name, info, err, ok)
		}
	}
	if stats, most := base.counts(); stats != len(names) || most < 2 {
		t.Errorf("%d lookups, at most %d at once; want %d, several at once", stats, most, len(names))
	}
	if _, _, ok := n.lookedAhead("f00"); ok {
		t.Error("a lookup made ahead was taken twice")
	}
	if _, _, ok := n.lookedAhead("missing"); ok {
		t.Error("a name not listed was looked up ahead")
	}

	// A change through the mount, started before the lookups are taken or
	// while they are made, leaves them unused.
	for _, during := range []bool{false, true} {
		n.lookAhead("/", names)
		done := n.m.changing()
		if !during {
			done()
		}
		if _, _, ok := n.lookedAhead("f01"); ok {
			t.Errorf("a lookup made ahead was taken after a change (ended: %v)", !during)
		}
		if during {
			done()
		}
	}

	// A new listing stops the lookups of the last one.
	n.lookAhead("/", names)
	n.lookAhead("/", names[:1])
	if _, _, ok := n.lookedAhead("f39"); ok {
		t.Error("a lookup of a listing made before the last was taken")
	}
}
