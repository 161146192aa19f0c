package fsx_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/b14fs/b14fs/plugins/bencode"
	"github.com/spf13/afero"
)

// noTempFs fails to create temporary files, as a full inode table or a
// name the base cannot hold does, and creates other files as its base does.
type noTempFs struct{ afero.Fs }

// noTemp returns base failing to create temporary files (noTempFs), and on
// an atomicfile.Replacer the local files that hold Replacements, as a full
// local disk.
func noTemp(base afero.Fs) afero.Fs {
	return replacing(noTempFs{base}, base, func(r atomicfile.Replacement) (afero.File, error) {
		return nil, &os.PathError{Op: "open", Path: r.Name(), Err: syscall.ENOSPC}
	})
}

func (n noTempFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&os.O_CREATE != 0 && atomicfile.IsTemp(filepath.Base(name)) {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.ENOSPC}
	}
	return n.Fs.OpenFile(name, flag, perm)
}

// TestTempCreateFails checks every way of starting a write when no
// temporary file can be made: an error wrapping the cause, never a panic,
// nothing left behind, and the file as it was.
func TestTempCreateFails(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		old := []byte("old content")
		mustWrite(t, fsys, "x", old)
		mustWrite(t, fsys, "empty", nil)
		broken := newFs(t, noTemp(base), c)

		_, err := broken.OpenFile("new", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		checkPathError(t, "OpenFile(O_CREATE) of a new file", err, syscall.ENOSPC)
		if _, err := base.Stat("new" + suffix(c)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a failed create left its stored file behind: %v", err)
		}
		_, err = broken.OpenFile("x", os.O_WRONLY|os.O_TRUNC, 0)
		checkPathError(t, "OpenFile(O_TRUNC)", err, syscall.ENOSPC)

		for _, tc := range []struct {
			name string
			flag int
			edit func(f afero.File) error
		}{
			{"empty", os.O_WRONLY, func(f afero.File) error { _, err := f.Write([]byte("hi")); return err }},
			{"x", os.O_WRONLY, func(f afero.File) error { _, err := f.Write([]byte("hi")); return err }},
			{"x", os.O_RDWR, func(f afero.File) error { _, err := f.WriteAt([]byte("hi"), 3); return err }},
			{"x", os.O_RDWR, func(f afero.File) error { return f.Truncate(0) }},
			{"x", os.O_RDWR, func(f afero.File) error { return f.Truncate(4) }},
			{"x", os.O_WRONLY | os.O_APPEND, func(f afero.File) error { _, err := f.Write([]byte("hi")); return err }},
		} {
			f, err := broken.OpenFile(tc.name, tc.flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.edit(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				checkPathError(t, tc.name+": edit", err, syscall.ENOSPC)
			}
		}
		for name, want := range map[string][]byte{"x": old, "empty": nil} {
			got, _ := afero.ReadFile(fsys, name)
			if !bytes.Equal(got, want) && !strings.HasPrefix(string(got), string(want)+"hi") {
				t.Errorf("%s: %q after failed edits", name, got)
			}
		}
		checkNoTemp(t, base)
	})
}

// checkNoTemp fails when the root of base holds a temporary file.
func checkNoTemp(t *testing.T, base afero.Fs) {
	t.Helper()
	d, err := base.Open("/")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, name := range names {
		if atomicfile.IsTemp(name) {
			t.Errorf("temporary file %s left behind", name)
		}
	}
}

