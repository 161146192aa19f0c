package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/transform"
)

// The tests of this file hold b14fs serve -w to what a client that
// retries, and a server that dies, need of it: every writing method (PUT,
// MOVE, COPY, DELETE, MKCOL, PROPPATCH) sent twice in a row, and sent with
// the server killed (SIGKILL) mid-request, leaves DIR in a state that one
// successful request would leave, never less.
//
// The tests look at DIR itself, not through the server. A state
// (snapshot) is every stored path under DIR with its type, permission bits
// and, for a file, its content decoded (a stored file that does not decode
// is a half-written file, and differs from every good state). The
// temporary files and directories of the project
// (.NAME.b14fs-HOST-PID-RAND.tmp, atomicfile.IsTemp) are left out: the
// view never shows them, and the next write into their directory removes
// those whose process is gone.
//
// MOVE and COPY are sent with Overwrite: T (and collections with Depth:
// infinity), as clients send them.

// storedSuffix is the suffix of the names b14fs serve stores files under
// by default (defaultChain, base16384).
const storedSuffix = ".b14"

// storedCodec returns the codec b14fs serve stores files with by default.
func storedCodec(t testing.TB) core.Codec {
	t.Helper()
	c, err := transform.New(builtin.Registry(), defaultChain)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := c.(core.Suffixer); !ok || s.Suffix() != storedSuffix {
		t.Fatalf("the codec of %s does not store under %s", defaultChain, storedSuffix)
	}
	return c
}

// A tree describes files and directories by shown, slash-separated path:
// a path ending in "/" is a directory, any other a file holding the string.
type tree map[string]string

// writeTree stores tr in dir as b14fs serve would: directories as they
// are, each file encoded under its name with storedSuffix.
func writeTree(t testing.TB, codec core.Codec, dir string, tr tree) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(tr)) {
		full := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(p, "/")))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var enc bytes.Buffer
		w := codec.NewEncodeWriter(&enc)
		if _, err := io.WriteString(w, tr[p]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full+storedSuffix, enc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// manyFiles returns a tree of n files of about 1 KiB under the directory
// dir (ending in "/"), spread over ten subdirectories.
func manyFiles(dir string, n int) tree {
	tr := tree{dir: ""}
	for i := range n {
		sub := fmt.Sprintf("%ss%d/", dir, i%10)
		tr[sub] = ""
		tr[fmt.Sprintf("%sf%03d.txt", sub, i)] = strings.Repeat(fmt.Sprintf("%s file %d. ", dir, i), 1000/(len(dir)+12))
	}
	return tr
}

// merge returns the union of trees.
func merge(trees ...tree) tree {
	out := tree{}
	for _, tr := range trees {
		for p, c := range tr {
			out[p] = c
		}
	}
	return out
}

// randomBytes returns n bytes, the same for the same seed.
func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	r.Read(b)
	return b
}

// An entry is what a stored path holds.
type entry struct {
	kind    string      // dir, file, symlink or other
	mode    fs.FileMode // the permission bits
	content string      // a file's decoded content
	bad     string      // why a file does not decode ("" if it does)
}

func (e entry) String() string {
	s := fmt.Sprintf("%s %v", e.kind, e.mode)
	switch {
	case e.bad != "":
		s += " that does not decode: " + e.bad
	case e.kind != "file":
	case len(e.content) <= 40:
		s += fmt.Sprintf(" %q", e.content)
	default:
		s += fmt.Sprintf(" of %d bytes, sha256 %.12x", len(e.content), sha256.Sum256([]byte(e.content)))
	}
	return s
}

// A state is what a directory stores, by slash-separated stored path.
type state map[string]entry

