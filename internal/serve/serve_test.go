package serve

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/b14fs/b14fs/plugins/bencode"
)

// countingFs counts the bytes read from its base's files.
type countingFs struct {
	afero.Fs
	n *atomic.Int64
}

func (c countingFs) Open(name string) (afero.File, error) {
	return c.OpenFile(name, os.O_RDONLY, 0)
}

func (c countingFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := c.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return countingFile{f, c.n}, nil
}

type countingFile struct {
	afero.File
	n *atomic.Int64
}

func (f countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.n.Add(int64(n))
	return n, err
}

func (f countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.n.Add(int64(n))
	return n, err
}

// setup serves a directory holding big.bin (8 MiB, encoded) and
// sub/notes.txt, and returns the server, the directory, the plain content
// of big.bin and the counter of bytes read from stored files.
func setup(t *testing.T, opts Options) (*httptest.Server, string, []byte, *atomic.Int64) {
	t.Helper()
	dir := t.TempDir()
	root, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	n := new(atomic.Int64)
	fsys, err := fsx.New(countingFs{root.FollowLinks(), n}, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 8<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(r.Uint32())
	}
	if err := afero.WriteFile(fsys, "big.bin", big, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "sub/notes.txt", []byte("some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.Store(0)
	srv := httptest.NewServer(Handler(fsys, opts))
	t.Cleanup(srv.Close)
	return srv, dir, big, n
}

func do(t *testing.T, method, url string, body io.Reader, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

func TestGet(t *testing.T) {
	srv, _, big, _ := setup(t, Options{})
	resp, data := do(t, "GET", srv.URL+"/big.bin", nil)
	if resp.StatusCode != 200 || !bytes.Equal(data, big) {
		t.Fatalf("GET: %s, %d bytes, equal %v", resp.Status, len(data), bytes.Equal(data, big))
	}
	if cl := resp.Header.Get("Content-Length"); cl != fmt.Sprint(len(big)) {
		t.Errorf("Content-Length %q, want %d", cl, len(big))
	}
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.Header.Get("Last-Modified") == "" {
		t.Errorf("ETag %q, Last-Modified %q", etag, resp.Header.Get("Last-Modified"))
	}
	resp, _ = do(t, "GET", srv.URL+"/big.bin", nil, "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %s, want 304", resp.Status)
	}
	resp, data = do(t, "GET", srv.URL+"/sub/notes.txt", nil)
	if string(data) != "some notes\n" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("GET notes.txt: %q, %q", data, resp.Header.Get("Content-Type"))
	}
	resp, _ = do(t, "GET", srv.URL+"/big.bin.b14", nil)
	if resp.StatusCode != 404 {
		t.Errorf("GET the stored name: %s, want 404", resp.Status)
	}
}

// TestRange checks Range requests, and that one reads only the blocks it
// covers, not the whole stored file.
func TestRange(t *testing.T) {
	srv, _, big, n := setup(t, Options{})
	for _, off := range []int{0, 1, 4 << 20, len(big) - 100} {
		n.Store(0)
		resp, data := do(t, "GET", srv.URL+"/big.bin", nil, "Range", fmt.Sprintf("bytes=%d-%d", off, off+99))
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(data, big[off:off+100]) {
			t.Fatalf("Range at %d: %s, %d bytes", off, resp.Status, len(data))
		}
		if got := n.Load(); got > 64<<10 {
			t.Errorf("Range at %d read %d stored bytes", off, got)
		}
	}
	resp, _ := do(t, "GET", srv.URL+"/big.bin", nil, "Range", fmt.Sprintf("bytes=%d-", len(big)+10))
	if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("Range past the end: %s", resp.Status)
	}
}

func TestPropfind(t *testing.T) {
	srv, _, big, n := setup(t, Options{})
	resp, data := do(t, "PROPFIND", srv.URL+"/", nil, "Depth", "1")
	if resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("PROPFIND: %s", resp.Status)
	}
	body := string(data)
	if !strings.Contains(body, fmt.Sprintf("<D:getcontentlength>%d</D:getcontentlength>", len(big))) {
		t.Errorf("PROPFIND does not report the decoded size %d:\n%s", len(big), body)
	}
	if strings.Contains(body, ".b14") {
		t.Errorf("PROPFIND shows stored names:\n%s", body)
	}
	if got := n.Load(); got > 64<<10 {
		t.Errorf("PROPFIND read %d stored bytes", got)
	}
}

