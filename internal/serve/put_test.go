package serve

import (
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/atomicfile"
	"github.com/b14fs/b14fs/internal/remote/remotetest"
	"github.com/b14fs/b14fs/internal/remote/s3fs"
	"github.com/b14fs/b14fs/plugins/base16384"
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

// TestPutWithoutRename checks that uploads work on a base that cannot
// rename (S3, here the gofakes3 server): fsx stores the whole object at
// once, and an interrupted upload still leaves the previous content.
func TestPutWithoutRename(t *testing.T) {
	base, err := s3fs.New(remotetest.Bucket, "", s3fs.Config{
		Endpoint: remotetest.FakeS3(t), Insecure: true, Region: "us-east-1", UnsignedPayload: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := fsx.New(base, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "/notes.txt", []byte("old notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(fsys, Options{Writable: true}))
	defer srv.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte("PUT /notes.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npartial upload"))
	time.Sleep(100 * time.Millisecond)
	conn.Close()
	time.Sleep(200 * time.Millisecond)
	if _, data := do(t, "GET", srv.URL+"/notes.txt", nil); string(data) != "old notes\n" {
		t.Errorf("after an interrupted PUT: %q", data)
	}
	for _, name := range []string{"/notes.txt", "/new.txt"} {
		resp, _ := do(t, "PUT", srv.URL+name, strings.NewReader("new notes\n"))
		if resp.StatusCode >= 300 {
			t.Fatalf("PUT %s: %s", name, resp.Status)
		}
		if _, data := do(t, "GET", srv.URL+name, nil); string(data) != "new notes\n" {
			t.Errorf("after a PUT of %s: %q", name, data)
		}
	}
	names, _ := afero.ReadDir(base, "/")
	if len(names) != 2 {
		t.Errorf("the bucket holds %d objects, want 2 (no temporary file left)", len(names))
	}
}
