package fsx_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "x", []byte("data"))
		_, err := fsys.OpenFile("x", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		checkPathError(t, "O_EXCL on an existing file", err, fs.ErrExist)
		_, err = fsys.Open("missing")
		checkPathError(t, "Open of a missing file", err, fs.ErrNotExist)
		_, err = fsys.Stat("missing")
		checkPathError(t, "Stat of a missing file", err, fs.ErrNotExist)

		f, err := fsys.OpenFile("new", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		checkContent(t, fsys, "new", nil) // exists, empty, before Close
		f.WriteString("abc")
		_, err = f.Read(make([]byte, 1))
		checkPathError(t, "Read on a write-only file", err, fsx.ErrWriteOnly)
		_, err = f.ReadAt(make([]byte, 1), 0)
		checkPathError(t, "ReadAt on a write-only file", err, fsx.ErrWriteOnly)
		_, err = f.WriteAt([]byte("x"), -1)
		checkPathError(t, "WriteAt at a negative offset", err, fs.ErrInvalid)
		_, err = f.Seek(-1, io.SeekStart)
		checkPathError(t, "Seek to a negative offset", err, fs.ErrInvalid)
		_, err = f.Seek(0, 7)
		checkPathError(t, "Seek with a bad whence", err, fs.ErrInvalid)
		checkPathError(t, "Truncate to a negative size", f.Truncate(-1), fs.ErrInvalid)
		_, err = f.Readdir(-1)
		checkPathError(t, "Readdir on a file", err, errNotDir)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		checkPathError(t, "second Close", f.Close(), fs.ErrClosed)
		_, err = f.Write([]byte("x"))
		checkPathError(t, "Write after Close", err, fs.ErrClosed)
		checkContent(t, fsys, "new", []byte("abc"))

		f, err = fsys.Open("x")
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Write([]byte("x"))
		checkPathError(t, "Write on a read-only file", err, fsx.ErrReadOnly)
		checkPathError(t, "Truncate on a read-only file", f.Truncate(0), fsx.ErrReadOnly)
		f.Close()
		_, err = f.ReadAt(make([]byte, 1), 0)
		checkPathError(t, "ReadAt after Close", err, fs.ErrClosed)

		f, err = fsys.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteAt([]byte("x"), 0)
		checkPathError(t, "WriteAt on an O_APPEND file", err, fsx.ErrAppendOffset)
		f.Close()
		checkContent(t, fsys, "x", []byte("data"))

		if err := fsys.Mkdir("d", 0o755); err != nil {
			t.Fatal(err)
		}
		_, err = fsys.OpenFile("d", os.O_WRONLY, 0)
		if err == nil {
			t.Error("opening a directory for writing succeeded")
		}
		d, err := fsys.Open("d")
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Read(make([]byte, 1))
		checkPathError(t, "Read on a directory", err, errIsDir)
		d.Close()
	})
}

// TestNames checks the name mappings and where files are stored.
func TestNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opts   []fsx.Option
		shown  string
		stored string // "" when shown has no stored form
	}{
		{"default suffix", nil, "notes.txt", "notes.txt.b64"},
		{"suffix", []fsx.Option{fsx.WithSuffix(".enc")}, "notes.txt", "notes.txt.enc"},
		{"no suffix", []fsx.Option{fsx.WithSuffix("")}, "notes.txt", "notes.txt"},
		{"extension", []fsx.Option{fsx.WithExtension(".torrent", ".json")}, "x.json", "x.torrent"},
		{"extension mismatch", []fsx.Option{fsx.WithExtension(".torrent", ".json")}, "x.txt", ""},
		{"extension only", []fsx.Option{fsx.WithExtension(".torrent", ".json")}, ".json", ""},
		{"unmapped shown", []fsx.Option{fsx.WithExtension(".torrent", ".json"), fsx.ShowUnmapped()}, "x.txt", "x.txt"},
		{"stored name", []fsx.Option{fsx.WithExtension(".torrent", ".json"), fsx.ShowUnmapped()}, "x.torrent", ""},
		{"temporary name", []fsx.Option{fsx.WithSuffix(""), fsx.ShowUnmapped()}, ".x.b14fs-0123abcd-1-x.tmp", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := afero.NewMemMapFs()
			fsys := newFs(t, base, b64{}, tt.opts...)
			err := afero.WriteFile(fsys, "d/"+tt.shown, []byte("content"), 0o644)
			if tt.stored == "" {
				checkPathError(t, "writing "+tt.shown, err, fsx.ErrNotMapped)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			names, err := afero.ReadDir(base, "d")
			if err != nil || len(names) != 1 || names[0].Name() != tt.stored {
				t.Fatalf("base holds %v, %v; want only %s", names, err, tt.stored)
			}
			shown, err := afero.ReadDir(fsys, "d")
			if err != nil || len(shown) != 1 || shown[0].Name() != tt.shown || shown[0].Size() != 7 {
				t.Fatalf("fsx shows %v, %v; want only %s of size 7", shown, err, tt.shown)
			}
		})
	}
}

