//go:build unix

package torrent

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// linkTree makes under dir: data/f, data/sub/s, data/lnk-in (a link to f),
// data/dirlink (a link to sub), data/fifo, data/sock (a socket), and
// outside (a file beside data), and returns data.
func linkTree(t *testing.T, dir string) string {
	t.Helper()
	data := filepath.Join(dir, "data")
	for name, content := range map[string]string{"data/f": "hello", "data/sub/s": "sub", "outside": "out"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, "f", filepath.Join(data, "lnk-in"))
	symlink(t, "sub", filepath.Join(data, "dirlink"))
	if err := syscall.Mkfifo(filepath.Join(data, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(data, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return data
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// Create follows links inside the directory (as mktorrent does), refuses
// those that lead out of it, loops and dangling links, and leaves out a
// FIFO and a socket, which it never opens, saying so.
func TestCreateLinksAndSpecialFiles(t *testing.T) {
	tests := []struct {
		name    string
		link    string // a link data/sub/extra to this, when not empty
		wantErr error
	}{
		{"links inside", "", nil},
		{"a link out", "../../outside", ErrOutside},
		{"an absolute link", "/", ErrOutside}, // to data/f: made below
		{"a link to the directory above", "../..", ErrOutside},
		{"a loop", ".", ErrLinkLoop},
		{"a loop through the top", "..", ErrLinkLoop},
		{"a dangling link", "nowhere", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			data := linkTree(t, dir)
			if tt.link == "/" {
				tt.link = filepath.Join(data, "f")
			}
			if tt.link != "" {
				symlink(t, tt.link, filepath.Join(data, "sub", "extra"))
			}
			r, err := os.OpenRoot(data)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var skipped []string
			m, err := Create(context.Background(), RootFS(r), ".", CreateOptions{Name: "data", Skipped: func(name string, mode fs.FileMode) {
				skipped = append(skipped, name+" "+mode.String())
			}})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fileList(m), "data/dirlink/s(3) data/f(5) data/lnk-in(5) data/sub/s(3) "; got != want {
				t.Errorf("files %s, want %s", got, want)
			}
			if want := []string{"fifo p---------", "sock S---------"}; !slices.Equal(skipped, want) {
				t.Errorf("skipped %q, want %q", skipped, want)
			}
		})
	}
}

// Verify opens no FIFO (it would wait for a writer for ever) and no
// socket: each is "not a regular file" at once, through RootFS and through
// any file system with a Stat; through RootFS, a link inside the
// directory is followed and one out of it is an error for its file.
func TestVerifyFIFOAndLinks(t *testing.T) {
	dir := t.TempDir()
	data := linkTree(t, dir)
	good := map[string]string{"fifo": "fifo!", "sock": "sock!", "lnk-out": "out", "lnk-in": "hello"}
	src := t.TempDir()
	for name, content := range good {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The torrent of the good content, then the same names in data.
	m, err := Create(context.Background(), os.DirFS(src), ".", CreateOptions{Name: "data", Version: V2})
	if err != nil {
		t.Fatal(err)
	}
	if got := fileList(m); got != "data/fifo(5) data/lnk-in(5) data/lnk-out(3) data/sock(5) " {
		t.Fatalf("files %s", got)
	}
	// A link out of dir, to a file of the right content.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "outside"), []byte("out"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join("..", "..", filepath.Base(other), "outside"), filepath.Join(data, "lnk-out"))
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, fsys := range []struct {
		name string
		fs   fs.FS
		out  string // lnk-out's status
	}{{"RootFS", RootFS(r), "missing " + ErrOutside.Error()}, {"DirFS", os.DirFS(dir), "complete"}} {
		res, err := Verify(context.Background(), m, fsys.fs, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Files {
			s := f.Status.String()
			if f.Err != nil {
				s += " " + errors.Unwrap(f.Err).Error()
			}
			got = append(got, strings.Join(f.Path, "/")+": "+s)
		}
		want := []string{"data/fifo: missing not a regular file", "data/lnk-in: complete", "data/lnk-out: " + fsys.out, "data/sock: missing not a regular file"}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", fsys.name, got, want)
		}
	}
}

// TestNamesNotUTF8 makes and verifies the torrent of files whose names are
// not UTF-8, which Unix allows and mktorrent and libtorrent take: io/fs's
// rule for paths refused them ("invalid argument"), and Verify found them
// missing.
func TestNamesNotUTF8(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"data/bad\xff", "data/dir\xc0/f", "data/ok"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := os.OpenRoot(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, v := range []Version{V1, V2} {
		m, err := Create(context.Background(), RootFS(r), ".", CreateOptions{Name: "data", Version: v})
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		if got := fileList(m); got != "data/bad\xff(9) data/dir\xc0/f(11) data/ok(7) " {
			t.Errorf("%v: files %q", v, got)
		}
		rd, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Verify(context.Background(), m, RootFS(rd), nil)
		rd.Close()
		if err != nil || !res.OK() {
			t.Errorf("%v: Verify: %+v, %v", v, res, err)
		}
	}
	if validPath("a\x00b") || validPath("a//b") || validPath("../a") || validPath("/a") || !validPath(".") {
		t.Error("validPath takes what fs.ValidPath refuses for other reasons than UTF-8")
	}
}