// TestListingUndecodable lists a directory holding a file whose size does
// not decode: the listing fails, where it left the file out, which a client
// that syncs (rclone sync) took for a file gone, and removed its copy.
func TestListingUndecodable(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{})
	// Links that lead nowhere (dangling, a loop) are left out, as before.
	for link, target := range map[string]string{"a.b14": "b.b14", "b.b14": "a.b14", "dangling.b14": "nowhere.b14"} {
		if err := os.Symlink(target, filepath.Join(dir, "sub", link)); err != nil {
			t.Fatal(err)
		}
	}
	if resp, data := do(t, "PROPFIND", srv.URL+"/sub/", nil, "Depth", "1"); resp.StatusCode != http.StatusMultiStatus || !strings.Contains(string(data), "notes.txt") {
		t.Fatalf("PROPFIND of a directory with links that lead nowhere: %s\n%s", resp.Status, data)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "cut.txt.b14"), []byte{0x4e}, 0o644); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("PROPFIND", srv.URL+"/sub/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Depth", "1")
	// The response is cut: the request fails, or reading its body.
	resp, err := http.DefaultClient.Do(req)
	var data []byte
	if err == nil {
		data, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	var ms struct {
		Responses []struct {
			Href string `xml:"href"`
		} `xml:"response"`
	}
	if err == nil && resp.StatusCode == http.StatusMultiStatus && xml.Unmarshal(data, &ms) == nil {
		t.Errorf("PROPFIND: %s, a whole listing without the file: %+v", resp.Status, ms)
	}
	if resp, _ := do(t, "GET", srv.URL+"/sub/", nil); resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("GET of the directory: %s, want 500", resp.Status)
	}
}

// bencodeServer serves, with opts, a new directory of .torrent files shown
// as .json (bencode's JSON side), holding the stored file name with content,
// and returns the server and the directory.
func bencodeServer(t *testing.T, name, content string, opts Options) (*httptest.Server, afero.Fs) {
	t.Helper()
	base := afero.NewBasePathFs(afero.NewOsFs(), t.TempDir())
	if err := afero.WriteFile(base, name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := fsx.New(base, bencode.NewCodec(), fsx.WithExtension(".torrent", ".json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(fsys, opts))
	t.Cleanup(srv.Close)
	return srv, base
}

// TestPutUnencodable puts a body the codec refuses to encode (not JSON, for
// bencode's JSON side): 422 with the codec's message and offset, where it
// was 500, "the stored file does not decode"; the stored file stays.
func TestPutUnencodable(t *testing.T) {
	srv, base := bencodeServer(t, "x.torrent", "d3:fooi1ee", Options{Writable: true})
	resp, body := do(t, "PUT", srv.URL+"/x.json", strings.NewReader(`{"foo": [1,2`))
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "bencode: byte offset") {
		t.Errorf("PUT: %s %q, want 422 naming the codec and offset", resp.Status, body)
	}
	if data, _ := afero.ReadFile(base, "x.torrent"); string(data) != "d3:fooi1ee" {
		t.Errorf("the stored file holds %q", data)
	}
}

// TestGetUnsizable gets a file whose size does not decode, through a codec
// that decodes a file to size it (bencode): the answer was 404 Not Found,
// which tells a client that syncs that the file is gone.
func TestGetUnsizable(t *testing.T) {
	srv, _ := bencodeServer(t, "bad.torrent", "d3:foo", Options{})
	for _, method := range []string{"GET", "HEAD"} {
		if resp, _ := do(t, method, srv.URL+"/bad.json", nil); resp.StatusCode != http.StatusInternalServerError {
			t.Errorf("%s: %s, want 500", method, resp.Status)
		}
	}
}

func TestIndex(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{})
	os.WriteFile(filepath.Join(dir, "sub", "<b>&.txt.b14"), nil, 0o644)
	resp, data := do(t, "GET", srv.URL+"/sub/", nil)
	body := string(data)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(body, `<a href="./notes.txt">notes.txt</a>  11`) ||
		!strings.Contains(body, `<a href="./%3Cb%3E&amp;.txt">&lt;b&gt;&amp;.txt</a>  0`) || strings.Contains(body, ".b14") {
		t.Errorf("GET /sub/: %s\n%s", resp.Status, body)
	}
	resp, _ = do(t, "GET", srv.URL+"/sub", nil)
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/sub/" {
		t.Errorf("GET /sub: %s at %s, want a redirect to /sub/", resp.Status, resp.Request.URL.Path)
	}
}