// snapshot returns the state of dir, decoding each stored file with codec
// (a file without storedSuffix is taken as it is). Temporary files and
// directories (atomicfile.IsTemp) are left out.
func snapshot(t testing.TB, codec core.Codec, dir string) state {
	t.Helper()
	s := state{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if atomicfile.IsTemp(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{kind: "other", mode: fi.Mode().Perm()}
		switch {
		case d.IsDir():
			e.kind = "dir"
		case fi.Mode()&fs.ModeSymlink != 0:
			e.kind = "symlink"
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			e.content = target
		case fi.Mode().IsRegular():
			e.kind = "file"
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.content = string(data)
			if strings.HasSuffix(p, storedSuffix) {
				r := codec.NewDecodeReader(bytes.NewReader(data))
				dec, err := io.ReadAll(r)
				r.Close()
				e.content = string(dec)
				if err != nil {
					e.bad = err.Error()
				}
			}
		}
		s[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// equal reports whether the states are the same.
func (s state) equal(o state) bool {
	if len(s) != len(o) {
		return false
	}
	for p, e := range s {
		if f, ok := o[p]; !ok || e != f {
			return false
		}
	}
	return true
}

// diff describes how got differs from want, a line per path: "-" for a
// path only want has, "+" for one only got has, "~" for one they both
// have, differently.
func (got state) diff(want state) string {
	var lines []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			lines = append(lines, fmt.Sprintf("- %s: %v", p, w))
		} else if g != w {
			lines = append(lines, fmt.Sprintf("~ %s: %v, want %v", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			lines = append(lines, fmt.Sprintf("+ %s: %v", p, g))
		}
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[2:], b[2:]) })
	return strings.Join(lines, "\n")
}

// clip returns the first n lines of s, and how many more there are.
func clip(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... and %d more", len(lines)-n)
}

// under reports whether the slash-separated path p is dir or lies under it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// split returns the entries of s under dir, and the others.
func (s state) split(dir string) (in, out state) {
	in, out = state{}, state{}
	for p, e := range s {
		if under(p, dir) {
			in[p] = e
		} else {
			out[p] = e
		}
	}
	return in, out
}

// A servedDir is a `b14fs serve -w` process started by a test on a
// directory: a real process, so that it can be killed.
type servedDir struct {
	base   string // the server's URL, without the trailing slash
	cmd    *exec.Cmd
	stderr string // the file its stderr (the access log) goes to
	ended  chan struct{}
	err    error // of Wait, once ended is closed
}

// startServe starts b14fs serve -w on dir, with the flags args, and
// returns once it listens. When the test ends the server is stopped with SIGINT, unless it was
// killed, and its log is shown if the test failed.
func startServe(t testing.TB, dir string, args ...string) *servedDir {
	t.Helper()
	tmp := t.TempDir()
	s := &servedDir{stderr: filepath.Join(tmp, "stderr"), ended: make(chan struct{})}
	urlFile := filepath.Join(tmp, "url")
	errFile, err := os.Create(s.stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	s.cmd = exec.Command("b14fs", append(append([]string{"serve", "-w", "--addr", "127.0.0.1:0", "--url-file", urlFile}, args...), dir)...)
	s.cmd.Stderr = errFile
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.ended) }()
	t.Cleanup(func() {
		select {
		case <-s.ended:
		default:
			s.cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-s.ended:
			case <-time.After(20 * time.Second):
				s.kill()
				t.Errorf("b14fs serve %s did not end within 20 s of SIGINT", dir)
			}
		}
		if t.Failed() {
			t.Logf("b14fs serve %s:\n%s", dir, s.log())
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(urlFile); err == nil && bytes.HasSuffix(data, []byte("\n")) {
			s.base = strings.TrimSuffix(strings.TrimSpace(string(data)), "/")
			return s
		}
		select {
		case <-s.ended:
			t.Fatalf("b14fs serve %s exited before listening: %v\n%s", dir, s.err, s.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("b14fs serve %s: no URL within 20 s\n%s", dir, s.log())
		}
	}
}

// log returns what the server wrote to stderr.
func (s *servedDir) log() string {
	data, _ := os.ReadFile(s.stderr)
	return string(data)
}

// kill kills the server with SIGKILL and waits for it to end.
func (s *servedDir) kill() {
	s.cmd.Process.Kill()
	<-s.ended
}

// A davCall is a WebDAV request, by paths from the root served: Dest,
// when set, becomes the Destination header (a full URL, as clients send
// it) with Overwrite: T.
type davCall struct {
	Method, Path, Dest string
	Body               string
	Header             []string // more headers: name, value pairs
}

// String names the request as a log shows it.
func (c davCall) String() string {
	if c.Dest != "" {
		return c.Method + " " + c.Path + " to " + c.Dest
	}
	return c.Method + " " + c.Path
}

// request returns the request of c to the server at base, its paths under
// prefix (a path from the root served, "" for the root itself), with body
// instead of c.Body when body is not nil.
func (c davCall) request(t testing.TB, base, prefix string, body io.Reader) *http.Request {
	t.Helper()
	if body == nil {
		body = strings.NewReader(c.Body)
	}
	req, err := http.NewRequest(c.Method, base+prefix+c.Path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.Dest != "" {
		req.Header.Set("Destination", base+prefix+c.Dest)
		req.Header.Set("Overwrite", "T")
	}
	for i := 0; i+1 < len(c.Header); i += 2 {
		req.Header.Set(c.Header[i], c.Header[i+1])
	}
	return req
}

// send sends req and returns the response's status and body.
func send(client *http.Client, req *http.Request) (int, string, error) {
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// Request bodies and headers the cases share.
const (
	propSet = `<?xml version="1.0" encoding="utf-8"?>
<D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:b14fs:test"><D:set><D:prop><Z:color>red</Z:color></D:prop></D:set></D:propertyupdate>`
	propFind = `<?xml version="1.0" encoding="utf-8"?>
<D:propfind xmlns:D="DAV:" xmlns:Z="urn:b14fs:test"><D:prop><Z:color/></D:prop></D:propfind>`
)

// infinity is the Depth header of a MOVE or COPY of a collection.
var infinity = []string{"Depth", "infinity"}

// A retryCase is a writing request sent twice in a row on the tree setup:
// the first must answer one of first and leave the files of want (by
// shown path, as in a tree) and none of gone (shown paths: a file's, or a
// directory's ending in "/"); the second (a client's retry) must answer one
// of retry (any status when nil) and leave the state the first left. A
// MOVE or COPY whose source is missing answers 404 both times and changes
// nothing: its destination stays as it was.
type retryCase struct {
	name         string
	setup        tree
	call         davCall
	first, retry []int
	want         tree
	gone         []string
}

// retryCases are the cases of TestServeRetry.
var retryCases = []retryCase{
	{name: "put-new", setup: tree{"keep.txt": "kept"},
		call:  davCall{Method: "PUT", Path: "/new.txt", Body: "fresh"},
		first: []int{201, 204}, retry: []int{201, 204},
		want: tree{"new.txt": "fresh", "keep.txt": "kept"}},
	{name: "put-over", setup: tree{"a.txt": "old content"},
		call:  davCall{Method: "PUT", Path: "/a.txt", Body: "new"},
		first: []int{201, 204}, retry: []int{201, 204},
		want: tree{"a.txt": "new"}},
	{name: "put-nested-binary", setup: tree{"d/e/": ""},
		call:  davCall{Method: "PUT", Path: "/d/e/f.bin", Body: "\x00\xff\x01binary\x00"},
		first: []int{201, 204}, retry: []int{201, 204},
		want: tree{"d/e/f.bin": "\x00\xff\x01binary\x00"}},
	{name: "put-empty", setup: tree{"e.txt": "was not empty"},
		call:  davCall{Method: "PUT", Path: "/e.txt"},
		first: []int{201, 204}, retry: []int{201, 204},
		want: tree{"e.txt": ""}},

	{name: "mkcol", setup: tree{"keep.txt": "kept"},
		call:  davCall{Method: "MKCOL", Path: "/newdir"},
		first: []int{201}, retry: []int{405},
		want: tree{"newdir/": "", "keep.txt": "kept"}},
	{name: "mkcol-nested", setup: tree{"d/x": "x"},
		call:  davCall{Method: "MKCOL", Path: "/d/sub/"},
		first: []int{201}, retry: []int{405},
		want: tree{"d/sub/": "", "d/x": "x"}},

	{name: "delete-file", setup: tree{"a.txt": "A", "b.txt": "B"},
		call:  davCall{Method: "DELETE", Path: "/a.txt"},
		first: []int{204}, retry: []int{404},
		want: tree{"b.txt": "B"}, gone: []string{"a.txt"}},
	{name: "delete-collection", setup: tree{"d/x": "X", "d/e/y": "Y", "keep": "K"},
		call:  davCall{Method: "DELETE", Path: "/d/"},
		first: []int{204}, retry: []int{404},
		want: tree{"keep": "K"}, gone: []string{"d/", "d/x", "d/e/"}},

	{name: "proppatch-file", setup: tree{"a.txt": "A"},
		call:  davCall{Method: "PROPPATCH", Path: "/a.txt", Body: propSet},
		first: []int{207}, retry: []int{207},
		want: tree{"a.txt": "A"}},
	{name: "proppatch-collection", setup: tree{"d/x": "X"},
		call:  davCall{Method: "PROPPATCH", Path: "/d/", Body: propSet},
		first: []int{207}, retry: []int{207},
		want: tree{"d/x": "X"}},

	{name: "move-file", setup: tree{"a.txt": "A", "other.txt": "O"},
		call:  davCall{Method: "MOVE", Path: "/a.txt", Dest: "/b.txt"},
		first: []int{201}, retry: []int{404},
		want: tree{"b.txt": "A", "other.txt": "O"}, gone: []string{"a.txt"}},
	{name: "move-file-over-file", setup: tree{"a.txt": "A", "b.txt": "B"},
		call:  davCall{Method: "MOVE", Path: "/a.txt", Dest: "/b.txt"},
		first: []int{204}, retry: []int{404},
		want: tree{"b.txt": "A"}, gone: []string{"a.txt"}},
	{name: "move-collection", setup: tree{"d/x": "X", "d/e/y": "Y"},
		call:  davCall{Method: "MOVE", Path: "/d/", Dest: "/d2/", Header: infinity},
		first: []int{201}, retry: []int{404},
		want: tree{"d2/x": "X", "d2/e/y": "Y"}, gone: []string{"d/"}},
	{name: "move-collection-over-collection", setup: tree{"d/x": "X", "d/e/y": "Y", "t/old": "O", "t/z/w": "W"},
		call:  davCall{Method: "MOVE", Path: "/d/", Dest: "/t/", Header: infinity},
		first: []int{204}, retry: []int{404},
		want: tree{"t/x": "X", "t/e/y": "Y"}, gone: []string{"d/", "t/old", "t/z/"}},
	{name: "move-file-over-collection", setup: tree{"a.txt": "A", "t/old": "O"},
		call:  davCall{Method: "MOVE", Path: "/a.txt", Dest: "/t"},
		first: []int{204}, retry: []int{404},
		want: tree{"t": "A"}, gone: []string{"a.txt", "t/"}},
	{name: "move-collection-over-file", setup: tree{"d/x": "X", "f": "F"},
		call:  davCall{Method: "MOVE", Path: "/d/", Dest: "/f/", Header: infinity},
		first: []int{204}, retry: []int{404},
		want: tree{"f/x": "X"}, gone: []string{"d/", "f"}},

	{name: "move-missing-source", setup: tree{"b.txt": "B", "t/old": "O"},
		call:  davCall{Method: "MOVE", Path: "/gone.txt", Dest: "/b.txt"},
		first: []int{404}, retry: []int{404},
		want: tree{"b.txt": "B", "t/old": "O"}},
	{name: "move-missing-collection", setup: tree{"b.txt": "B", "t/old": "O"},
		call:  davCall{Method: "MOVE", Path: "/gone/", Dest: "/t/", Header: infinity},
		first: []int{404}, retry: []int{404},
		want: tree{"b.txt": "B", "t/old": "O"}},

	{name: "copy-file", setup: tree{"a.txt": "A"},
		call:  davCall{Method: "COPY", Path: "/a.txt", Dest: "/b.txt"},
		first: []int{201}, retry: []int{204},
		want: tree{"a.txt": "A", "b.txt": "A"}},
	{name: "copy-file-over-file", setup: tree{"a.txt": "A", "b.txt": "B"},
		call:  davCall{Method: "COPY", Path: "/a.txt", Dest: "/b.txt"},
		first: []int{204}, retry: []int{204},
		want: tree{"a.txt": "A", "b.txt": "A"}},
	{name: "copy-collection", setup: tree{"d/x": "X", "d/e/y": "Y"},
		call:  davCall{Method: "COPY", Path: "/d/", Dest: "/d2/", Header: infinity},
		first: []int{201}, retry: []int{204},
		want: tree{"d/x": "X", "d/e/y": "Y", "d2/x": "X", "d2/e/y": "Y"}},
	{name: "copy-collection-over-collection", setup: tree{"d/x": "X", "d/e/y": "Y", "t/old": "O", "t/z/w": "W"},
		call:  davCall{Method: "COPY", Path: "/d/", Dest: "/t/", Header: infinity},
		first: []int{204}, retry: []int{204},
		want: tree{"d/x": "X", "d/e/y": "Y", "t/x": "X", "t/e/y": "Y"}, gone: []string{"t/old", "t/z/"}},
	{name: "copy-file-over-collection", setup: tree{"a.txt": "A", "t/old": "O"},
		call:  davCall{Method: "COPY", Path: "/a.txt", Dest: "/t"},
		first: []int{204}, retry: []int{204},
		want: tree{"a.txt": "A", "t": "A"}, gone: []string{"t/"}},
	{name: "copy-missing-source", setup: tree{"b.txt": "B", "t/old": "O"},
		call:  davCall{Method: "COPY", Path: "/gone.txt", Dest: "/b.txt"},
		first: []int{404}, retry: []int{404},
		want: tree{"b.txt": "B", "t/old": "O"}},
	{name: "copy-missing-collection", setup: tree{"b.txt": "B", "t/old": "O"},
		call:  davCall{Method: "COPY", Path: "/gone/", Dest: "/t/", Header: infinity},
		first: []int{404}, retry: []int{404},
		want: tree{"b.txt": "B", "t/old": "O"}},
}

// TestServeRetry sends each writing request of retryCases twice in a row,
// as a client that retries does, to b14fs serve -w: the retry leaves DIR
// as the first request left it (see retryCase). A MOVE's retry is 404, and
// the moved file and its destination are still there. A PROPPATCH changes
// nothing in DIR (dead properties live in the server's memory): after its
// retry, PROPFIND still finds the property.
//
// Each case has its own directory under the root one server serves.
func TestServeRetry(t *testing.T) {
	codec := storedCodec(t)
	root := t.TempDir()
	for _, c := range retryCases {
		writeTree(t, codec, filepath.Join(root, c.name), c.setup)
	}
	srv := startServe(t, root)
	client := &http.Client{}
	t.Run("case", func(t *testing.T) {
		for _, c := range retryCases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(root, c.name)
				prefix := "/" + c.name
				code, body, err := send(client, c.call.request(t, srv.base, prefix, nil))
				if err != nil || !slices.Contains(c.first, code) {
					t.Fatalf("%v: %d %q %v, want %v", c.call, code, body, err, c.first)
				}
				first := snapshot(t, codec, dir)
				checkTree(t, first, c.want, c.gone)

				code, body, err = send(client, c.call.request(t, srv.base, prefix, nil))
				if err != nil || (c.retry != nil && !slices.Contains(c.retry, code)) {
					t.Errorf("the retry of %v: %d %q %v, want %v", c.call, code, body, err, c.retry)
				}
				if again := snapshot(t, codec, dir); !again.equal(first) {
					t.Errorf("the retry of %v changed %s (- the first left, + the retry left):\n%s", c.call, dir, clip(again.diff(first), 12))
				}
				if c.call.Method == "PROPPATCH" {
					req := davCall{Method: "PROPFIND", Path: c.call.Path, Body: propFind, Header: []string{"Depth", "0"}}.request(t, srv.base, prefix, nil)
					if code, body, err := send(client, req); err != nil || code != 207 || !strings.Contains(body, ">red</") {
						t.Errorf("PROPFIND %s after the retry: %d %v, no color red in\n%s", c.call.Path, code, err, body)
					}
				}
			})
		}
	})
}

// TestServeUploadLimit sends PUTs of bodies over --max-upload, with a
// Content-Length and chunked, twice each: each answers 413 Request Entity
// Too Large and leaves DIR as it was: a file it would have replaced keeps
// its content, and a new name gets no stored file. A body within the limit
// is stored.
func TestServeUploadLimit(t *testing.T) {
	codec := storedCodec(t)
	dir := t.TempDir()
	writeTree(t, codec, dir, tree{"a.txt": "the old content", "d/": ""})
	srv := startServe(t, dir, "--max-upload", "1000")
	big := randomBytes(4000, 2)
	before := snapshot(t, codec, dir)
	for _, c := range []struct {
		name, path string
		body       func() io.Reader
	}{
		{"over-sized", "/a.txt", func() io.Reader { return bytes.NewReader(big) }},
		{"new-sized", "/d/new.bin", func() io.Reader { return bytes.NewReader(big) }},
		{"over-chunked", "/a.txt", func() io.Reader { return io.MultiReader(bytes.NewReader(big)) }},
		{"new-chunked", "/d/new.bin", func() io.Reader { return io.MultiReader(bytes.NewReader(big)) }},
	} {
		for try := range 2 {
			code, msg, err := send(http.DefaultClient, davCall{Method: "PUT", Path: c.path}.request(t, srv.base, "", c.body()))
			if err != nil || code != http.StatusRequestEntityTooLarge {
				t.Errorf("%s: PUT %s of %d bytes (try %d): %d %q %v, want 413", c.name, c.path, len(big), try+1, code, msg, err)
			}
			if got := snapshot(t, codec, dir); !got.equal(before) {
				t.Errorf("%s: PUT %s of %d bytes (try %d) changed DIR (- before, + after):\n%s", c.name, c.path, len(big), try+1, clip(got.diff(before), 12))
			}
		}
	}
	if code, msg, err := send(http.DefaultClient, davCall{Method: "PUT", Path: "/a.txt", Body: string(big[:1000])}.request(t, srv.base, "", nil)); err != nil || code >= 300 {
		t.Fatalf("PUT /a.txt of 1000 bytes: %d %q %v", code, msg, err)
	}
	checkTree(t, snapshot(t, codec, dir), tree{"a.txt": string(big[:1000]), "d/": ""}, nil)
}

// checkTree checks that s stores the files and directories of want (see
// tree), and none of gone (shown paths: a file's, or a directory's ending
// in "/").
func checkTree(t *testing.T, s state, want tree, gone []string) {
	t.Helper()
	for p, content := range want {
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			if e, ok := s[dir]; !ok || e.kind != "dir" {
				t.Errorf("no directory %s: %v", dir, e)
			}
		} else if e, ok := s[p+storedSuffix]; !ok || e.kind != "file" || e.bad != "" || e.content != content {
			t.Errorf("%s%s is %v, want the file %q", p, storedSuffix, e, content)
		}
	}
	for _, p := range gone {
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			if e, ok := s[dir]; ok && e.kind == "dir" {
				t.Errorf("the directory %s is still there", dir)
			}
		} else if e, ok := s[p+storedSuffix]; ok {
			t.Errorf("%s%s is still there: %v", p, storedSuffix, e)
		}
	}
}

