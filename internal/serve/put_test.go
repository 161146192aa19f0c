package serve

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/internal/remote/s3fs"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/internal/testing/tmpfs"
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

// firstRead is a request body that signals its first read.
type firstRead struct {
	io.ReadCloser
	read chan<- struct{}
	once sync.Once
}

func (b *firstRead) Read(p []byte) (int, error) {
	b.once.Do(func() {
		select {
		case b.read <- struct{}{}:
		default:
		}
	})
	return b.ReadCloser.Read(p)
}

// fakeS3View returns a bucket of an in-process S3 fake, a base that cannot
// rename, and the fsx view of it.
func fakeS3View(t *testing.T) (afero.Fs, *fsx.Fs) {
	t.Helper()
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
	return base, fsys
}

// TestPutWithoutRename checks that uploads work on a base that cannot
// rename (S3, here the gofakes3 server): fsx stores the whole object at
// once, and an interrupted upload still leaves the previous content.
func TestPutWithoutRename(t *testing.T) {
	base, fsys := fakeS3View(t)
	if err := afero.WriteFile(fsys, "/notes.txt", []byte("old notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each upload is cut once the handler has read from its body, and
	// checked once the handler is done with it.
	reading, served := make(chan struct{}, 1), make(chan struct{}, 1)
	h := Handler(fsys, Options{Writable: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &firstRead{ReadCloser: r.Body, read: reading}
		h.ServeHTTP(w, r)
		select {
		case served <- struct{}{}:
		default:
		}
	}))
	defer srv.Close()
	for _, name := range []string{"/notes.txt", "/new.txt"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte("PUT " + name + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npartial upload"))
		<-reading
		conn.Close()
		<-served
	}
	if _, data := do(t, "GET", srv.URL+"/notes.txt", nil); string(data) != "old notes\n" {
		t.Errorf("after an interrupted PUT: %q", data)
	}
	if _, err := base.Stat("/new.txt.b14"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an interrupted PUT of a new name left an object: %v", err)
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

// TestFullDisk serves a directory on a tmpfs too small for what is sent
// (as root, which mounting one needs): PUTs and COPYs that do not fit get
// 507 Insufficient Storage, and leave the directory as it was: the
// previous content of a file, no file for a new name, no temporary file.
func TestFullDisk(t *testing.T) {
	dir := tmpfs.Mount(t, "256k")
	root, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	fsys, err := fsx.New(root, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, fsys, "/old.txt", "/dir/a")
	if err := afero.WriteFile(fsys, "/big.bin", bytes.Repeat([]byte("big "), 150<<10/4), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(fsys, Options{Writable: true}))
	defer srv.Close()
	before := snapshot(t, dir)
	large := func() io.Reader { return bytes.NewReader(make([]byte, 1<<20)) }
	chunked := func() io.Reader { return io.MultiReader(large()) }
	for _, tt := range []struct {
		method, name string
		body         func() io.Reader
		hdr          []string
	}{
		{"PUT", "/new.bin", large, nil},
		{"PUT", "/new.bin", chunked, nil},
		{"PUT", "/old.txt", large, nil},
		{"PUT", "/dir/a", chunked, nil},
		{"COPY", "/big.bin", nil, []string{"Destination", srv.URL + "/copy.bin"}},
		{"COPY", "/big.bin", nil, []string{"Destination", srv.URL + "/old.txt", "Overwrite", "T"}},
		{"COPY", "/big.bin", nil, []string{"Destination", srv.URL + "/dir", "Overwrite", "T"}},
	} {
		var body io.Reader
		if tt.body != nil {
			body = tt.body()
		}
		resp, msg := do(t, tt.method, srv.URL+tt.name, body, tt.hdr...)
		if resp.StatusCode != http.StatusInsufficientStorage {
			t.Errorf("%s %s %q on a full disk: %d %q, want 507", tt.method, tt.name, tt.hdr, resp.StatusCode, msg)
		}
		if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
			t.Errorf("after %s %s %q on a full disk:%s", tt.method, tt.name, tt.hdr, d)
		}
	}
}

// TestPutUnseenUntilWhole checks that a PUT over a file shows nothing of
// the new content to other requests until the whole body has arrived: a
// GET or COPY of the file meanwhile has the old content; that a MOVE,
// DELETE or COPY that would take the upload's directory away meanwhile is
// refused with 423 Locked, leaving everything as it was; and that the
// upload then replaces the file.
func TestPutUnseenUntilWhole(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{Writable: true})
	stored := filepath.Join(dir, "sub", "notes.txt.b14")
	root := os.Geteuid() == 0
	if root {
		if err := os.Chown(stored, 4321, 4322); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(stored, 0o640); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := strings.Repeat("N", 100000)
	conn.Write([]byte("PUT /sub/notes.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + body[:60000]))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
		if len(entries) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("PUT under way: %v, want the stored file and a stage", entries)
		}
	}
	const old = "some notes\n"
	if _, data := do(t, "GET", srv.URL+"/sub/notes.txt", nil); string(data) != old {
		t.Errorf("GET during the upload: %.20q (%d bytes), want the old content", data, len(data))
	}
	if resp, _ := do(t, "HEAD", srv.URL+"/sub/notes.txt", nil); resp.ContentLength != int64(len(old)) {
		t.Errorf("HEAD during the upload: Content-Length %d, want %d", resp.ContentLength, len(old))
	}
	if resp, _ := do(t, "COPY", srv.URL+"/sub/notes.txt", nil, "Destination", srv.URL+"/copy.txt"); resp.StatusCode != http.StatusCreated {
		t.Errorf("COPY of the file during the upload: %s", resp.Status)
	}
	for _, req := range []struct{ method, path, dest string }{
		{"MOVE", "/sub", "/moved"},
		{"MOVE", "/big.bin", "/sub"},
		{"DELETE", "/sub", ""},
		{"DELETE", "/", ""},
		{"COPY", "/big.bin", "/sub"},
	} {
		resp, _ := do(t, req.method, srv.URL+req.path, nil, "Destination", srv.URL+req.dest, "Overwrite", "T")
		if resp.StatusCode != http.StatusLocked {
			t.Errorf("%s %s %s during an upload into /sub: %s, want 423 Locked", req.method, req.path, req.dest, resp.Status)
		}
	}
	conn.Write([]byte(body[60000:]))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %s", resp.Status)
	}
	if _, data := do(t, "GET", srv.URL+"/sub/notes.txt", nil); string(data) != body {
		t.Errorf("after the PUT: %.20q (%d bytes)", data, len(data))
	}
	if fi, err := os.Stat(stored); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("after the PUT: %v, %v, want mode 0640", fi.Mode(), err)
	} else if st := fi.Sys().(*syscall.Stat_t); root && (st.Uid != 4321 || st.Gid != 4322) {
		t.Errorf("after the PUT, as root: owner %d:%d, want 4321:4322", st.Uid, st.Gid)
	}
	if _, data := do(t, "GET", srv.URL+"/copy.txt", nil); string(data) != old {
		t.Errorf("the copy made during the upload: %.20q (%d bytes), want the old content", data, len(data))
	}
	if _, err := os.Stat(filepath.Join(dir, "big.bin.b14")); err != nil {
		t.Error(err)
	}
	if resp, _ := do(t, "MOVE", srv.URL+"/sub", nil, "Destination", srv.URL+"/moved"); resp.StatusCode != http.StatusCreated {
		t.Errorf("MOVE after the upload: %s", resp.Status)
	}
}

// TestPutContentRange checks that a PUT of part of a file (Content-Range)
// is refused, as RFC 9110 asks, rather than replacing the file with the
// part.
func TestPutContentRange(t *testing.T) {
	srv, _, _, _ := setup(t, Options{Writable: true})
	resp, _ := do(t, "PUT", srv.URL+"/sub/notes.txt", strings.NewReader("AB"), "Content-Range", "bytes 2-3/11")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("PUT with Content-Range: %s, want 400", resp.Status)
	}
	if _, data := do(t, "GET", srv.URL+"/sub/notes.txt", nil); string(data) != "some notes\n" {
		t.Errorf("after a refused PUT with Content-Range: %q", data)
	}
}

