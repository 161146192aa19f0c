//go:build linux

package mount

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
	"golang.org/x/sys/unix"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// underneath returns an fsx over tm's directory, for changes made there
// without the mount.
func (tm *testMount) underneath(c core.Codec) *fsx.Fs {
	return mustFsx(tm.t, afero.NewBasePathFs(afero.NewOsFs(), tm.back), c)
}

// TestReplacedWhileOpen replaces the stored file of a file a program is
// reading: the program goes on reading the file it opened, whole, never
// its bytes cut off at the new file's size.
func TestReplacedWhileOpen(t *testing.T) {
	tm := mountNew(t)
	old := bytes.Repeat([]byte("0123456789"), 100000) // 1 MB
	if err := os.WriteFile(tm.at("f"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(tm.at("f"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head := make([]byte, 100000)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(tm.underneath(base16384.NewCodec()), "f", bytes.Repeat([]byte("x"), 500000), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // past the attribute timeout
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := append(head, rest...); !bytes.Equal(got, old) {
		t.Errorf("the open file read %d bytes after the replacement (%d in all), want the old 1000000", len(rest), len(got))
	}
	if b, err := os.ReadFile(tm.at("f")); err != nil || len(b) != 500000 {
		t.Errorf("a new open reads %d bytes, %v; want the new 500000", len(b), err)
	}
}

// TestRewriteWhileReading rewrites a file through the mount (O_TRUNC) over
// and over, 200 kB of A and 100 kB of B in turn, while other programs read
// the stored file (through an Fs of their own): every read is one of the
// two, whole, since each is stored through a temporary file renamed over
// the old; never NUL bytes nobody wrote, never a failure.
func TestRewriteWhileReading(t *testing.T) {
	tm := mountNew(t)
	other := tm.otherView()
	a, b := bytes.Repeat([]byte("A"), 200000), bytes.Repeat([]byte("B"), 100000)
	if err := os.WriteFile(tm.at("f"), a, 0o644); err != nil {
		t.Fatal(err)
	}
	stop := time.Now().Add(raceDuration())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var reads, bad int
	var firstBad string
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				got, err := afero.ReadFile(other, "f")
				mu.Lock()
				reads++
				if err != nil || !(bytes.Equal(got, a) || bytes.Equal(got, b)) {
					bad++
					if firstBad == "" {
						firstBad = fmt.Sprintf("%d bytes, %d NUL, err %v", len(got), bytes.Count(got, []byte{0}), err)
					}
				}
				mu.Unlock()
			}
		}()
	}
	writes := 0
	for time.Now().Before(stop) {
		data := a
		if writes%2 == 0 {
			data = b
		}
		if err := os.WriteFile(tm.at("f"), data, 0o644); err != nil {
			t.Fatalf("write %d: %v", writes, err)
		}
		writes++
	}
	wg.Wait()
	if bad > 0 {
		t.Errorf("%d of %d reads were neither whole content (first: %s)", bad, reads, firstBad)
	}
	t.Logf("%d writes, %d reads", writes, reads)
	if errs := tm.errors(); len(errs) > 0 {
		t.Errorf("the mount logged: %v", errs[0])
	}
}

// TestConcurrentWriters runs two loops writing one small file (as two
// shell loops of echo > f do) and one writing 100000 random bytes to
// another while a loop reads it: no write or read fails (they used to fail
// with EIO, "file already closed", when a stat or a truncation used another
// program's file that was being closed).
func TestConcurrentWriters(t *testing.T) {
	tm := mountNew(t)
	stop := time.Now().Add(raceDuration())
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	loop := func(do func(i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				if err := do(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for w := range 2 {
		loop(func(i int) error {
			return os.WriteFile(tm.at("x"), fmt.Appendf(nil, "writer %d line %d\n", w, i), 0o644)
		})
	}
	rnd := make([]byte, 100000)
	loop(func(int) error {
		rand.Read(rnd)
		return os.WriteFile(tm.at("f"), rnd, 0o644)
	})
	for range 2 {
		loop(func(int) error {
			b, err := os.ReadFile(tm.at("f"))
			if err == nil && len(b) > 100000 {
				// Shorter: read while it was being written, as on a
				// local file system.
				err = fmt.Errorf("read %d bytes", len(b))
			}
			if os.IsNotExist(err) {
				err = nil
			}
			return err
		})
		loop(func(int) error {
			fi, err := os.Stat(tm.at("x"))
			if os.IsNotExist(err) {
				return nil
			}
			if err == nil && fi.Size() > 100 {
				err = fmt.Errorf("size %d", fi.Size())
			}
			return err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if errs := tm.errors(); len(errs) > 0 {
		t.Errorf("the mount logged: %v", errs[0])
	}
}

// TestChecksumCodec copies files into a mount of base16384 with
// checksum=true and reads them back: the checksum covers the whole file, so
// a read past the first 128 KiB used to fail with "checksum mismatch".
func TestChecksumCodec(t *testing.T) {
	c, err := base16384.NewCodec().WithOptions(core.Options{{Key: "checksum", Value: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	tm := mountBack(t, t.TempDir(), c, Options{Writable: true})
	for _, n := range []int{1000, 131072, 140000, 1000003} {
		want := make([]byte, n)
		rand.Read(want)
		src := filepath.Join(t.TempDir(), "src")
		os.WriteFile(src, want, 0o644)
		name := fmt.Sprintf("f%d", n)
		run(t, "", "cp", src, tm.at(name))
		got, err := os.ReadFile(tm.at(name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
		if got, err := afero.ReadFile(tm.underneath(c), name); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: stored file decodes to %d bytes, %v", n, len(got), err)
		}
	}
	if errs := tm.errors(); len(errs) > 0 {
		t.Errorf("the mount logged: %v", errs[0])
	}
}

// TestSeenAtOnce checks that what the mount stores is seen at once by
// stat and by programs that have the file open, and what changes
// underneath within the attribute timeout.
func TestSeenAtOnce(t *testing.T) {
	tm := mountNew(t)
	if err := os.WriteFile(tm.at("f"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(tm.at("f"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if b, _ := io.ReadAll(r); string(b) != "one\n" {
		t.Fatalf("read %q", b)
	}
	os.Stat(tm.at("f")) // cache the attributes
	a, err := os.OpenFile(tm.at("f"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.WriteString("two\n")
	if fi, err := os.Stat(tm.at("f")); err != nil || fi.Size() != 8 {
		t.Errorf("stat while the append is open: %v, %v; want size 8", fi, err)
	}
	a.Close()
	if fi, err := os.Stat(tm.at("f")); err != nil || fi.Size() != 8 {
		t.Errorf("stat after the append: %v, %v; want size 8", fi, err)
	}
	if b, _ := io.ReadAll(r); string(b) != "two\n" {
		t.Errorf("the open reader then read %q, want the appended line", b)
	}
	// Underneath.
	under := tm.underneath(base16384.NewCodec())
	if err := afero.WriteFile(under, "g", []byte("made underneath\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*DefaultTimeout, func() string {
		if b, err := os.ReadFile(tm.at("g")); err != nil || string(b) != "made underneath\n" {
			return fmt.Sprintf("g: %q, %v", b, err)
		}
		return ""
	})
	uf, err := under.OpenFile("f", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	uf.Write([]byte("three\n"))
	uf.Close()
	eventually(t, 2*DefaultTimeout, func() string {
		if fi, err := os.Stat(tm.at("f")); err != nil || fi.Size() != 14 {
			return fmt.Sprintf("stat after an append underneath: %v, %v", fi, err)
		}
		return ""
	})
	if b, _ := io.ReadAll(r); string(b) != "three\n" {
		t.Errorf("the open reader then read %q, want the line appended underneath", b)
	}
}

// TestInodeNumbers checks that files are numbered after their stored
// files, the same across mounts; that a file keeps its number while the
// mount replaces its stored file; and that no two files share one.
func TestInodeNumbers(t *testing.T) {
	back := t.TempDir()
	writeTree(t, back, map[string]string{"sub/keep.b14": ""})
	under := mustFsx(t, afero.NewBasePathFs(afero.NewOsFs(), back), base16384.NewCodec())
	afero.WriteFile(under, "old", []byte("old"), 0o644)
	tm := mountBack(t, back, base16384.NewCodec(), Options{Writable: true})
	names := []string{".", "old", "sub", "sub/keep", "a", "b", "sub/c"}
	ino := func(mnt, name string) uint64 {
		fi, err := os.Stat(filepath.Join(mnt, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	storedIno := func(name string) uint64 {
		p := filepath.Join(back, name)
		if name != "." && name != "sub" {
			p += ".b14"
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	for _, name := range []string{".", "old", "sub", "sub/keep"} {
		if got, want := ino(tm.mnt, name), storedIno(name); got != want {
			t.Errorf("%s: inode number %d, stored file's %d", name, got, want)
		}
	}
	oldIno := ino(tm.mnt, "old")
	for _, name := range []string{"a", "b", "sub/c", "old"} {
		if err := os.WriteFile(tm.at(name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := ino(tm.mnt, "old"); got != oldIno {
		t.Errorf("old: numbered %d after a write replaced its stored file, %d before", got, oldIno)
	}
	first := map[string]uint64{}
	seen := map[uint64]string{}
	for _, name := range names {
		first[name] = ino(tm.mnt, name)
		if other, dup := seen[first[name]]; dup {
			t.Errorf("%s and %s share inode number %d", name, other, first[name])
		}
		seen[first[name]] = name
	}
	for _, name := range []string{"a", "b", "sub/c"} {
		if err := os.WriteFile(tm.at(name), []byte(name+" again"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := ino(tm.mnt, name); got != first[name] {
			t.Errorf("%s: numbered %d after a write, %d before", name, got, first[name])
		}
	}
	tm.unmount()
	for range 2 {
		tm2 := mountBack(t, back, base16384.NewCodec(), Options{})
		for _, name := range names {
			if got, want := ino(tm2.mnt, name), storedIno(name); got != want {
				t.Errorf("after a remount, %s: inode number %d, stored file's %d", name, got, want)
			}
		}
		tm2.unmount()
	}
}

// TestReadOnlyErrors checks that a read-only mount refuses changes with
// EROFS and shows modes as they are.
func TestReadOnlyErrors(t *testing.T) {
	back := t.TempDir()
	writeTree(t, back, nil)
	under := mustFsx(t, afero.NewBasePathFs(afero.NewOsFs(), back), base16384.NewCodec())
	afero.WriteFile(under, "f", []byte("x"), 0o600)
	os.Mkdir(filepath.Join(back, "d"), 0o700)
	tm := mountBack(t, back, base16384.NewCodec(), Options{})
	for what, err := range map[string]error{
		"chmod":    os.Chmod(tm.at("f"), 0o644),
		"truncate": os.Truncate(tm.at("f"), 0),
		"create":   os.WriteFile(tm.at("g"), nil, 0o644),
		"mkdir":    os.Mkdir(tm.at("e"), 0o755),
		"remove":   os.Remove(tm.at("f")),
		"rename":   os.Rename(tm.at("f"), tm.at("h")),
		"symlink":  os.Symlink("f", tm.at("l")),
		"chtimes":  os.Chtimes(tm.at("f"), time.Now(), time.Now()),
	} {
		if !errorsIs(err, syscall.EROFS) {
			t.Errorf("%s: %v, want EROFS", what, err)
		}
	}
	for name, want := range map[string]os.FileMode{"f": 0o600, "d": 0o700 | os.ModeDir} {
		if fi, err := os.Stat(tm.at(name)); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v, %v; want mode %v", name, fi, err, want)
		}
	}
}

// TestCacheMode checks a mount with Options.Cache: the kernel keeps data
// across opens, and what the mount itself stores is still seen at once.
func TestCacheMode(t *testing.T) {
	tm := mountBack(t, t.TempDir(), base16384.NewCodec(), Options{Writable: true, Cache: true})
	for i, content := range []string{"first version\n", "second, longer version\n", "third\n"} {
		if err := os.WriteFile(tm.at("f"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if b, err := os.ReadFile(tm.at("f")); err != nil || string(b) != content {
				t.Errorf("version %d: read %q, %v", i, b, err)
			}
		}
	}
	f, err := os.OpenFile(tm.at("f"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("more\n")
	f.Close()
	if b, err := os.ReadFile(tm.at("f")); err != nil || string(b) != "third\nmore\n" {
		t.Errorf("after an append: %q, %v", b, err)
	}
}

// TestRenameRemoveWhileOpen renames and removes files that a program is
// writing: writes after a rename are stored under the new name (the old one
// does not come back), and those to a removed file are dropped with it.
func TestRenameRemoveWhileOpen(t *testing.T) {
	tm := mountNew(t)
	f, err := os.Create(tm.at("a"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("before ")
	if err := os.Rename(tm.at("a"), tm.at("b")); err != nil {
		t.Fatal(err)
	}
	f.WriteString("after\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(tm.at("b")); err != nil || string(b) != "before after\n" {
		t.Errorf("b: %q, %v", b, err)
	}
	if _, err := os.Stat(tm.stored("a")); !os.IsNotExist(err) {
		t.Errorf("the old name came back: %v", err)
	}

	g, err := os.Create(tm.at("c"))
	if err != nil {
		t.Fatal(err)
	}
	g.WriteString("doomed\n")
	if err := os.Remove(tm.at("c")); err != nil {
		t.Fatal(err)
	}
	g.WriteString("more\n")
	if err := g.Close(); err != nil {
		t.Errorf("close of a removed file: %v", err)
	}
	if _, err := os.Stat(tm.stored("c")); !os.IsNotExist(err) {
		t.Errorf("the removed file came back: %v", err)
	}
	// The kernel releases a file after close returns.
	eventually(t, 5*time.Second, func() string {
		if entries, _ := os.ReadDir(tm.back); len(entries) != 1 {
			return fmt.Sprintf("DIR holds %v, want b.b14 alone", entries)
		}
		return ""
	})
}

// TestOwnerKept writes, as root, a file that another user owns: the stored
// file, replaced by the write, keeps its owner and mode.
func TestOwnerKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	tm := mountNew(t)
	if err := os.WriteFile(tm.at("f"), []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tm.at("f"), 1234, 5678); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tm.at("f"), []byte("new content"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(tm.stored("f"))
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 1234 || st.Gid != 5678 || fi.Mode().Perm() != 0o640 {
		t.Errorf("after a write: owner %d:%d, mode %v; want 1234:5678, 0640", st.Uid, st.Gid, fi.Mode())
	}
}

// TestStoreWhileOpening replaces a file through the mount while another
// program opens it, between the open of the stored file and the making of
// its handle: the program reads the version it opened whole, and does not
// read on, at its end, into the one stored meanwhile.
func TestStoreWhileOpening(t *testing.T) {
	tm := mountNew(t)
	short := bytes.Repeat([]byte("short version\n"), 22000) // more than one read
	long := bytes.Repeat([]byte("the long version\n"), 40000)
	if err := os.WriteFile(tm.at("f"), short, 0o644); err != nil {
		t.Fatal(err)
	}
	var hook atomic.Pointer[func()]
	store := func() {
		if err := os.WriteFile(tm.at("f"), long, 0o644); err != nil {
			t.Error(err)
		}
	}
	hook.Store(&store)
	opened := func() {
		if f := hook.Swap(nil); f != nil {
			(*f)()
		}
	}
	testHookOpened.Store(&opened)
	defer testHookOpened.Store(nil)
	f, err := os.Open(tm.at("f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := io.CopyBuffer(&buf, struct{ io.Reader }{f}, make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	if hook.Load() != nil {
		t.Fatal("the hook did not run")
	}
	if !bytes.Equal(got, short) && !bytes.Equal(got, long) {
		t.Errorf("read %d bytes, starting %.20q, ending %.20q: neither version whole (%d or %d bytes)",
			len(got), got, got[max(0, len(got)-20):], len(short), len(long))
	}
}

// TestMappedThroughAppend writes a file's pages through a shared mapping
// while a descriptor of it opened with O_APPEND is open: the kernel writes
// the pages back through any writable handle of the file, the O_APPEND
// one too, and they must land at their offsets, not at the end. The
// mapping is made in another process (a page fault of the process serving
// the mount could wait on the mount while holding up its garbage
// collector).
func TestMappedThroughAppend(t *testing.T) {
	need(t, "python3")
	tm := mountNew(t)
	for _, tc := range []struct {
		name   string
		script string
	}{
		// The mapping made through the O_APPEND descriptor (Python's
		// "a+b", C's fopen "a+").
		{"mapped-append", `
fd = os.open(path, os.O_RDWR | os.O_APPEND)
m = mmap.mmap(fd, 8)
m[0:1] = b"X"; m.flush()
m[3:5] = b"YZ"; m.close()
os.write(fd, b"+")
os.close(fd)`},
		// Mapped through a plain descriptor, with an O_APPEND one opened
		// after it (the kernel writes back through the newest).
		{"append-opened-after", `
fd = os.open(path, os.O_RDWR)
m = mmap.mmap(fd, 8)
a = os.open(path, os.O_WRONLY | os.O_APPEND)
m[0:1] = b"X"; m.flush()
m[3:5] = b"YZ"; m.flush()
os.write(a, b"+")
m.close(); os.close(fd); os.close(a)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tm.at(tc.name)
			if err := os.WriteFile(path, []byte("abcdefgh"), 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, "", "python3", "-c", "import mmap, os, sys\npath = sys.argv[1]\n"+tc.script, path)
			const want = "XbcYZfgh+"
			if b, err := os.ReadFile(path); string(b) != want || err != nil {
				t.Errorf("through the mount: %q, %v; want %q", b, err, want)
			}
			if b, err := afero.ReadFile(tm.otherView(), tc.name); string(b) != want || err != nil {
				t.Errorf("stored: %q, %v; want %q", b, err, want)
			}
		})
	}
}

// TestStatKeepsAccessTime checks that looking a file up through the mount,
// which reads its stored file's ends for its size, leaves its access time
// as a local stat does, while reading it changes it as a local read does
// (relatime: the access time was before the modification time).
func TestStatKeepsAccessTime(t *testing.T) {
	tm := mountNew(t)
	path := tm.at("f")
	if err := os.WriteFile(path, []byte("mail"), 0o644); err != nil {
		t.Fatal(err)
	}
	atime := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, atime, time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	accessed := func() time.Time {
		t.Helper()
		var st syscall.Stat_t
		// The stored file, as the next lookup through the mount reads it.
		if err := syscall.Stat(tm.stored("f"), &st); err != nil {
			t.Fatal(err)
		}
		return time.Unix(st.Atim.Unix())
	}
	for range 2 {
		if _, err := os.Stat(path); err != nil {
			t.Fatal(err)
		}
		time.Sleep(DefaultTimeout) // for the kernel to look the file up again
	}
	if got := accessed(); !got.Equal(atime) {
		t.Errorf("after stat through the mount: access time %v, want %v", got, atime)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if got := accessed(); got.Equal(atime) {
		t.Errorf("after a read through the mount: access time %v, want now", got)
	}
}

// TestSeekDataHole checks SEEK_DATA and SEEK_HOLE through the mount as on a
// local file without holes: data from any offset before the end, the hole
// at the end, ENXIO at or past the end.
func TestSeekDataHole(t *testing.T) {
	tm := mountNew(t)
	for _, size := range []int64{0, 10} {
		path := tm.at(fmt.Sprintf("f%d", size))
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			off    int64
			whence int
			want   int64 // -1 for ENXIO
		}{
			{0, unix.SEEK_DATA, 0}, {3, unix.SEEK_DATA, 3}, {0, unix.SEEK_HOLE, 10}, {9, unix.SEEK_HOLE, 10},
			{10, unix.SEEK_DATA, -1}, {10, unix.SEEK_HOLE, -1}, {11, unix.SEEK_HOLE, -1},
		} {
			want := tc.want
			if tc.off >= size {
				want = -1
			}
			got, err := unix.Seek(int(f.Fd()), tc.off, tc.whence)
			if want < 0 && err != unix.ENXIO || want >= 0 && (err != nil || got != want) {
				t.Errorf("size %d: lseek(%d, whence %d) = %d, %v; want %d (-1: ENXIO)", size, tc.off, tc.whence, got, err, want)
			}
		}
		f.Close()
	}
}
