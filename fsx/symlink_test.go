package fsx_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

// TestSymlinks checks how links are shown, read, made and removed: named
// like files, with the last element of a target inside the base mapped.
func TestSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := linkFs{afero.NewBasePathFs(afero.NewOsFs(), dir).(*afero.BasePathFs), dir}
	fsys := newFs(t, base, base16384.NewCodec())
	if err := fsys.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, fsys, "sub/notes.txt", []byte("notes\n"))
	if err := os.Mkdir(filepath.Join(dir, "d.b14"), 0o755); err != nil { // a directory named like a stored file
		t.Fatal(err)
	}
	for target, link := range map[string]string{
		"sub/notes.txt.b14":  "l1.b14", // a file inside: mapped
		"sub":                "l2.b14", // a directory: kept
		"/etc":               "l3.b14", // absolute: kept
		"../../x.b14":        "l4.b14", // out of the base: kept
		"d.b14":              "l5.b14", // a directory with a stored name: kept
		"missing.b14":        "l6.b14", // dangling: mapped
		"sub/notes.txt.b14/": "l7.b14", // no last name: kept
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"l1": "sub/notes.txt", "l2": "sub", "l3": "/etc", "l4": "../../x.b14",
		"l5": "d.b14", "l6": "missing", "l7": "sub/notes.txt.b14/",
	} {
		got, err := fsys.ReadlinkIfPossible(name)
		if err != nil || got != want {
			t.Errorf("Readlink(%s) = %q, %v; want %q", name, got, err, want)
		}
		info, ok, err := fsys.LstatIfPossible(name)
		if err != nil || !ok || info.Mode()&os.ModeSymlink == 0 || info.Name() != name || info.Size() != int64(len(want)) {
			t.Errorf("Lstat(%s) = %v, %v, %v", name, info, ok, err)
		}
	}
	// Stat and Open follow links, through the base.
	if got := mustRead(t, fsys, "l1"); string(got) != "notes\n" {
		t.Errorf("reading through l1: %q", got)
	}
	if info, ok, err := fsys.LstatIfPossible("sub/notes.txt"); err != nil || !ok || info.Mode()&os.ModeSymlink != 0 || info.Size() != 6 {
		t.Errorf("Lstat of a file: %v, %v, %v", info, ok, err)
	}
	if _, err := fsys.ReadlinkIfPossible("sub/notes.txt"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("Readlink of a file: %v, want EINVAL", err)
	}
	if _, err := fsys.ReadlinkIfPossible("nothing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Readlink of nothing: %v, want ErrNotExist", err)
	}

	// Made through fsx: stored under the mapped name, the target mapped.
	for link, target := range map[string]string{
		"sub/n1": "notes.txt", "n2": "sub", "n3": "/etc/passwd", "n4": "later.txt", "n5": "d.b14",
		"sub/n6": "notes.txt.b14", // the stored name of notes.txt: another name, a file to come
	} {
		if err := fsys.SymlinkIfPossible(target, link); err != nil {
			t.Fatal(err)
		}
		if got, err := fsys.ReadlinkIfPossible(link); err != nil || got != target {
			t.Errorf("Readlink(%s) = %q, %v; want %q back", link, got, err, target)
		}
	}
	for link, want := range map[string]string{
		"sub/n1.b14": "notes.txt.b14", "n2.b14": "sub", "n3.b14": "/etc/passwd", "n4.b14": "later.txt.b14", "n5.b14": "d.b14",
	} {
		if got, err := os.Readlink(filepath.Join(dir, link)); err != nil || got != want {
			t.Errorf("stored link %s -> %q, %v; want %q", link, got, err, want)
		}
	}
	if got := mustRead(t, fsys, "sub/n1"); string(got) != "notes\n" {
		t.Errorf("reading through sub/n1: %q", got)
	}
	if err := fsys.SymlinkIfPossible("x", "sub/notes.txt"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Symlink over a file: %v, want ErrExist", err)
	}
	if err := fsys.SymlinkIfPossible("x", "l1"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Symlink over a link: %v, want ErrExist", err)
	}
	// With a base that follows links in Stat (OsFs), Rename sees a link to
	// a file as that file; Remove removes the link.
	if err := fsys.Rename("sub/n1", "n1b"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(filepath.Join(dir, "n1b.b14")); err != nil || got != "notes.txt.b14" {
		t.Errorf("renamed link: %q, %v", got, err)
	}
	if err := fsys.Remove("l1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "l1.b14")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Remove the link is there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub/notes.txt.b14")); err != nil {
		t.Errorf("Remove of a link removed its target: %v", err)
	}
}