// TestLongNames writes files whose stored names reach NAME_MAX on a real
// filesystem: their temporary files must fit too.
func TestLongNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, strings.Repeat("n", 255)), nil, 0o644); err != nil {
		t.Skipf("this filesystem does not take 255-byte names: %v", err)
	}
	base := afero.NewBasePathFs(afero.NewOsFs(), dir)
	fsys := newFs(t, base, base16384.NewCodec())
	for n := 200; n <= 255-len(".b14"); n++ {
		name := strings.Repeat("x", n)
		content := []byte(strconv.Itoa(n))
		f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatalf("%d-byte name: %v", n, err)
		}
		if _, err := f.Write(content); err != nil {
			t.Fatalf("%d-byte name: %v", n, err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("%d-byte name: %v", n, err)
		}
		checkContent(t, fsys, name, content)
		f, err = fsys.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteAt([]byte("y"), 0)
		if err := f.Close(); err != nil {
			t.Fatalf("%d-byte name, rewrite: %v", n, err)
		}
		// An empty stored file, opened without O_TRUNC.
		empty := strings.Repeat("e", n)
		mustWrite(t, base, empty+".b14", nil)
		f, err = fsys.OpenFile(empty, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(content); err != nil {
			t.Fatalf("%d-byte name, write to an empty file: %v", n, err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("%d-byte name, write to an empty file: %v", n, err)
		}
		checkContent(t, fsys, empty, content)
	}
	checkNoTemp(t, base)
	_, err := fsys.Create(strings.Repeat("x", 255-len(".b14")+1))
	checkPathError(t, "Create with a stored name over NAME_MAX", err, syscall.ENAMETOOLONG)
}

// TestStaleTempRemoved checks that temporary files and directories (the
// stages of internal/serve) are never listed, and that the first write to
// a directory (a file or a directory made there) removes those that a
// killed process left there, and only those.
func TestStaleTempRemoved(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	ofKilled := func(name string) string {
		return strings.Replace(name, "-"+strconv.Itoa(os.Getpid())+"-", "-"+strconv.Itoa(cmd.Process.Pid)+"-", 1)
	}
	live := atomicfile.TempName("y.b14")
	stale := ofKilled(atomicfile.TempName("x.b14"))
	liveDir, staleDir := atomicfile.TempName("d"), ofKilled(atomicfile.TempName("e"))
	base := afero.NewMemMapFs()
	fsys := newFs(t, base, base16384.NewCodec(), fsx.ShowUnmapped())
	for _, name := range []string{stale, live, "sub/" + stale, liveDir + "/f.b14", staleDir + "/f.b14"} {
		mustWrite(t, base, name, []byte("partial"))
	}
	if names, _ := afero.ReadDir(fsys, "/"); len(names) != 1 || names[0].Name() != "sub" {
		t.Errorf("listing shows temporary files: %v", names)
	}
	mustWrite(t, fsys, "x", []byte("x"))
	for name, want := range map[string]bool{stale: false, live: true, "sub/" + stale: true, liveDir: true, staleDir: false} {
		if ok, _ := afero.Exists(base, name); ok != want {
			t.Errorf("%s exists: %v, want %v", name, ok, want)
		}
	}
	// Making a directory is a write into its parent (serve's stages are
	// directories made beside what they replace).
	if err := fsys.Mkdir("sub/d", 0o755); err != nil {
		t.Fatal(err)
	}
	if ok, _ := afero.Exists(base, "sub/"+stale); ok {
		t.Error("Mkdir left a stale temporary file in its directory")
	}
}

// limitFs is a disk that fills up: writes that grow its files succeed for
// the first room bytes of growth in all, and then fail with ENOSPC after
// writing what fits. Overwriting a file's bytes takes no room.
type limitFs struct {
	afero.Fs
	room *atomic.Int64
}

// limit returns base filling up after room bytes of growth of its files
// (limitFs), and on an atomicfile.Replacer of its Replacements, as a local
// disk holding them that fills up.
func limit(base afero.Fs, room *atomic.Int64) afero.Fs {
	return replacing(limitFs{base, room}, base, func(r atomicfile.Replacement) (afero.File, error) {
		return limitFile{r, room}, nil
	})
}

func (l limitFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := l.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return limitFile{f, l.room}, nil
}

type limitFile struct {
	afero.File
	room *atomic.Int64
}

// take returns how many of the n bytes to be written at off fit.
func (l limitFile) take(n int, off int64) int {
	info, err := l.Stat()
	if err != nil {
		return 0
	}
	grow := max(0, off+int64(n)-max(off, info.Size()))
	left := l.room.Add(-grow)
	if left >= 0 {
		return n
	}
	return max(0, n+int(left))
}

func (l limitFile) Write(p []byte) (int, error) {
	off, err := l.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	n := l.take(len(p), off)
	m, err := l.File.Write(p[:n])
	if err == nil && n < len(p) {
		err = syscall.ENOSPC
	}
	return m, err
}

func (l limitFile) WriteAt(p []byte, off int64) (int, error) {
	n := l.take(len(p), off)
	m, err := l.File.WriteAt(p[:n], off)
	if err == nil && n < len(p) {
		err = syscall.ENOSPC
	}
	return m, err
}

// TestAppendFailsWhole appends to block codec files on a disk that fills up
// after every possible number of bytes (the base's, or on a base that
// stores files whole the local one holding the new content): the append
// lands whole or the stored file keeps its bytes.
func TestAppendFailsWhole(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		if bc, ok := c.(core.BlockCodec); !ok {
			t.Skip("not a block codec: appends rewrite the file whole, which TestAtomic checks on a full disk")
		} else if _, err := bc.WriteLayout(); err != nil {
			t.Skip("a block codec whose streams have no blocks: appends rewrite the file whole")
		}
		old := randomBytes(1000, 1)
		more := randomBytes(300, 2)
		mustWrite(t, fsys, "a", old)
		stored := mustRead(t, base, "a"+suffix(c))
		// Every possible room; on a remote base, where a failed append
		// costs requests, every few.
		step := int64(1)
		if can(base).remote {
			step = 37
		}
		for room := int64(0); ; room += step {
			var r atomic.Int64
			r.Store(room)
			f, err := newFs(t, limit(base, &r), c).OpenFile("a", os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(more)
			err = f.Close()
			if err == nil {
				checkContent(t, fsys, "a", append(bytes.Clone(old), more...))
				break
			}
			checkPathError(t, "Close on a full disk", err, syscall.ENOSPC)
			if got := mustRead(t, base, "a"+suffix(c)); !bytes.Equal(got, stored) {
				t.Fatalf("room %d: a failed append changed the stored file from %d to %d bytes", room, len(stored), len(got))
			}
		}
		checkNoTemp(t, base)
	})
}