// mkdirFullFs fails Mkdir with ENOSPC while full is set.
type mkdirFullFs struct {
	afero.Fs
	full *atomic.Bool
}

func (m mkdirFullFs) Mkdir(name string, perm os.FileMode) error {
	if m.full.Load() {
		return &os.PathError{Op: "mkdir", Path: name, Err: syscall.ENOSPC}
	}
	return m.Fs.Mkdir(name, perm)
}

// TestRenamesFoundOnceKnown checks that a try at renaming that fails for a
// passing reason (a full disk) is not taken as the answer: it was kept for
// the process's life, and every later upload was written in place, its
// parts seen by other requests, as on a store that cannot rename.
func TestRenamesFoundOnceKnown(t *testing.T) {
	full := new(atomic.Bool)
	full.Store(true)
	d := davFS{fs: mkdirFullFs{afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()), full}, caps: new(capabilities)}
	if d.renames() {
		t.Fatal("renames on a full disk")
	}
	full.Store(false)
	if !d.renames() {
		t.Error("the full disk's answer was kept: no rename once there is room")
	}
	_, s3 := fakeS3View(t)
	d = davFS{fs: s3, caps: new(capabilities)}
	if d.renames() || !d.caps.known {
		t.Errorf("S3: renames %v, known %v; want false, known", d.renames(), d.caps.known)
	}
}