// A partialRule says whether a state that is neither the one before a
// request nor the one a success leaves is one its kill may leave all the
// same; it returns what is wrong with got, or "".
type partialRule func(before, after, got state) string

// partialDelete is the partialRule of a DELETE of target (a stored path):
// a kill may leave part of what it was removing, as long as everything
// outside target is as it was and everything left under it is unchanged.
// Each path gone would have gone with a success, and nothing left is
// changed, so this is "never less": a DELETE is not held to all or
// nothing, as removing a tree (webdav's RemoveAll) is not.
func partialDelete(target string) partialRule {
	return func(before, after, got state) string {
		var bad []string
		for p, e := range got {
			if b, ok := before[p]; !ok || b != e {
				bad = append(bad, fmt.Sprintf("%s: %v, before: %v", p, e, b))
			}
		}
		_, beforeOut := before.split(target)
		for p, b := range beforeOut {
			if _, ok := got[p]; !ok {
				bad = append(bad, fmt.Sprintf("%s is gone: %v", p, b))
			}
		}
		slices.Sort(bad)
		return strings.Join(bad, "\n")
	}
}

// partialAside is the partialRule of a MOVE or COPY over dst (a stored
// path) where a collection is involved: for the moment of the swap the
// old destination is set aside, whole, under a hidden name beside it
// (.b14fs-aside-RANDOM-NAME), so a kill there leaves it under that name,
// and beside it either the state of a success or the state before less
// dst. Nothing is lost: the old destination is all there, under another
// name.
func partialAside(dst string) partialRule {
	return func(before, after, got state) string {
		rest, aside := state{}, state{}
		for p, e := range got {
			first, _, _ := strings.Cut(p, "/")
			if strings.HasPrefix(first, ".b14fs-aside-") && strings.HasSuffix(first, "-"+dst) {
				aside[dst+strings.TrimPrefix(p, first)] = e
			} else {
				rest[p] = e
			}
		}
		in, out := before.split(dst)
		switch {
		case len(aside) == 0:
			return "nothing set aside"
		case !aside.equal(in):
			return "what was set aside is not the old " + dst + " (- old, + set aside):\n" + aside.diff(in)
		case rest.equal(after) || rest.equal(out):
			return ""
		}
		return "beside what was set aside, neither the state of a success nor the state before less " + dst + " (- success, + left):\n" + rest.diff(after)
	}
}