// TestAppendFullTmpfs is the append on a real full disk: a 1 MiB tmpfs with
// about 20 kB free.
func TestAppendFullTmpfs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, 1<<20-20<<10-4<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	base := afero.NewBasePathFs(afero.NewOsFs(), dir)
	fsys := newFs(t, base, base16384.NewCodec())
	old := randomBytes(10000, 1)
	mustWrite(t, fsys, "a", old)
	stored := mustRead(t, base, "a.b14")
	f, err := fsys.OpenFile("a", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(randomBytes(2000000, 2)); err != nil {
		t.Fatal(err)
	}
	checkPathError(t, "Close of an append that does not fit", f.Close(), syscall.ENOSPC)
	checkContent(t, fsys, "a", old)
	if got := mustRead(t, base, "a.b14"); !bytes.Equal(got, stored) {
		t.Errorf("stored file changed from %d to %d bytes", len(stored), len(got))
	}
}

// TestStoreEmptyUnencodable stores an empty file through a codec that
// cannot encode empty input (bencode's JSON side), as a shell's redirection
// does: open with O_TRUNC, a second descriptor (dup2), the first closed
// (a store of the empty file), then the write. The empty store failed,
// and every open of the file with it: the write was lost.
func TestStoreEmptyUnencodable(t *testing.T) {
	t.Parallel()
	base := afero.NewMemMapFs()
	mustWrite(t, base, "x.torrent", []byte("d1:ai1ee"))
	fsys := newFs(t, base, bencode.NewCodec(), fsx.WithExtension(".torrent", ".json"))
	for _, name := range []string{"x.json", "new.json"} {
		first, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		second, err := fsys.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Close(); err != nil {
			t.Fatalf("%s: closing the empty file: %v", name, err)
		}
		if _, err := second.Write([]byte(`{"b":2}`)); err != nil {
			t.Fatalf("%s: write: %v", name, err)
		}
		if err := second.Close(); err != nil {
			t.Fatalf("%s: close: %v", name, err)
		}
		checkContent(t, fsys, name, []byte("{\"b\":2}\n"))
	}
	// An empty file is stored empty, and reads so.
	mustWrite(t, fsys, "empty.json", nil)
	checkContent(t, fsys, "empty.json", nil)
	if info, err := base.Stat("empty.torrent"); err != nil || info.Size() != 0 {
		t.Errorf("the stored empty file: %v, %v", info, err)
	}
}
