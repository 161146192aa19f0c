package fsx_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestCloseKeepsLaterSave is the reproducer of a close that brought back
// old content: a file open for an in-place write stays open while another
// writer rewrites the file (O_TRUNC, truncation by name or by descriptor);
// the first file's close must not undo that.
func TestCloseKeepsLaterSave(t *testing.T) {
	t.Parallel()
	old := bytes.Repeat([]byte("0123456789"), 1000)
	rewrites := map[string]func(t *testing.T, fsys *fsx.Fs){
		"WriteFile": func(t *testing.T, fsys *fsx.Fs) { mustWrite(t, fsys, "f", []byte("NEW")) },
		"Truncate(0) and write": func(t *testing.T, fsys *fsx.Fs) {
			f, err := fsys.OpenFile("f", os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(0); err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("NEW"), 0); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, rewrite := range rewrites {
		t.Run(name, func(t *testing.T) {
			forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
				mustWrite(t, fsys, "f", old)
				a, err := fsys.OpenFile("f", os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := a.WriteAt([]byte("XXXXXXXX"), 5000); err != nil {
					t.Fatal(err)
				}
				rewrite(t, fsys)
				if err := a.Close(); err != nil {
					t.Fatal(err)
				}
				checkContent(t, fsys, "f", []byte("NEW"))
			})
		})
	}
}

// TestSharedContent checks that the opens of one file share its content:
// a write through one is read through another at once, a truncation by
// one is seen by all, and Stat by name and by file tell the size all see.
func TestSharedContent(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "f", []byte("hello, world"))
		a, err := fsys.OpenFile("f", os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := fsys.OpenFile("f", os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		read := func(want string) {
			t.Helper()
			p := make([]byte, 64)
			n, _ := b.ReadAt(p, 0)
			if string(p[:n]) != want {
				t.Errorf("read %q, want %q", p[:n], want)
			}
			for _, size := range []func() (os.FileInfo, error){b.Stat, func() (os.FileInfo, error) { return fsys.Stat("f") }} {
				if info, err := size(); err != nil || info.Size() != int64(len(want)) {
					t.Errorf("size %v, %v; want %d", info.Size(), err, len(want))
				}
			}
		}
		a.WriteAt([]byte("J"), 0)
		read("Jello, world")
		a.WriteAt([]byte("!!"), 12)
		read("Jello, world!!")
		a.Truncate(5)
		read("Jello")
		a.Truncate(7)
		read("Jello\x00\x00")
		if err := a.Sync(); err != nil {
			t.Fatal(err)
		}
		read("Jello\x00\x00")
		checkContent(t, newFs(t, base, c), "f", []byte("Jello\x00\x00"))
	})
}

// TestRemovedWhileOpen checks that a file removed, or renamed over, while
// open keeps its content for the files that have it open, which write and
// read it as before and store nothing, as on a local filesystem.
func TestRemovedWhileOpen(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		if !can(base).rename {
			t.Skip("S3 renames nothing (docs/remote.md); TestDifferentialBackends removes open files there")
		}
		mustWrite(t, fsys, "f", []byte("first"))
		mustWrite(t, fsys, "g", []byte("second"))
		a, err := fsys.OpenFile("f", os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := fsys.Rename("g", "f"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.WriteAt([]byte("F"), 0); err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 10)
		if n, _ := a.ReadAt(p, 0); string(p[:n]) != "First" {
			t.Errorf("the file renamed over reads %q", p[:n])
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		checkContent(t, fsys, "f", []byte("second"))
		checkNoTemp(t, base)
	})
}

