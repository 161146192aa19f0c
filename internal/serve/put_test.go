package serve

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/remote/remotetest"
	"github.com/b14fs/b14fs/internal/remote/s3fs"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestInterruptedPut checks that a client going away mid-upload leaves
// the previous content and no staging file, and that a whole upload
// replaces the file keeping its permissions.
func TestInterruptedPut(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{Writable: true})
	stored := filepath.Join(dir, "sub", "notes.txt.b14")
	if err := os.Chmod(stored, 0o640); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte("PUT /sub/notes.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npartial upload"))
	time.Sleep(100 * time.Millisecond)
	conn.Close()

	deadline := time.Now().Add(5 * time.Second)
	for {
		entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
		if len(entries) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("staging file left: %v", entries)
		}
		time.Sleep(20 * time.Millisecond)
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
	for _, p := range []string{"/sub/" + stagingPrefix + "x.txt", "/" + stagingPrefix + "1"} {
		resp, _ := do(t, "PUT", srv.URL+p, strings.NewReader("x"))
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("PUT %s: %s, want 400", p, resp.Status)
		}
	}
	resp, _ = do(t, "PUT", srv.URL+"/sub", strings.NewReader("x"))
	if resp.StatusCode < 400 {
		t.Errorf("PUT over a directory: %s", resp.Status)
	}
}

// TestPutWithoutRename checks that uploads work on a base that cannot
// rename (S3, here the gofakes3 server): the staging file is copied over
// the target, and an interrupted upload still leaves the previous content.
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
		t.Errorf("the bucket holds %d objects, want 2 (no staging file left)", len(names))
	}
}