// A killCase is a writing request sent to a server that is killed with
// SIGKILL while it works on it.
type killCase struct {
	name  string
	setup tree
	call  davCall
	// body, for a PUT, is its body, of which the server is killed after
	// getting each of the lengths of cuts.
	body []byte
	cuts []int
	// points, for the others, are when the server is killed after the
	// request is sent, in fractions of the time the reference took
	// (nil: 0, ¼, ½ and ¾).
	points []float64
	// partial allows states that are neither before nor after (nil: none).
	partial partialRule
}

// killCases are the cases of TestServeKilled.
func killCases() []killCase {
	big := randomBytes(8<<20, 1)
	file := string(big[:2<<20])
	coll := manyFiles("d/", 300)
	old := manyFiles("t/", 20)
	return []killCase{
		{name: "PUT-over", setup: tree{"a.txt": "the old content", "keep": "K"},
			call: davCall{Method: "PUT", Path: "/a.txt"}, body: big, cuts: []int{1 << 20, len(big) / 2, len(big) - 1}},
		{name: "PUT-new", setup: tree{"keep": "K"},
			call: davCall{Method: "PUT", Path: "/new.bin"}, body: big, cuts: []int{1 << 20, len(big) / 2, len(big) - 1}},

		{name: "MOVE-collection", setup: merge(coll, tree{"keep": "K"}), points: []float64{0, 0.5},
			call: davCall{Method: "MOVE", Path: "/d/", Dest: "/d2/", Header: infinity}},
		{name: "MOVE-collection-over-collection", setup: merge(coll, old),
			call:    davCall{Method: "MOVE", Path: "/d/", Dest: "/t/", Header: infinity},
			partial: partialAside("t")},
		{name: "MOVE-file-over-file", setup: tree{"a.bin": file, "b.txt": "B"},
			call: davCall{Method: "MOVE", Path: "/a.bin", Dest: "/b.txt"}},

		{name: "COPY-collection", setup: merge(coll, tree{"keep": "K"}),
			call: davCall{Method: "COPY", Path: "/d/", Dest: "/d2/", Header: infinity}},
		{name: "COPY-collection-over-collection", setup: merge(coll, old),
			call:    davCall{Method: "COPY", Path: "/d/", Dest: "/t/", Header: infinity},
			partial: partialAside("t")},
		{name: "COPY-file-over-file", setup: tree{"a.bin": file, "b.txt": "B"},
			call: davCall{Method: "COPY", Path: "/a.bin", Dest: "/b.txt"}},

		{name: "DELETE-collection", setup: merge(coll, tree{"keep": "K"}), points: []float64{0, 0.5},
			call: davCall{Method: "DELETE", Path: "/d/"}, partial: partialDelete("d")},
		{name: "MKCOL", setup: tree{"keep": "K"}, points: []float64{0},
			call: davCall{Method: "MKCOL", Path: "/newdir/"}},
		{name: "PROPPATCH", setup: tree{"a.txt": "A"}, points: []float64{0},
			call: davCall{Method: "PROPPATCH", Path: "/a.txt", Body: propSet}},
	}
}

