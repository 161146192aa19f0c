package parallel

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	for _, tc := range []struct{ n, limit, most int }{
		{0, 4, 0},
		{1, 4, 1},
		{10, 1, 1},
		{10, 0, 1},
		{10, 4, 4},
		{3, 16, 3},
	} {
		t.Run(fmt.Sprint(tc.n, "/", tc.limit), func(t *testing.T) {
			var mu sync.Mutex
			var done []int
			var running, most atomic.Int64
			For(tc.n, tc.limit, func(i int) {
				r := running.Add(1)
				for {
					m := most.Load()
					if r <= m || most.CompareAndSwap(m, r) {
						break
					}
				}
				// Wait for the calls that may run at once to be running.
				for deadline := time.Now().Add(2 * time.Second); most.Load() < int64(tc.most) && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				running.Add(-1)
				mu.Lock()
				done = append(done, i)
				mu.Unlock()
			})
			slices.Sort(done)
			for i, d := range done {
				if d != i {
					t.Fatalf("calls %v, want each of 0..%d once", done, tc.n-1)
				}
			}
			if len(done) != tc.n {
				t.Errorf("%d calls, want %d", len(done), tc.n)
			}
			if got := int(most.Load()); got != tc.most {
				t.Errorf("at most %d calls at once, want %d", got, tc.most)
			}
		})
	}
}

func TestForInOrderAlone(t *testing.T) {
	var got []int
	For(5, 1, func(i int) { got = append(got, i) })
	if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("calls in order %v", got)
	}
}
