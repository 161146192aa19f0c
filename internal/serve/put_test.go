package serve

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/b14fs/b14fs/internal/atomicfile"
)

// TestInterruptedPut checks that a client going away mid-upload leaves
// the previous content, or no file for a new one, and nothing else; that
// what an upload writes meanwhile is a temporary file of the project's
// (which the next write into its directory removes should the server be
// killed); and that a whole upload replaces the file keeping its
// permissions.
func TestInterruptedPut(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{Writable: true})
	stored := filepath.Join(dir, "sub", "notes.txt.b14")
	if err := os.Chmod(stored, 0o640); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	for _, target := range []string{"notes.txt", "new.txt"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close() // also when the test fails: the server waits for it
		conn.Write([]byte("PUT /sub/" + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + strings.Repeat("partial upload ", 2000)))
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			temps, others := 0, 0
			for _, name := range names() {
				switch {
				case atomicfile.IsTemp(name) && !atomicfile.Stale(name):
					temps++
				case name != "notes.txt.b14" && name != target+".b14":
					others++
				}
			}
			if temps == 1 && others == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("PUT %s under way: %v, want the files and one temporary file of this process", target, names())
			}
		}
		conn.Close()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if got := names(); len(got) == 1 && got[0] == "notes.txt.b14" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after an interrupted PUT %s: %v, want only notes.txt.b14", target, names())
			}
		}
	}
	if _, data := do(t, "GET", srv.URL+"/sub/notes.txt", nil); string(data) != "some notes\n" {
		t.Errorf("after an interrupted PUT: %q", data)
	}

	resp, _ := do(t, "PUT", srv.URL+"/sub/notes.txt", strings.NewReader("new notes\n"))
	if resp.StatusCode >= 300 {
		t.Fatalf("PUT: %s", resp.Status)
	}
	if _, data := do(t, "GET", srv.URL+"/sub/notes.txt", nil); string(data) != "new notes\n" {
		t.Errorf("after a PUT: %q", data)
	}
	if fi, err := os.Stat(stored); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("after a PUT: %v, %v, want mode 0640", fi.Mode(), err)
	}
	resp, _ = do(t, "PUT", srv.URL+"/sub", strings.NewReader("x"))
	if resp.StatusCode < 400 {
		t.Errorf("PUT over a directory: %s", resp.Status)
	}
}