// TestServeKilled kills b14fs serve -w (SIGKILL) while it works on a
// writing request, starts a fresh one on DIR that lists it (see
// restartedState), and checks DIR then, decoding the stored files
// directly: it must be the state before the request, or the state one
// successful request leaves (the same request sent in full to another
// server on the same tree: the reference), or a state the case's
// partialRule allows. So no file loses its old content, no file under a
// real name is half written or empty where it was not, and a destination
// is either the old one or the complete copy; a response that arrived
// before the kill must be a success, and DIR the state it leaves.
//
// PUT sends its body through a pipe and kills the server once it has
// part of it (a temporary file is being written, or the pipe took the
// part). The others kill the server right after the request is sent, and
// at fractions of the time the reference took (killCase.points): the
// sleeps only choose where to kill, and every outcome is judged the same.
// Every test logs what the kill left.
func TestServeKilled(t *testing.T) {
	longtest.Skip(t, "kills b14fs serve mid-request some thirty times, on trees of 300 files")
	codec := storedCodec(t)
	cases := killCases()

	// The references: each request once, in full, on its own copy of
	// the tree, one at a time so that their durations mean something.
	type reference struct {
		before, after state
		took          time.Duration
	}
	refs := make([]reference, len(cases))
	refRoot := t.TempDir()
	for _, c := range cases {
		writeTree(t, codec, filepath.Join(refRoot, c.name), c.setup)
	}
	ref := startServe(t, refRoot)
	for i, c := range cases {
		dir := filepath.Join(refRoot, c.name)
		refs[i].before = snapshot(t, codec, dir)
		var body io.Reader
		if c.body != nil {
			body = bytes.NewReader(c.body)
		}
		start := time.Now()
		code, msg, err := send(http.DefaultClient, c.call.request(t, ref.base, "/"+c.name, body))
		refs[i].took = time.Since(start)
		if err != nil || code >= 300 {
			t.Fatalf("the reference %v: %d %q %v", c.call, code, msg, err)
		}
		refs[i].after = snapshot(t, codec, dir)
		t.Logf("the reference %v took %v", c.call, refs[i].took.Round(time.Microsecond))
	}

	t.Run("case", func(t *testing.T) {
		for i, c := range cases {
			var names []string
			fractions := c.points
			if c.body != nil {
				for _, n := range c.cuts {
					names = append(names, fmt.Sprintf("after-%d-bytes", n))
				}
			} else {
				if fractions == nil {
					fractions = []float64{0, 0.25, 0.5, 0.75}
				}
				for _, f := range fractions {
					names = append(names, fmt.Sprintf("at-%g", f))
				}
			}
			for j, point := range names {
				t.Run(c.name+"/"+point, func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					writeTree(t, codec, dir, c.setup)
					before := snapshot(t, codec, dir)
					if !before.equal(refs[i].before) {
						t.Fatalf("the tree differs from the reference's:\n%s", clip(before.diff(refs[i].before), 12))
					}
					srv := startServe(t, dir)
					var code int
					var msg string
					var err error
					if c.body != nil {
						code, msg, err = killPutting(t, srv, dir, c, c.cuts[j])
					} else {
						code, msg, err = killAfter(t, srv, c.call, time.Duration(fractions[j]*float64(refs[i].took)))
					}
					got := restartedState(t, codec, dir)
					judgeKilled(t, c, before, refs[i].after, got, code, msg, err)
				})
			}
		}
	})
}