// TestSameFileInfo checks fsx.SameFile: the opens of a file, and Stat of
// its name while it is open, describe one file; another name, a file not
// open over a base without identities, and a name whose stored file
// another Fs replaced meanwhile do not; over a local directory, stored
// files are told apart by their identities, open or not.
func TestSameFileInfo(t *testing.T) {
	stat := func(t *testing.T, f interface{ Stat() (os.FileInfo, error) }) os.FileInfo {
		t.Helper()
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	statName := func(t *testing.T, fsys afero.Fs, name string) os.FileInfo {
		t.Helper()
		fi, err := fsys.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	for _, b := range []struct {
		name     string
		base     func(t *testing.T) afero.Fs
		identity bool
	}{
		{"mem", memBase, false},
		{"os", func(t *testing.T) afero.Fs { return afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()) }, true},
	} {
		t.Run(b.name, func(t *testing.T) {
			base := b.base(t)
			fsys := newFs(t, base, base16384.NewCodec())
			other := newFs(t, base, base16384.NewCodec())
			mustWrite(t, fsys, "a", []byte("a"))
			mustWrite(t, fsys, "b", []byte("b"))
			if got := fsx.SameFile(statName(t, fsys, "a"), statName(t, fsys, "a")); got != b.identity {
				t.Errorf("a file not open, stated twice: SameFile = %v, want %v", got, b.identity)
			}
			if fsx.SameFile(statName(t, fsys, "a"), statName(t, fsys, "b")) {
				t.Error("two files not open: SameFile = true")
			}
			f1, err := fsys.OpenFile("a", os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f1.Close()
			f2, err := fsys.Open("a")
			if err != nil {
				t.Fatal(err)
			}
			defer f2.Close()
			fb, err := fsys.Open("b")
			if err != nil {
				t.Fatal(err)
			}
			defer fb.Close()
			if _, err := f1.Write([]byte("more")); err != nil {
				t.Fatal(err)
			}
			for what, pair := range map[string][2]os.FileInfo{
				"two opens":              {stat(t, f1), stat(t, f2)},
				"an open and its name":   {stat(t, f2), statName(t, fsys, "a")},
				"the name and an open":   {statName(t, fsys, "a"), stat(t, f1)},
				"an open, its own again": {stat(t, f1), stat(t, f1)},
			} {
				if !fsx.SameFile(pair[0], pair[1]) {
					t.Errorf("%s: SameFile = false", what)
				}
			}
			if fsx.SameFile(stat(t, f1), stat(t, fb)) || fsx.SameFile(stat(t, f1), statName(t, fsys, "b")) {
				t.Error("two open files: SameFile = true")
			}
			// Another Fs replaces b while it is open here, unchanged.
			before := stat(t, fb)
			mustWrite(t, other, "b", []byte("another b"))
			if fsx.SameFile(before, statName(t, fsys, "b")) {
				t.Error("a name replaced underneath, and the file open before: SameFile = true")
			}
		})
	}
}

// TestNameSpellings names files and directories open with changes by other
// spellings of their names ("./a", "d/", "e/", "d//f"): fsx found its
// open files by the name as given, so a Remove through another spelling
// left the file to come back at its close, a Rename moved its changes to a
// made-up name ("d/" renamed "e" put d/f's changes in "ef") or lost them.
func TestNameSpellings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		do   func(fsys afero.Fs) error // with d/f open, "0123456789" changed to "ZZ23456789"
		want map[string]string         // content by name after the close; "" for none
	}{
		{"remove ./d/f", func(fsys afero.Fs) error { return fsys.Remove("./d/f") }, map[string]string{"d/f": ""}},
		{"remove d//f", func(fsys afero.Fs) error { return fsys.Remove("d//f") }, map[string]string{"d/f": ""}},
		{"rename d/ e", func(fsys afero.Fs) error { return fsys.Rename("d/", "e") }, map[string]string{"e/f": "ZZ23YY6789", "ef": ""}},
		{"rename ./d e", func(fsys afero.Fs) error { return fsys.Rename("./d", "e") }, map[string]string{"e/f": "ZZ23YY6789"}},
		{"rename d e/", func(fsys afero.Fs) error { return fsys.Rename("d", "e/") }, map[string]string{"e/f": "ZZ23YY6789"}},
		{"rename over ./d/f", func(fsys afero.Fs) error {
			if err := afero.WriteFile(fsys, "g", []byte("new"), 0o644); err != nil {
				return err
			}
			return fsys.Rename("g", "./d/f")
		}, map[string]string{"d/f": "new"}},
	}
	for _, tt := range tests {
		fsys := newFs(t, afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()), base16384.NewCodec())
		if err := fsys.Mkdir("d", 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, fsys, "d/f", []byte("0123456789"))
		f, err := fsys.OpenFile("d/f", os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte("ZZ"), 0); err != nil {
			t.Fatal(err)
		}
		if err := tt.do(fsys); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if _, err := f.WriteAt([]byte("YY"), 4); err != nil {
			t.Fatalf("%s: a write after it: %v", tt.name, err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("%s: close: %v", tt.name, err)
		}
		for name, want := range tt.want {
			got, err := afero.ReadFile(fsys, name)
			if want == "" && !errors.Is(err, fs.ErrNotExist) || want != "" && string(got) != want {
				t.Errorf("%s: %s holds %q, %v; want %q", tt.name, name, got, err, want)
			}
		}
	}
}

// TestRenameFileAndDirectory renames a file over a directory and a
// directory over a file, which rename(2) refuses (EISDIR, ENOTDIR): their
// stored names differ, so the base renamed one beside the other, and the
// file hid the directory and all it held.
func TestRenameFileAndDirectory(t *testing.T) {
	t.Parallel()
	fsys := newFs(t, afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()), base16384.NewCodec())
	if err := fsys.Mkdir("d", 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, fsys, "d/inside", []byte("kept"))
	mustWrite(t, fsys, "f", []byte("file"))
	if err := fsys.Rename("f", "d"); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("a file renamed over a directory: %v, want EISDIR", err)
	}
	if err := fsys.Rename("d", "f"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("a directory renamed over a file: %v, want ENOTDIR", err)
	}
	checkContent(t, fsys, "d/inside", []byte("kept"))
	checkContent(t, fsys, "f", []byte("file"))
}