// TestListing checks which base files a listing shows, and that a mapped
// file wins a name over an unmapped one.
func TestListing(t *testing.T) {
	t.Parallel()
	base := afero.NewMemMapFs()
	mustWrite(t, base, "plain", []byte("raw"))
	mustWrite(t, base, "a.b64", []byte("YWJj")) // shown as "a", decoded
	mustWrite(t, base, "a", []byte("hidden"))   // shadowed by a.b64
	mustWrite(t, base, ".a.b64.b14fs-0123abcd-1-x.tmp", []byte("temporary"))
	base.Mkdir("dir.b64", 0o755)
	tests := []struct {
		opts []fsx.Option
		want []string
	}{
		{nil, []string{"a", "dir.b64"}},
		{[]fsx.Option{fsx.ShowUnmapped()}, []string{"a", "dir.b64", "plain"}},
	}
	for _, tt := range tests {
		fsys := newFs(t, base, b64{}, tt.opts...)
		infos, err := afero.ReadDir(fsys, ".")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, info := range infos {
			names = append(names, info.Name())
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("listing %v, want %v", names, tt.want)
		}
		checkContent(t, fsys, "a", []byte("abc"))
		_, err = fsys.Create("dir")
		checkPathError(t, "creating a file stored where a directory is", err, errIsDir)
		if _, err := fsys.Stat("a.b64"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat of a stored name: %v, want fs.ErrNotExist", err)
		}
	}
}

func TestRenameRemove(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "a", []byte("A"))
		mustWrite(t, fsys, "b", []byte("B"))
		dir := "g" // where d is renamed to
		if can(base).rename {
			if err := fsys.Rename("a", "c"); err != nil {
				t.Fatal(err)
			}
			checkContent(t, fsys, "c", []byte("A"))
			if err := fsys.Rename("c", "b"); err != nil { // replaces b
				t.Fatal(err)
			}
			checkContent(t, fsys, "b", []byte("A"))
			if _, err := fsys.Stat("c"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Stat after rename away: %v", err)
			}
		} else {
			for _, to := range []string{"c", "b"} {
				if err := fsys.Rename("a", to); !errors.Is(err, errors.ErrUnsupported) {
					t.Errorf("Rename to %s on a base without rename: %v, want errors.ErrUnsupported", to, err)
				}
			}
			checkContent(t, fsys, "a", []byte("A"))
			checkContent(t, fsys, "b", []byte("B"))
			if err := fsys.Remove("a"); err != nil {
				t.Fatal(err)
			}
			dir = "d"
		}
		var le *os.LinkError
		if err := fsys.Rename("missing", "x"); !errors.As(err, &le) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Rename of a missing file: %v, want an *os.LinkError wrapping fs.ErrNotExist", err)
		}

		if err := fsys.MkdirAll("d/e", 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, fsys, "d/e/f", []byte("F"))
		if err := fsys.Rename("d", "g"); can(base).rename && err != nil {
			t.Fatal(err)
		} else if !can(base).rename && !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("Rename of a directory on a base without rename: %v, want errors.ErrUnsupported", err)
		}
		checkContent(t, fsys, dir+"/e/f", []byte("F"))
		checkPathError(t, "Mkdir over a file", fsys.Mkdir("b", 0o755), fs.ErrExist)
		checkPathError(t, "Mkdir over a directory", fsys.Mkdir(dir, 0o755), fs.ErrExist)
		checkPathError(t, "MkdirAll through a file", fsys.MkdirAll("b/x", 0o755), errNotDir)

		if err := fsys.Remove("b"); err != nil {
			t.Fatal(err)
		}
		checkPathError(t, "Remove of a missing file", fsys.Remove("b"), fs.ErrNotExist)
		if err := fsys.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := fsys.RemoveAll(dir); err != nil {
			t.Errorf("RemoveAll of a missing directory: %v", err)
		}
		if infos, err := afero.ReadDir(base, "/"); err != nil || len(infos) != 0 {
			t.Errorf("base holds %d entries (%v), %v after removing everything", len(infos), names(infos), err)
		}
	})
}