// restartedState starts a fresh b14fs serve -w on dir, as a user does
// after a crash, has it list the whole tree (PROPFIND, Depth: infinity:
// it must be able to), kills it, and returns the state of dir then: what a
// server does at its start or on a listing with what a killed one left
// (putting a destination set aside back, say) counts.
func restartedState(t *testing.T, codec core.Codec, dir string) state {
	t.Helper()
	srv := startServe(t, dir)
	req := davCall{Method: "PROPFIND", Path: "/", Header: []string{"Depth", "infinity"}}.request(t, srv.base, "", nil)
	if code, msg, err := send(killClient, req); err != nil || code != http.StatusMultiStatus {
		t.Errorf("PROPFIND / with Depth: infinity, by a fresh server on what the kill left: %d %v\n%s", code, err, clip(msg, 12))
	}
	srv.kill()
	return snapshot(t, codec, dir)
}

// killClient is the HTTP client of the requests to servers that get
// killed: a connection is never used twice.
var killClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// A killResult is the answer to a request sent to a server that is killed.
type killResult struct {
	code int
	msg  string
	err  error
}

// sendAsync sends req with killClient, and delivers its result when it
// comes.
func sendAsync(req *http.Request) <-chan killResult {
	done := make(chan killResult, 1)
	go func() {
		code, msg, err := send(killClient, req)
		done <- killResult{code, msg, err}
	}()
	return done
}

