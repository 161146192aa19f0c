package serve

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// downFs fails every call with the error of a storage server that does
// not answer while down is set.
type downFs struct {
	afero.Fs
	down *atomic.Bool
}

var errDown = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}

func (d downFs) fail(op, name string) error {
	if d.down.Load() {
		return &os.PathError{Op: op, Path: name, Err: errDown}
	}
	return nil
}

func (d downFs) Open(name string) (afero.File, error) {
	return d.OpenFile(name, os.O_RDONLY, 0)
}

func (d downFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if err := d.fail("open", name); err != nil {
		return nil, err
	}
	return d.Fs.OpenFile(name, flag, perm)
}

func (d downFs) Stat(name string) (os.FileInfo, error) {
	if err := d.fail("stat", name); err != nil {
		return nil, err
	}
	return d.Fs.Stat(name)
}

func (d downFs) RemoveAll(name string) error {
	if err := d.fail("removeall", name); err != nil {
		return err
	}
	return d.Fs.RemoveAll(name)
}

// TestStorageDown checks that requests the storage fails to answer get a
// 503 (a 500 for a stored file that does not decode), not the 404 Not
// Found or 405 Method Not Allowed that webdav answers failed opens and
// Stats with, and that missing names still get a 404.
func TestStorageDown(t *testing.T) {
	down := new(atomic.Bool)
	base := afero.NewBasePathFs(afero.NewMemMapFs(), "/")
	fsys, err := fsx.New(downFs{base, down}, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "f.txt", []byte("content"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys.Mkdir("dir", 0o755)
	afero.WriteFile(base, "bad.txt.b14", []byte("\xff\xfe not base16384 \x00"), 0o644)
	srv := httptest.NewServer(Handler(fsys, Options{Writable: true}))
	defer srv.Close()

	tests := []struct {
		method, path string
		down         bool
		want         int
	}{
		{"GET", "/f.txt", false, http.StatusOK},
		{"GET", "/f.txt", true, http.StatusServiceUnavailable},
		{"HEAD", "/f.txt", true, http.StatusServiceUnavailable},
		{"PROPFIND", "/f.txt", true, http.StatusServiceUnavailable},
		{"PROPFIND", "/f.txt", false, http.StatusMultiStatus},
		{"GET", "/dir/", true, http.StatusServiceUnavailable},
		{"DELETE", "/f.txt", true, http.StatusServiceUnavailable},
		{"GET", "/missing", false, http.StatusNotFound},
		{"PROPFIND", "/missing", false, http.StatusNotFound},
		{"DELETE", "/missing", false, http.StatusNotFound},
		{"GET", "/bad.txt", false, http.StatusInternalServerError},
		{"GET", "/f.txt", false, http.StatusOK}, // the DELETE above changed nothing
	}
	// A name with no stored form under the mapping is missing too.
	mapped, err := fsx.New(base, base16384.NewCodec(), fsx.WithExtension(".torrent", ".json"))
	if err != nil {
		t.Fatal(err)
	}
	mappedSrv := httptest.NewServer(Handler(mapped, Options{}))
	defer mappedSrv.Close()
	if resp, body := do(t, "GET", mappedSrv.URL+"/notes.txt", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a name the mapping has no stored form for = %d %q, want 404", resp.StatusCode, body)
	}
	for _, tt := range tests {
		down.Store(tt.down)
		resp, body := do(t, tt.method, srv.URL+tt.path, nil, "Depth", "0")
		down.Store(false)
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s (storage down: %v) = %d %q, want %d", tt.method, tt.path, tt.down, resp.StatusCode, body, tt.want)
			continue
		}
		if tt.want == http.StatusServiceUnavailable {
			if resp.Header.Get("Retry-After") == "" {
				t.Errorf("%s %s: a 503 without Retry-After", tt.method, tt.path)
			}
			if tt.method != "HEAD" && (!strings.Contains(string(body), "storage") || strings.Contains(string(body), "Not Found")) {
				t.Errorf("%s %s: body %q, want the storage's failure alone", tt.method, tt.path, body)
			}
		}
	}
}

// writeDownFs is a file system whose files fail their writes with the
// error of a storage server gone away while writes is down.
type writeDownFs struct {
	afero.Fs
	down *atomic.Bool
}

func (w writeDownFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := w.Fs.OpenFile(name, flag, perm)
	if err != nil || flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return f, err
	}
	return writeDownFile{f, w.down}, nil
}

type writeDownFile struct {
	afero.File
	down *atomic.Bool
}

func (f writeDownFile) Write(p []byte) (int, error) {
	if f.down.Load() {
		return 0, &os.PathError{Op: "write", Path: f.Name(), Err: errDown}
	}
	return f.File.Write(p)
}

// TestStorageLostMidCopy checks that a COPY whose writes the storage fails
// (a server gone away mid-copy) gets a 503, which clients retry, not the
// 500 webdav answers, and leaves the destination as it was.
func TestStorageLostMidCopy(t *testing.T) {
	down := new(atomic.Bool)
	base := afero.NewBasePathFs(afero.NewMemMapFs(), "/")
	fsys, err := fsx.New(writeDownFs{base, down}, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	afero.WriteFile(fsys, "src.txt", []byte("source"), 0o644)
	afero.WriteFile(fsys, "dst.txt", []byte("old"), 0o644)
	srv := httptest.NewServer(Handler(fsys, Options{Writable: true}))
	defer srv.Close()
	down.Store(true)
	resp, body := do(t, "COPY", srv.URL+"/src.txt", nil, "Destination", srv.URL+"/dst.txt")
	down.Store(false)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("COPY with the storage's writes failing: %d %q, want 503", resp.StatusCode, body)
	}
	if _, data := do(t, "GET", srv.URL+"/dst.txt", nil); string(data) != "old" {
		t.Errorf("the destination after a failed COPY: %q, want old", data)
	}
}