func TestChmodChtimes(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "x", []byte("data"))
		mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		if !can(base).attrs {
			checkPathError(t, "Chmod on a base without modes", fsys.Chmod("x", 0o600), errors.ErrUnsupported)
			checkPathError(t, "Chtimes on a base without times", fsys.Chtimes("x", mtime, mtime), errors.ErrUnsupported)
			checkPathError(t, "Chown on a base without owners", fsys.Chown("x", os.Getuid(), os.Getgid()), errors.ErrUnsupported)
			if info, err := fsys.Stat("x"); err != nil || info.Mode() != 0o644 || info.ModTime().Equal(mtime) {
				t.Fatalf("Stat = %v, %v, %v; want mode 0644 and the time it was stored", info.Mode(), info.ModTime(), err)
			}
			checkContent(t, fsys, "x", []byte("data"))
			return
		}
		if err := fsys.Chmod("x", 0o600); err != nil {
			t.Fatal(err)
		}
		if err := fsys.Chtimes("x", mtime, mtime); err != nil {
			t.Fatal(err)
		}
		info, err := fsys.Stat("x")
		if err != nil || info.Mode().Perm() != 0o600 || !info.ModTime().Equal(mtime) {
			t.Fatalf("Stat = %v, %v; want mode 0600, time %v", info.Mode(), info.ModTime(), mtime)
		}
		// Rewriting keeps the mode.
		mustWrite(t, fsys, "x", []byte("new data"))
		if info, err := fsys.Stat("x"); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("mode after rewrite %v, %v; want 0600", info.Mode(), err)
		}
		checkPathError(t, "Chmod of a missing file", fsys.Chmod("missing", 0o600), fs.ErrNotExist)
		if err := fsys.Chown("x", os.Getuid(), os.Getgid()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAtomic checks that other programs see the old content until Close
// (this Fs's readers see the writes at once, as on a local filesystem), and
// that a failed replacement keeps the old content and leaves no temporary
// file.
func TestAtomic(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		old := []byte("old content")
		mustWrite(t, fsys, "x", old)
		f, err := fsys.Create("x")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("new content, longer")
		checkContent(t, newFs(t, base, c), "x", old)
		checkContent(t, fsys, "x", []byte("new content, longer"))
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		checkContent(t, fsys, "x", []byte("new content, longer"))

		failing := newFs(t, failing(base), c)
		f, err = failing.OpenFile("x", os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("lost")
		checkPathError(t, "Sync with a failing rename", f.Sync(), errInjected)
		_, err = f.WriteString("more")
		checkPathError(t, "Write after a failed Sync", err, errInjected)
		checkPathError(t, "Close after a failed Sync", f.Close(), errInjected)

		f, err = failing.OpenFile("x", os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("lost")
		checkPathError(t, "Close with a failing rename", f.Close(), errInjected)
		checkContent(t, fsys, "x", []byte("new content, longer"))

		full := newFs(t, full(base), c)
		f, err = full.Create("x")
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Write(randomBytes(1<<20, 1))
		checkPathError(t, "Write to a full disk", err, errInjected)
		_, err = f.Write([]byte("more"))
		checkPathError(t, "Write after a failed Write", err, errInjected)
		checkPathError(t, "Close after a failed Write", f.Close(), errInjected)
		checkContent(t, fsys, "x", []byte("new content, longer"))
		if infos, _ := afero.ReadDir(base, "/"); len(infos) != 1 {
			t.Errorf("base holds %d files after a failed write, want 1", len(infos))
		}
	})
}

// TestConcurrent runs ReadAt calls on one file, and writers and readers of
// other files, at the same time (run with -race).
func TestConcurrent(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		want := randomBytes(20000, 9)
		mustWrite(t, fsys, "shared", want)
		f, err := fsys.Open("shared")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for g := range 8 {
			wg.Go(func() {
				p := make([]byte, 300)
				for i := range 50 {
					off := int64((g*7919 + i*104729) % (len(want) - len(p)))
					if _, err := f.ReadAt(p, off); err != nil || !bytes.Equal(p, want[off:off+int64(len(p))]) {
						errs <- errors.New("concurrent ReadAt read wrong data")
						return
					}
				}
			})
		}
		for g := range 4 {
			wg.Go(func() {
				name := string(rune('a' + g))
				data := randomBytes(1000+g, uint64(g))
				for range 5 {
					if err := afero.WriteFile(fsys, name, data, 0o644); err != nil {
						errs <- err
						return
					}
					if got, err := afero.ReadFile(fsys, name); err != nil || !bytes.Equal(got, data) {
						errs <- errors.New("concurrent write and read-back differ")
						return
					}
					if _, err := afero.ReadDir(fsys, "/"); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// TestBadData checks that a corrupt stored file gives a *fs.PathError
// wrapping the codec's error on Stat or Read, never wrong data.
func TestBadData(t *testing.T) {
	t.Parallel()
	base := afero.NewMemMapFs()
	fsys := newFs(t, base, b64{})
	good := encode(b64{}, randomBytes(100, 1))
	bad := bytes.Clone(good)
	bad[50] = '!'
	mustWrite(t, base, "bad.b64", bad)
	mustWrite(t, base, "short.b64", good[:len(good)-1])

	_, err := afero.ReadFile(fsys, "bad")
	checkPathError(t, "reading a corrupt file", err, core.ErrInvalidData)
	f, err := fsys.Open("bad")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.ReadAt(make([]byte, 4), 36)
	checkPathError(t, "ReadAt of a corrupt block", err, core.ErrInvalidData)
	if _, err := f.ReadAt(make([]byte, 4), 0); err != nil {
		t.Errorf("ReadAt of a sound block: %v", err)
	}
	f.Close()

	_, err = fsys.Stat("short")
	checkPathError(t, "Stat of a truncated file", err, core.ErrInvalidData)
	_, err = afero.ReadDir(fsys, ".")
	checkPathError(t, "listing a truncated file", err, core.ErrInvalidData)

	// io/fs listings and names need no decoding: only Info fails.
	entries, err := fs.ReadDir(afero.NewIOFS(fsys), ".")
	if err != nil || len(entries) != 2 {
		t.Fatalf("fs.ReadDir = %v, %v; want 2 entries", entries, err)
	}
	_, err = entries[1].Info()
	checkPathError(t, "Info of a truncated file", err, core.ErrInvalidData)
	d, err := fsys.Open(".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if names, err := d.Readdirnames(-1); err != nil || !slices.Equal(names, []string{"bad", "short"}) {
		t.Errorf("Readdirnames = %v, %v", names, err)
	}
}

func TestBadMapping(t *testing.T) {
	t.Parallel()
	for _, opt := range []fsx.Option{
		fsx.WithSuffix("a/b"),
		fsx.WithSuffix("x\x00"),
		fsx.WithExtension("torrent", ".json"),
		fsx.WithExtension(".torrent", "."),
		fsx.WithExtension(".torrent", ""),
		fsx.WithExtension("./x", ".json"),
	} {
		if _, err := fsx.New(afero.NewMemMapFs(), b64{}, opt); !errors.Is(err, fsx.ErrBadMapping) {
			t.Errorf("New with a bad mapping: %v, want ErrBadMapping", err)
		}
	}
	for _, opt := range []fsx.Option{fsx.WithSuffix(""), fsx.WithSuffix(".enc"), fsx.WithExtension(".torrent", ".json")} {
		if _, err := fsx.New(afero.NewMemMapFs(), b64{}, opt); err != nil {
			t.Errorf("New with a good mapping: %v", err)
		}
	}
}

// TestReaddirKeepsGoodEntries lists a directory holding a file that does
// not decode: Readdir returns the others and the error.
// TestReaddirVanished removes entries of a directory between two Readdirs
// of it: the second leaves them out, as os.File's does; it failed with
// ENOENT.
func TestReaddirVanished(t *testing.T) {
	t.Parallel()
	fsys := newFs(t, afero.NewMemMapFs(), base16384.NewCodec())
	for _, name := range []string{"/d/a", "/d/b", "/d/c"} {
		mustWrite(t, fsys, name, []byte(name))
	}
	d, err := fsys.Open("/d")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	first, err := d.Readdir(1)
	if err != nil || len(first) != 1 {
		t.Fatalf("Readdir(1): %v, %v", first, err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if name != first[0].Name() {
			if err := fsys.Remove("/d/" + name); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rest, err := d.Readdir(-1); err != nil || len(rest) != 0 {
		t.Errorf("Readdir(-1) after the others went: %v, %v; want none, no error", rest, err)
	}
}

func TestReaddirKeepsGoodEntries(t *testing.T) {
	t.Parallel()
	base := afero.NewMemMapFs()
	fsys := newFs(t, base, base16384.NewCodec())
	mustWrite(t, fsys, "/a", []byte("first"))
	mustWrite(t, base, "/b.b14", []byte("not base16384"))
	mustWrite(t, fsys, "/c", []byte("third"))
	d, err := fsys.Open("/")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	infos, err := d.Readdir(-1)
	var names []string
	for _, fi := range infos {
		names = append(names, fi.Name())
	}
	if !slices.Equal(names, []string{"a", "c"}) || !errors.Is(err, core.ErrInvalidData) {
		t.Errorf("Readdir = %v, %v; want [a c] and the error of b", names, err)
	}
}

// TestLongDirectoryNames checks that a directory whose name is too long for
// a file's stored name (NAME_MAX less the codec's suffix, here 252 to 255
// bytes) is made, found, listed and used as any directory is, while a file
// of such a name fails with ENAMETOOLONG.
func TestLongDirectoryNames(t *testing.T) {
	t.Parallel()
	fsys := newFs(t, afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()), base16384.NewCodec())
	for _, n := range []int{251, 252, 255} {
		name := strings.Repeat("d", n)
		if err := fsys.Mkdir(name, 0o755); err != nil {
			t.Fatalf("Mkdir of a %d-byte name: %v", n, err)
		}
		if info, err := fsys.Stat(name); err != nil || !info.IsDir() {
			t.Fatalf("Stat of a %d-byte directory: %v, %v", n, info, err)
		}
		if info, _, err := fsys.LstatIfPossible(name); err != nil || !info.IsDir() {
			t.Fatalf("LstatIfPossible of a %d-byte directory: %v, %v", n, info, err)
		}
		mustWrite(t, fsys, name+"/f", []byte("in a long directory"))
		checkContent(t, fsys, name+"/f", []byte("in a long directory"))
		if err := fsys.Rename(name, name+"/../"+strings.Repeat("e", n)); err != nil {
			t.Fatalf("Rename of a %d-byte directory: %v", n, err)
		}
		checkContent(t, fsys, strings.Repeat("e", n)+"/f", []byte("in a long directory"))
	}
	names, err := afero.ReadDir(fsys, ".")
	if err != nil || len(names) != 3 {
		t.Fatalf("ReadDir: %d entries, %v; want the 3 directories", len(names), err)
	}
	err = afero.WriteFile(fsys, strings.Repeat("f", 252), []byte("x"), 0o644)
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("a file of a 252-byte name: %v, want ENAMETOOLONG", err)
	}
	// Nothing of such a name is there, and no file can have it.
	if _, err := fsys.Stat(strings.Repeat("g", 252)); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("Stat of a 252-byte name of nothing: %v, want ENAMETOOLONG", err)
	}
}