// killAfter sends call to srv and kills srv delay after the request was
// written. It returns the response, if one came before the kill.
func killAfter(t *testing.T, srv *servedDir, call davCall, delay time.Duration) (int, string, error) {
	wrote := make(chan struct{})
	req := call.request(t, srv.base, "", nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { close(wrote) },
	}))
	done := sendAsync(req)
	var r killResult
	select {
	case <-wrote:
		time.Sleep(delay)
		srv.kill()
		r = <-done
		t.Logf("killed %v after it was sent", delay.Round(time.Microsecond))
	case r = <-done:
		// Answered before WroteRequest was called, or failed to be sent.
		srv.kill()
		if r.err != nil {
			t.Fatalf("%v was not sent: %v", call, r.err)
		}
	}
	return r.code, r.msg, r.err
}

// killPutting sends the PUT of c to srv with c.body through a pipe, and
// kills srv once cut bytes of it went into the pipe and the server is
// writing (a temporary file has data; if none shows within 5 s, it kills
// all the same, and logs it). It returns the response, if one came.
func killPutting(t *testing.T, srv *servedDir, dir string, c killCase, cut int) (int, string, error) {
	pr, pw := io.Pipe()
	req := c.call.request(t, srv.base, "", pr)
	req.ContentLength = int64(len(c.body))
	done := sendAsync(req)
	if _, err := pw.Write(c.body[:cut]); err != nil {
		t.Fatalf("writing %d bytes of the body: %v", cut, err)
	}
	storedDir := filepath.Join(dir, filepath.FromSlash(path.Dir(c.call.Path)))
	var tmp string
	var size int64
	for deadline := time.Now().Add(5 * time.Second); tmp == "" && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		entries, _ := os.ReadDir(storedDir)
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && atomicfile.IsTemp(e.Name()) && fi.Size() > 0 {
				tmp, size = e.Name(), fi.Size()
			}
		}
	}
	srv.kill()
	pw.CloseWithError(errors.New("the server was killed"))
	r := <-done
	if tmp != "" {
		t.Logf("killed with %d of %d bytes sent, the temporary file %s holding %d bytes", cut, len(c.body), tmp, size)
	} else {
		t.Logf("killed with %d of %d bytes sent, no temporary file with data seen", cut, len(c.body))
	}
	return r.code, r.msg, r.err
}

