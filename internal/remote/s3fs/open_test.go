package s3fs

import "testing"

// TestOpenReads checks that openReads finds the files open on a key, and
// forgets a key once its files are closed and no open or removal holds it.
func TestOpenReads(t *testing.T) {
	var o openReads
	r1, r2 := &readFile{key: "a"}, &readFile{key: "a"}
	for _, r := range []*readFile{r1, r2} {
		k := o.acquire("a", false)
		o.add(k, r)
		o.release("a", k, false)
	}
	k := o.acquire("a", true)
	if got := o.files(k); len(got) != 2 {
		t.Errorf("a removal finds %d files open, want 2", len(got))
	}
	o.release("a", k, true)
	o.forget(r1)
	if len(o.keys) != 1 {
		t.Errorf("%d keys with one file open, want 1", len(o.keys))
	}
	o.forget(r2)
	k = o.acquire("b", true)
	if got := o.files(k); len(got) != 0 {
		t.Errorf("a removal of a key never opened finds %d files", len(got))
	}
	o.release("b", k, true)
	if len(o.keys) != 0 {
		t.Errorf("%d keys left when nothing is open, want 0", len(o.keys))
	}
}