func TestReadOnly(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{})
	for _, m := range []string{"PUT", "DELETE", "MKCOL", "PROPPATCH", "LOCK", "MOVE", "COPY"} {
		resp, _ := do(t, m, srv.URL+"/sub/notes.txt", strings.NewReader("x"), "Destination", srv.URL+"/x.txt")
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s read-only: %s, want 405", m, resp.Status)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sub/notes.txt.b14")); err != nil {
		t.Error(err)
	}
}

func TestWrite(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{Writable: true})
	resp, _ := do(t, "PUT", srv.URL+"/new.txt", strings.NewReader("hello"))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %s", resp.Status)
	}
	stored, err := os.ReadFile(filepath.Join(dir, "new.txt.b14"))
	if err != nil || bytes.Contains(stored, []byte("hello")) {
		t.Fatalf("stored %q, %v", stored, err)
	}
	if _, data := do(t, "GET", srv.URL+"/new.txt", nil); string(data) != "hello" {
		t.Errorf("GET after PUT: %q", data)
	}
	steps := []struct{ method, path, dest string }{
		{"MKCOL", "/dir", ""},
		{"COPY", "/new.txt", "/dir/copy.txt"},
		{"MOVE", "/dir/copy.txt", "/moved.txt"},
		{"DELETE", "/new.txt", ""},
	}
	for _, s := range steps {
		resp, _ := do(t, s.method, srv.URL+s.path, nil, "Destination", srv.URL+s.dest)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %s", s.method, s.path, resp.Status)
		}
	}
	for name, want := range map[string]bool{"dir": true, "moved.txt.b14": true, "new.txt.b14": false, "dir/copy.txt.b14": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", name, err == nil, want)
		}
	}
}

// TestLimits checks that a PUT over the upload limit gets 413 and stores
// nothing, whether its length was announced or only found on the way, and
// that an XML body over its limit is refused.
func TestLimits(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{Writable: true, MaxUpload: 10})
	before := snapshot(t, dir)
	bodies := []func() io.Reader{
		func() io.Reader { return strings.NewReader(strings.Repeat("x", 100)) },                 // Content-Length: 100
		func() io.Reader { return io.MultiReader(strings.NewReader(strings.Repeat("x", 100))) }, // chunked
	}
	for _, body := range bodies {
		for _, name := range []string{"/big.txt", "/sub/notes.txt"} {
			if resp, msg := do(t, "PUT", srv.URL+name, body()); resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("PUT %s over --max-upload: %d %q, want 413", name, resp.StatusCode, msg)
			}
		}
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Errorf("after PUTs over the limit:%s", d)
	}
	resp, _ := do(t, "PROPFIND", srv.URL+"/", strings.NewReader(strings.Repeat(" ", MaxXMLBody+10)))
	if resp.StatusCode < 400 {
		t.Errorf("PROPFIND body over the limit: %s", resp.Status)
	}
}