// judgeKilled checks the state got that a killed request of c left (see
// TestServeKilled), given the response that came before the kill, if one
// did (err nil).
func judgeKilled(t *testing.T, c killCase, before, after, got state, code int, msg string, err error) {
	t.Helper()
	if err == nil {
		if code >= 300 {
			t.Errorf("%v answered %d %q before the kill; the reference succeeded", c.call, code, msg)
		}
		if !got.equal(after) {
			t.Errorf("%v answered %d, and left (- a success, + what it left):\n%s", c.call, code, clip(got.diff(after), 12))
		}
		t.Logf("answered %d before the kill", code)
		return
	}
	switch {
	case got.equal(before):
		t.Logf("the kill left the state before the request")
	case got.equal(after):
		t.Logf("the kill left the state a success leaves")
	case c.partial != nil && c.partial(before, after, got) == "":
		t.Logf("the kill left a partial state the case allows: %d paths differ from the state before, %d from a success's",
			strings.Count(got.diff(before), "\n")+1, strings.Count(got.diff(after), "\n")+1)
	default:
		why := ""
		if c.partial != nil {
			why = "\nnor a partial state the case allows:\n" + c.partial(before, after, got)
		}
		t.Errorf("the kill of %v left neither the state before it (- before, + after the kill):\n%s\nnor the state of a success (- success, + after the kill):\n%s%s",
			c.call, clip(got.diff(before), 12), clip(got.diff(after), 12), clip(why, 12))
	}
}
