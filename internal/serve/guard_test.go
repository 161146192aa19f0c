package serve

import "testing"

// TestTreeGuard checks which uploads and tree changes keep each other out.
func TestTreeGuard(t *testing.T) {
	g := newTreeGuard()
	if !g.startChange("/d", "/e") {
		t.Fatal("startChange on an idle guard: false")
	}
	for _, tc := range []struct {
		target string
		ok     bool
	}{
		{"/d", false}, {"/d/x", false}, {"/d/x/y", false}, {"/e/x", false},
		{"/dx", true}, {"/f/d", true}, {"/", true},
	} {
		if ok := g.startUpload(tc.target); ok != tc.ok {
			t.Errorf("startUpload(%q) during a change of /d and /e: %v, want %v", tc.target, ok, tc.ok)
		} else if ok {
			g.endUpload(tc.target)
		}
	}
	if !g.startChange("/d") {
		t.Fatal("a second change of /d: false")
	}
	g.endChange("/d", "/e")
	if g.startUpload("/d/x") {
		t.Error("startUpload(/d/x) with a change of /d still under way: true")
	}
	g.endChange("/d")
	if !g.startUpload("/d/x") {
		t.Fatal("startUpload(/d/x) once the changes ended: false")
	}
	for _, tc := range []struct {
		root string
		ok   bool
	}{
		{"/d/x", false}, {"/d", false}, {"/", false}, {"/d/x/y", true}, {"/dx", true}, {"/e", true},
	} {
		if ok := g.startChange(tc.root); ok != tc.ok {
			t.Errorf("startChange(%q) during an upload to /d/x: %v, want %v", tc.root, ok, tc.ok)
		} else if ok {
			g.endChange(tc.root)
		}
	}
	g.endUpload("/d/x")
	if !g.startChange("/") || len(g.uploads) != 0 {
		t.Errorf("after every end: uploads %v", g.uploads)
	}
}
