package serve

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/internal/remote/sftpfs"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// renameFaultFs fails the renames of a base path from a source whose base
// name is failing with EIO while fail is set, as a storage that fails
// mid-request would.
type renameFaultFs struct {
	afero.Fs
	fail *atomic.Bool
}

func (f renameFaultFs) Rename(oldname, newname string) error {
	if f.fail.Load() && strings.HasPrefix(filepath.Base(oldname), "src") {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: syscall.EIO}
	}
	return f.Fs.Rename(oldname, newname)
}

// snapshot returns every path under dir with its type and stored content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			files[rel] = "dir"
			return nil
		}
		data, err := os.ReadFile(p)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// diffSnapshots describes how two snapshots differ, or returns "".
func diffSnapshots(before, after map[string]string) string {
	var b strings.Builder
	for p, v := range before {
		if w, ok := after[p]; !ok {
			b.WriteString(" lost " + p)
		} else if w != v {
			b.WriteString(" changed " + p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			b.WriteString(" added " + p)
		}
	}
	return b.String()
}

// A replaceBase is a kind of base the replacement tests run over.
type replaceBase struct {
	name string
	// open returns a base for a new, empty directory of its own, and that
	// directory's path on this machine.
	open func(t *testing.T) (afero.Fs, string)
}

// replaceBases returns a local directory, and a directory of a real sshd
// reached over SFTP (where sshd can run: root and openssh-server).
func replaceBases(t *testing.T) []replaceBase {
	bases := []replaceBase{{"local", func(t *testing.T) (afero.Fs, string) {
		dir := t.TempDir()
		root, err := rootfs.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { root.Close() })
		return root, dir
	}}}
	s, err := remotetest.StartSSHD(t.TempDir())
	if err != nil {
		t.Logf("no SFTP base: %v", err)
		return bases
	}
	t.Cleanup(s.Kill)
	known := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(known, []byte(remotetest.KnownHostsLine(s.Addr, s.HostKeys[0])), 0o600); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	return append(bases, replaceBase{"sftp", func(t *testing.T) (afero.Fs, string) {
		dir := filepath.Join(s.Root, strconv.FormatInt(n.Add(1), 10))
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		fsys, err := sftpfs.Dial(sftpfs.Config{Addr: s.Addr, User: s.User, KeyFiles: []string{s.KeyFile}, KnownHosts: []string{known}}, dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fsys.Close() })
		return fsys, dir
	}})
}

