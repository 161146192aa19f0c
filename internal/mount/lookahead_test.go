//go:build linux

package mount

import (
	"fmt"
	"testing"
	"time"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/testing/slowfs"
	"github.com/spf13/afero"
)

// TestLookahead checks the lookups a Readdir makes ahead: several at once,
// each taken by one Lookup, and none taken once something changed through
// the mount since the lookahead started.
func TestLookahead(t *testing.T) {
	t.Parallel()
	base := slowfs.New(afero.NewMemMapFs(), 20*time.Millisecond)
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("f%02d", i)
		names = append(names, name)
		if err := afero.WriteFile(base, "/"+name, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := &node{m: &mnt{fsys: base, lookups: fsx.ConcurrentLookups(base)}}
	n.lookAhead("/", names)
	for _, name := range names {
		info, err, ok := n.lookedAhead(name)
		if !ok || err != nil || info.Name() != name {
			t.Fatalf("lookedAhead(%s) = %v, %v, %v; want its lookup", name, info, err, ok)
		}
	}
	if stats, most := base.Counts(); stats != len(names) || most < 2 {
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
