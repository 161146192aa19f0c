package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMoveCopyKeepDestination sends MOVE and COPY requests that cannot
// succeed, with Overwrite: T as clients send it: each is refused before
// anything changes, and the destination is as it was (x/net/webdav removed
// it before failing).
func TestMoveCopyKeepDestination(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{Writable: true})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt.b14"), nil, 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.txt.b14"), filepath.Join(dir, "out.txt.b14")); err != nil {
		t.Fatal(err)
	}
	put := func(name, body string) {
		t.Helper()
		if resp, _ := do(t, "PUT", srv.URL+name, strings.NewReader(body)); resp.StatusCode >= 300 {
			t.Fatalf("PUT %s: %d", name, resp.StatusCode)
		}
	}
	do(t, "MKCOL", srv.URL+"/a", nil)
	put("/a/c", "inside")
	put("/report.txt", "report")
	put("/keep", "kept")
	if resp, _ := do(t, "MOVE", srv.URL+"/report.txt", nil, "Destination", srv.URL+"/final.txt", "Overwrite", "T"); resp.StatusCode != http.StatusCreated {
		t.Fatalf("the first MOVE: %d", resp.StatusCode)
	}
	for _, c := range []struct {
		method, from, to string
		want             int
	}{
		{"MOVE", "/report.txt", "/final.txt", http.StatusNotFound}, // a client's retry
		{"MOVE", "/a", "/a/c", http.StatusForbidden},
		{"MOVE", "/out.txt", "/keep", http.StatusForbidden},
		{"MOVE", "/", "/a", http.StatusForbidden},
		{"COPY", "/a", "/a/b", http.StatusForbidden},
		{"COPY", "/out.txt", "/keep", http.StatusForbidden},
		{"MOVE", "/keep", "/missing/keep", http.StatusConflict},
		{"COPY", "/keep", "/missing/keep", http.StatusConflict},
		{"MOVE", "/keep", "/final.txt/keep", http.StatusConflict},
	} {
		resp, _ := do(t, c.method, srv.URL+c.from, nil, "Destination", srv.URL+c.to, "Overwrite", "T")
		if resp.StatusCode != c.want {
			t.Errorf("%s %s to %s: %d, want %d", c.method, c.from, c.to, resp.StatusCode, c.want)
		}
	}
	for name, want := range map[string]string{"/final.txt": "report", "/a/c": "inside", "/keep": "kept"} {
		if resp, body := do(t, "GET", srv.URL+name, nil); resp.StatusCode != http.StatusOK || string(body) != want {
			t.Errorf("GET %s: %d %q, want %q", name, resp.StatusCode, body, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "b")); !os.IsNotExist(err) {
		t.Errorf("a COPY into itself made a/b: %v", err)
	}
}

// TestMoveWithoutOverwrite checks that a MOVE or COPY without an Overwrite
// header replaces an existing destination, as RFC 4918 asks (as if T).
func TestMoveWithoutOverwrite(t *testing.T) {
	srv, _, _, _ := setup(t, Options{Writable: true})
	for _, method := range []string{"COPY", "MOVE"} {
		if resp, _ := do(t, "PUT", srv.URL+"/dst.txt", strings.NewReader("old")); resp.StatusCode >= 300 {
			t.Fatalf("PUT: %s", resp.Status)
		}
		if resp, _ := do(t, "PUT", srv.URL+"/src.txt", strings.NewReader(method)); resp.StatusCode >= 300 {
			t.Fatalf("PUT: %s", resp.Status)
		}
		if resp, _ := do(t, method, srv.URL+"/src.txt", nil, "Destination", srv.URL+"/dst.txt"); resp.StatusCode != http.StatusNoContent {
			t.Errorf("%s onto a file, no Overwrite header: %s, want 204", method, resp.Status)
		}
		if _, body := do(t, "GET", srv.URL+"/dst.txt", nil); string(body) != method {
			t.Errorf("after %s: %q, want %q", method, body, method)
		}
	}
}