// replaceServer serves a new directory over base, whose renames of "src*"
// fail while the returned flag is set.
func replaceServer(t *testing.T, base replaceBase, opts Options) (srv *httptest.Server, dir string, fsys afero.Fs, failRenames *atomic.Bool) {
	t.Helper()
	b, dir := base.open(t)
	failRenames = new(atomic.Bool)
	f, err := fsx.New(renameFaultFs{b, failRenames}, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	srv = httptest.NewServer(Handler(f, opts))
	t.Cleanup(srv.Close)
	return srv, dir, f, failRenames
}

// writeFiles writes the shown files of names (a trailing slash makes a
// directory) with their own names as content.
func writeFiles(t *testing.T, fsys afero.Fs, names ...string) {
	t.Helper()
	for _, name := range names {
		err := fsys.MkdirAll(filepath.Dir(name), 0o755)
		if err == nil && !strings.HasSuffix(name, "/") {
			err = afero.WriteFile(fsys, name, []byte("content of "+name), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// corrupt writes the shown file name whose stored form has a valid size
// but a code unit in its middle that does not decode, so that a listing
// shows it and a read of it fails.
func corrupt(t *testing.T, dir string, fsys afero.Fs, name string) {
	t.Helper()
	if err := afero.WriteFile(fsys, name, bytes.Repeat([]byte("x"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	stored := filepath.Join(dir, name+".b14")
	data, err := os.ReadFile(stored)
	if err != nil {
		t.Fatal(err)
	}
	copy(data[40:], "\x00A")
	if err := os.WriteFile(stored, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReplaceFailureKeepsDestination sends MOVE and COPY requests with
// "Overwrite: T" onto names that exist, which fail after every check
// passed (the storage fails the rename; a file copied does not decode):
// each answers the failure, and the directory is as it was (x/net/webdav
// removed the destination first, and left a partial copy).
func TestReplaceFailureKeepsDestination(t *testing.T) {
	tests := []struct {
		name, method, src, dst string
		want                   int
	}{
		{"move file over file", "MOVE", "/src.txt", "/dst.txt", http.StatusServiceUnavailable},
		{"move file over collection", "MOVE", "/src.txt", "/dstdir", http.StatusServiceUnavailable},
		{"move collection over collection", "MOVE", "/srcdir", "/dstdir", http.StatusServiceUnavailable},
		{"move collection over file", "MOVE", "/srcdir", "/dst.txt", http.StatusServiceUnavailable},
		{"copy bad file over file", "COPY", "/srcbad.txt", "/dst.txt", http.StatusInternalServerError},
		{"copy bad file over collection", "COPY", "/srcbad.txt", "/dstdir", http.StatusInternalServerError},
		{"copy bad file to a new name", "COPY", "/srcbad.txt", "/new.txt", http.StatusInternalServerError},
		{"copy collection with a bad file over collection", "COPY", "/srcbaddir", "/dstdir", http.StatusInternalServerError},
		{"copy collection with a bad file to a new name", "COPY", "/srcbaddir", "/newdir", http.StatusInternalServerError},
	}
	for _, base := range replaceBases(t) {
		for _, tt := range tests {
			t.Run(base.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				srv, dir, fsys, failRenames := replaceServer(t, base, Options{Writable: true})
				writeFiles(t, fsys, "/src.txt", "/dst.txt", "/srcdir/a", "/srcdir/sub/b", "/dstdir/c", "/dstdir/sub/d",
					"/srcbaddir/a", "/srcbaddir/z/")
				corrupt(t, dir, fsys, "srcbad.txt")
				corrupt(t, dir, fsys, "srcbaddir/z/bad")
				props := `<?xml version="1.0"?><propertyupdate xmlns="DAV:"><set><prop><x xmlns="urn:t">kept</x></prop></set></propertyupdate>`
				if resp, _ := do(t, "PROPPATCH", srv.URL+tt.dst, strings.NewReader(props)); tt.dst != "/new.txt" && tt.dst != "/newdir" && resp.StatusCode != http.StatusMultiStatus {
					t.Fatalf("PROPPATCH: %d", resp.StatusCode)
				}
				before := snapshot(t, dir)
				failRenames.Store(true)
				resp, body := do(t, tt.method, srv.URL+tt.src, nil, "Destination", srv.URL+tt.dst, "Overwrite", "T")
				failRenames.Store(false)
				if resp.StatusCode != tt.want {
					t.Errorf("%s %s to %s: %d %q, want %d", tt.method, tt.src, tt.dst, resp.StatusCode, body, tt.want)
				}
				if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
					t.Errorf("after a failed %s %s to %s:%s", tt.method, tt.src, tt.dst, d)
				}
				if tt.dst == "/dst.txt" || tt.dst == "/dstdir" {
					_, body := do(t, "PROPFIND", srv.URL+tt.dst, strings.NewReader(`<?xml version="1.0"?><propfind xmlns="DAV:"><prop><x xmlns="urn:t"/></prop></propfind>`), "Depth", "0")
					if !bytes.Contains(body, []byte("kept")) {
						t.Errorf("the destination lost its dead property: %s", body)
					}
				}
			})
		}
	}
}

// TestReplace checks MOVE and COPY with "Overwrite: T" onto names that
// exist, of files and collections both ways: the destination is the
// source's content alone afterwards, and nothing set aside is left.
func TestReplace(t *testing.T) {
	tests := []struct {
		method, src, dst string
		want             []string // the shown names under dst afterwards
	}{
		{"MOVE", "/src.txt", "/dst.txt", nil},
		{"MOVE", "/src.txt", "/dstdir", nil},
		{"MOVE", "/srcdir", "/dstdir", []string{"a", "sub", "sub/b"}},
		{"MOVE", "/srcdir", "/dst.txt", []string{"a", "sub", "sub/b"}},
		{"COPY", "/src.txt", "/dst.txt", nil},
		{"COPY", "/src.txt", "/dstdir", nil},
		{"COPY", "/srcdir", "/dstdir", []string{"a", "sub", "sub/b"}},
		{"COPY", "/srcdir", "/dst.txt", []string{"a", "sub", "sub/b"}},
	}
	for _, base := range replaceBases(t) {
		for _, tt := range tests {
			t.Run(base.name+"/"+tt.method+tt.src+tt.dst, func(t *testing.T) {
				t.Parallel()
				srv, dir, fsys, _ := replaceServer(t, base, Options{Writable: true})
				writeFiles(t, fsys, "/src.txt", "/dst.txt", "/srcdir/a", "/srcdir/sub/b", "/dstdir/c", "/dstdir/sub/d")
				resp, body := do(t, tt.method, srv.URL+tt.src, nil, "Destination", srv.URL+tt.dst, "Overwrite", "T")
				if resp.StatusCode != http.StatusNoContent {
					t.Fatalf("%s %s to %s: %d %q, want 204", tt.method, tt.src, tt.dst, resp.StatusCode, body)
				}
				var got []string
				afero.Walk(fsys, tt.dst, func(p string, info fs.FileInfo, err error) error {
					if err == nil && p != tt.dst {
						got = append(got, strings.TrimPrefix(p, tt.dst+"/"))
					}
					return err
				})
				if strings.Join(got, " ") != strings.Join(tt.want, " ") {
					t.Errorf("under %s: %q, want %q", tt.dst, got, tt.want)
				}
				if tt.want == nil {
					if data, err := afero.ReadFile(fsys, tt.dst); err != nil || string(data) != "content of /src.txt" {
						t.Errorf("%s: %q, %v", tt.dst, data, err)
					}
				}
				for p := range snapshot(t, dir) {
					if strings.Contains(p, asideTag) || atomicfile.IsTemp(filepath.Base(p)) {
						t.Errorf("left set aside or staged: %s", p)
					}
				}
			})
		}
	}
}

// TestAsideName checks that the name a destination is set aside under is
// hidden, ends as the destination's name does, and fits where it fits.
func TestAsideName(t *testing.T) {
	for _, base := range []string{"a", "notes.txt", strings.Repeat("é", 125) + ".txt", strings.Repeat("x", 251)} {
		got := asideName(base)
		rest := strings.TrimPrefix(got, asideTag)
		tail := rest[strings.Index(rest, "-")+1:]
		switch {
		case !strings.HasPrefix(got, asideTag):
			t.Errorf("asideName(%q) = %q: not hidden", base, got)
		case len(got) > max(len(base), 64):
			t.Errorf("asideName(%q) = %q: %d bytes", base, got, len(got))
		case !strings.HasSuffix(base, tail) || len(tail) < min(len(base), 4) || !utf8.ValidString(tail):
			t.Errorf("asideName(%q) = %q: does not end as the name does", base, got)
		}
	}
}

// TestReplaceWithoutRename checks MOVE and COPY onto names that exist over
// a base that cannot rename (S3, here the gofakes3 server): a MOVE is
// refused and the destination stays; a COPY of a file replaces it whole;
// a COPY of a collection over a collection, which would have to set the
// destination aside, is 409 and the destination stays.
func TestReplaceWithoutRename(t *testing.T) {
	_, fsys := fakeS3View(t)
	writeFiles(t, fsys, "/src.txt", "/dst.txt", "/srcdir/a", "/dstdir/c")
	srv := httptest.NewServer(Handler(fsys, Options{Writable: true}))
	defer srv.Close()
	for _, tt := range []struct {
		method, src, dst string
		want             int
		content          string // of /dst.txt afterwards
	}{
		{"MOVE", "/src.txt", "/dst.txt", http.StatusForbidden, "content of /dst.txt"},
		{"COPY", "/srcdir", "/dstdir", http.StatusConflict, "content of /dst.txt"},
		{"COPY", "/src.txt", "/dst.txt", http.StatusNoContent, "content of /src.txt"},
	} {
		resp, body := do(t, tt.method, srv.URL+tt.src, nil, "Destination", srv.URL+tt.dst, "Overwrite", "T")
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s to %s: %d %q, want %d", tt.method, tt.src, tt.dst, resp.StatusCode, body, tt.want)
		}
		if data, err := afero.ReadFile(fsys, "/dst.txt"); err != nil || string(data) != tt.content {
			t.Errorf("after %s %s to %s: /dst.txt holds %q, %v, want %q", tt.method, tt.src, tt.dst, data, err, tt.content)
		}
		if data, err := afero.ReadFile(fsys, "/dstdir/c"); err != nil || string(data) != "content of /dstdir/c" {
			t.Errorf("after %s %s to %s: /dstdir/c holds %q, %v", tt.method, tt.src, tt.dst, data, err)
		}
	}
}