// TestLinksToDirectories uses links to a directory, dangling and looping
// links made through fsx (stored under mapped names, l.b14 -> d) over a base
// whose Stat follows links: Readdir failed on them (EISDIR, ELOOP), Stat of
// a link to a directory said ENOENT, Remove of a loop failed with ELOOP,
// and a directory renamed over a link to a directory went beside it,
// hidden.
func TestLinksToDirectories(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fsys := newFs(t, linkFs{afero.NewBasePathFs(afero.NewOsFs(), dir).(*afero.BasePathFs), dir}, base16384.NewCodec())
	for _, name := range []string{"d", "e"} {
		if err := fsys.Mkdir(name, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, fsys, "d/f", []byte("in d"))
	for target, link := range map[string]string{"d": "l", "gone": "dangling", "loop": "loop"} {
		if err := fsys.SymlinkIfPossible(target, link); err != nil {
			t.Fatal(err)
		}
	}
	infos, err := afero.ReadDir(fsys, ".")
	var names []string
	for _, info := range infos {
		names = append(names, info.Name())
	}
	if err != nil || strings.Join(names, " ") != "d dangling e l loop" {
		t.Errorf("ReadDir: %q, %v; want every entry", names, err)
	}
	if info, err := fsys.Stat("l"); err != nil || !info.IsDir() {
		t.Errorf("Stat of a link to a directory: %v, %v", info, err)
	}
	if err := fsys.Rename("e", "l"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("a directory renamed over a link: %v, want ENOTDIR", err)
	}
	for _, name := range []string{"l", "dangling", "loop"} {
		if err := fsys.Remove(name); err != nil {
			t.Errorf("Remove(%s): %v", name, err)
		}
	}
	if got := mustRead(t, fsys, "d/f"); string(got) != "in d" {
		t.Errorf("after the link went: %q", got)
	}
}

// linkFs is a BasePathFs whose links keep their targets as given
// (BasePathFs makes them absolute paths into its directory).
type linkFs struct {
	*afero.BasePathFs
	dir string
}

func (l linkFs) SymlinkIfPossible(oldname, newname string) error {
	return os.Symlink(oldname, filepath.Join(l.dir, newname))
}

// A lookupCounter counts the base's Stat and LstatIfPossible calls: each
// is a round trip over a remote base.
type lookupCounter struct {
	afero.Fs
	n atomic.Int64
}

func (c *lookupCounter) Stat(name string) (os.FileInfo, error) {
	c.n.Add(1)
	return c.Fs.Stat(name)
}

func (c *lookupCounter) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	c.n.Add(1)
	return c.Fs.(afero.Lstater).LstatIfPossible(name)
}

// TestLstatLookups checks that LstatIfPossible looks each base name up
// once: the Lstat that finds a name is no link also tells what it is.
func TestLstatLookups(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := &lookupCounter{Fs: afero.NewBasePathFs(afero.NewOsFs(), dir)}
	fsys := newFs(t, base, base16384.NewCodec())
	mustWrite(t, fsys, "file", []byte("content\n"))
	if err := fsys.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want int64 // base lookups
	}{
		{"file", 1},    // file.b14
		{"dir", 2},     // dir.b14, dir
		{"missing", 2}, // missing.b14, missing
	} {
		base.n.Store(0)
		info, _, err := fsys.LstatIfPossible(tc.name)
		if tc.name != "missing" && (err != nil || info.Name() != tc.name) {
			t.Errorf("LstatIfPossible(%s) = %v, %v", tc.name, info, err)
		}
		if got := base.n.Load(); got != tc.want {
			t.Errorf("LstatIfPossible(%s): %d base lookups, want %d", tc.name, got, tc.want)
		}
	}
}