func TestTraversal(t *testing.T) {
	srv, dir, _, _ := setup(t, Options{Writable: true})
	outside := t.TempDir()
	fsys, _ := fsx.New(afero.NewBasePathFs(afero.NewOsFs(), outside), base16384.NewCodec())
	if err := afero.WriteFile(fsys, "secret.txt", []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt.b14"), filepath.Join(dir, "link.txt.b14")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(dir, outside)
	if err := os.Symlink(rel, filepath.Join(dir, "relout")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/link.txt", "/out/secret.txt", "/relout/secret.txt",
		"/../" + rel + "/secret.txt", "/%2e%2e/" + rel + "/secret.txt", "/sub/..%2f..%2f" + rel + "/secret.txt",
		"/sub%2fnotes.txt", "/sub%5cnotes.txt", "/sub/%2e/notes.txt", "/a%00b",
	} {
		req, err := http.NewRequest("GET", srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = "//" + req.URL.Host + p // sent as it is, not cleaned
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 || bytes.Contains(data, []byte("secret")) {
			t.Errorf("GET %s: %s %q, want 4xx", p, resp.Status, data)
		}
	}
	for _, p := range []string{"/out/new.txt", "/relout/new.txt"} {
		resp, _ := do(t, "PUT", srv.URL+p, strings.NewReader("x"))
		if resp.StatusCode < 400 {
			t.Errorf("PUT %s: %s", p, resp.Status)
		}
	}
	// The links out do not break the listing of their directory, and
	// are not in it.
	resp, data := do(t, "PROPFIND", srv.URL+"/", nil, "Depth", "1")
	if resp.StatusCode != http.StatusMultiStatus || !strings.HasSuffix(strings.TrimSpace(string(data)), "</D:multistatus>") ||
		!strings.Contains(string(data), "<D:href>/big.bin</D:href>") || strings.Contains(string(data), "link") || strings.Contains(string(data), "out") {
		t.Errorf("PROPFIND with links out: %s\n%s", resp.Status, data)
	}
	// Names of temporary files and directories, which are never listed
	// and are removed once their process is gone, are refused.
	temp := "/sub/" + atomicfile.TempName("photos")
	for _, req := range []struct{ method, path, dest string }{
		{"MKCOL", temp, ""}, {"PUT", temp, ""}, {"GET", temp, ""}, {"PUT", temp + "/x.txt", ""},
		{"COPY", "/sub/notes.txt", temp}, {"MOVE", "/sub/notes.txt", temp},
	} {
		resp, _ := do(t, req.method, srv.URL+req.path, strings.NewReader("x"), "Destination", srv.URL+req.dest)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s %s %s: %s, want 400", req.method, req.path, req.dest, resp.Status)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "sub")); len(entries) != 1 {
		t.Errorf("sub holds %d entries after requests naming temporary files, want 1", len(entries))
	}
	resp, _ = do(t, "MOVE", srv.URL+"/sub/notes.txt", nil, "Destination", srv.URL+"/relout/x.txt")
	if resp.StatusCode < 400 {
		t.Errorf("MOVE into a link out: %s", resp.Status)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the outside directory holds %d entries, want 1", len(entries))
	}
}

func TestAuth(t *testing.T) {
	srv, _, _, _ := setup(t, Options{User: "u", Password: "pw"})
	for _, c := range []struct {
		user, pass string
		set        bool
		want       int
	}{{"", "", false, 401}, {"u", "nope", true, 401}, {"x", "pw", true, 401}, {"u", "pw", true, 200}} {
		req, _ := http.NewRequest("GET", srv.URL+"/sub/notes.txt", nil)
		if c.set {
			req.SetBasicAuth(c.user, c.pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%q:%q: %s, want %d", c.user, c.pass, resp.Status, c.want)
		}
		if c.want == 401 && resp.Header.Get("WWW-Authenticate") == "" {
			t.Error("401 without WWW-Authenticate")
		}
	}
}

func TestLog(t *testing.T) {
	var buf bytes.Buffer
	srv, _, _, _ := setup(t, Options{Log: &syncWriter{w: &buf}})
	do(t, "GET", srv.URL+"/sub/notes.txt", nil)
	srv.Close()
	line := buf.String()
	if !strings.Contains(line, `GET "/sub/notes.txt" 200 11 `) {
		t.Errorf("log: %q", line)
	}
}

// TestLogQuotes checks that a request's path reaches the log quoted, also
// inside a reason: a path holding a newline and a terminal escape cannot
// forge a line or colour the terminal.
func TestLogQuotes(t *testing.T) {
	var buf bytes.Buffer
	srv, _, _, _ := setup(t, Options{Log: &syncWriter{w: &buf}})
	do(t, "GET", srv.URL+"/a%0aFAKE%20LINE%1b[31m", nil)
	srv.Close()
	if strings.Contains(buf.String(), "\x1b") {
		t.Errorf("log holds a raw escape: %q", buf.String())
	}
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if strings.HasPrefix(line, "FAKE") {
			t.Errorf("a forged log line: %q", line)
		}
	}
}

// TestRedirectOneSlash checks that the redirect of a directory's URL to
// the one ending in a slash never starts with two slashes, which browsers
// take for another host.
func TestRedirectOneSlash(t *testing.T) {
	srv, _, _, _ := setup(t, Options{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(srv.URL + "//sub")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusMovedPermanently || strings.HasPrefix(loc, "//") {
		t.Errorf("GET //sub: %d, Location %q", resp.StatusCode, loc)
	}
}

type syncWriter struct {
	w io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "[::1]": true, "localhost": true, "127.1.2.3": true, "": false, "0.0.0.0": false, "::": false, "192.0.2.1": false} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v", host, got)
		}
	}
}
