//go:build linux

package mount

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/afero"
	"golang.org/x/sys/unix"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// countReads counts the reads the kernel asks of the mount of files named
// name, until the test ends.
func countReads(t *testing.T, name string) *atomic.Int64 { return countCalls(t, &testHookRead, name) }

// countReleases counts the releases of opens of files named name, until
// the test ends. The kernel releases an open after close returns.
func countReleases(t *testing.T, name string) *atomic.Int64 {
	return countCalls(t, &testHookReleased, name)
}

// countCalls counts the calls of hook with files named name, until the
// test ends.
func countCalls(t *testing.T, hook *atomic.Pointer[func(string)], name string) *atomic.Int64 {
	var n atomic.Int64
	count := func(file string) {
		if path.Base(file) == name {
			n.Add(1)
		}
	}
	hook.Store(&count)
	t.Cleanup(func() { hook.Store(nil) })
	return &n
}

// waitReleased waits until releases counts want releases.
func waitReleased(t *testing.T, releases *atomic.Int64, want int64) {
	t.Helper()
	for start := time.Now(); releases.Load() < want; time.Sleep(time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%d of %d opens released after 10 s", releases.Load(), want)
		}
	}
}

// TestSecondReadFromPageCache reads a file again and again: from the
// kernel's page cache once it holds it, asking the mount nothing; after a
// write through the mount, and after a change underneath, the next open
// reads the new content from the mount. Each open it makes comes once
// the ones before are released, so that each is a first open: one that
// comes while another is open takes what the cache holds (the change
// underneath unseen, the write through the mount copied into the cache).
func TestSecondReadFromPageCache(t *testing.T) {
	tm := mountNew(t)
	const name = "second-read"
	want := bytes.Repeat([]byte("0123456789abcdef"), 20000)
	releases := countReleases(t, name)
	if err := os.WriteFile(tm.at(name), want, 0o644); err != nil {
		t.Fatal(err)
	}
	opens := int64(1)
	reads := countReads(t, name)
	readAs := func(what string, want []byte) int64 {
		t.Helper()
		waitReleased(t, releases, opens)
		opens++
		before := reads.Load()
		got, err := os.ReadFile(tm.at(name))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: read %d bytes, %v; want %d bytes written", what, len(got), err, len(want))
		}
		return reads.Load() - before
	}
	if n := readAs("first read", want); n == 0 {
		t.Fatal("the first read asked the mount nothing")
	}
	// The kernel releases the writer's open after close returns: the
	// first reads may come while it is open, and be direct I/O. Once it is
	// released, a read is cached and the next asks the mount nothing.
	for i := 0; readAs("another read", want) != 0; i++ {
		if i == 100 {
			t.Fatal("the file is not read through the page cache")
		}
		time.Sleep(10 * time.Millisecond)
	}

	want = bytes.ToUpper(want) // same size
	waitReleased(t, releases, opens)
	opens++
	writeAtStart := func(fsys afero.Fs, name string, p []byte) {
		t.Helper()
		f, err := fsys.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(p, 0); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	writeAtStart(afero.NewOsFs(), tm.at(name), want)
	if n := readAs("after a write", want); n == 0 {
		t.Error("the read after a write asked the mount nothing")
	}

	readAs("cached again", want)
	// In place, underneath: the same base file, the same size.
	waitReleased(t, releases, opens)
	want = bytes.ToLower(want)
	writeAtStart(tm.underneath(base16384.NewCodec()), name, want)
	if n := readAs("after a change underneath", want); n == 0 {
		t.Error("the read after a change underneath asked the mount nothing")
	}

	readAs("cached again", want)
	// Underneath again, with the stored file's modification time put back
	// (rsync --inplace -t, a restore from a backup): its change time tells.
	waitReleased(t, releases, opens)
	info, err := os.Stat(tm.stored(name))
	if err != nil {
		t.Fatal(err)
	}
	want = bytes.ToUpper(want)
	writeAtStart(tm.underneath(base16384.NewCodec()), name, want)
	if err := os.Chtimes(tm.stored(name), info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if n := readAs("after a change underneath, its time put back", want); n == 0 {
		t.Error("the read after a change underneath whose time was put back asked the mount nothing")
	}
}

// TestFirstOpenAnsweredLate holds back the answer to a first open through
// the page cache, of a file changed since it was last cached, while a
// second open reads the file into the cache: the first open's answer, when
// it comes, does not drop the pages the second one reads. A drop while an
// open reads the cache lets it read zeros, where a truncation cut a page
// it held and a write regrew the file into a new one (TestStress).
func TestFirstOpenAnsweredLate(t *testing.T) {
	tm := mountNew(t)
	const name = "answered-late"
	want := bytes.Repeat([]byte("answered late\n"), 20000)
	// Written underneath: a writer's open through the mount could still be
	// open, its release not yet come, and make the first open direct I/O.
	if err := afero.WriteFile(tm.underneath(base16384.NewCodec()), name, want, 0o644); err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	var holding atomic.Bool
	hold := func() {
		if !holding.Swap(true) {
			close(held)
			<-release
		}
	}
	testHookAnswering.Store(&hold)
	defer testHookAnswering.Store(nil)
	first := make(chan error, 1)
	var f1 *os.File
	go func() {
		var err error
		f1, err = os.Open(tm.at(name))
		first <- err
	}()
	<-held
	f2, err := os.Open(tm.at(name))
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	defer f2.Close()
	readAll := func(what string) {
		t.Helper()
		if b, err := io.ReadAll(io.NewSectionReader(f2, 0, 1<<30)); err != nil || !bytes.Equal(b, want) {
			t.Fatalf("%s: read %d bytes, %v; want %d bytes written", what, len(b), err, len(want))
		}
	}
	readAll("the second open")
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	defer f1.Close()
	reads := countReads(t, name)
	readAll("the second open, once the first has its answer")
	if n := reads.Load(); n != 0 {
		t.Errorf("the first open's answer dropped the pages the second one read: it read them again, in %d reads", n)
	}
}

// TestOpenRenamedOverWhileCached opens a name that another file took, by a
// rename underneath, between the kernel's lookup and the open, while the
// file looked up is open through the page cache: the open reads the new
// file whole, not the old one's cached pages, or the new one cut at the old
// one's size.
func TestOpenRenamedOverWhileCached(t *testing.T) {
	tm := mountNew(t)
	const name, other = "renamed-over", "renamed-from"
	old, repl := bytes.Repeat([]byte("old\n"), 25), bytes.Repeat([]byte("new\n"), 75)
	if err := os.WriteFile(tm.at(name), old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tm.at(other), repl, 0o644); err != nil {
		t.Fatal(err)
	}
	// Once a read asks the mount nothing, the writer's open is released
	// and the next open goes through the page cache.
	reads := countReads(t, name)
	for i := 0; ; i++ {
		before := reads.Load()
		if _, err := os.ReadFile(tm.at(name)); err != nil {
			t.Fatal(err)
		}
		if reads.Load() == before {
			break
		}
		if i == 100 {
			t.Fatal("the file is not read through the page cache")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r, err := os.Open(tm.at(name))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if b, err := io.ReadAll(r); err != nil || !bytes.Equal(b, old) {
		t.Fatalf("read %q, %v", b, err)
	}
	var once sync.Once
	rename := func() {
		once.Do(func() {
			if err := os.Rename(tm.stored(other), tm.stored(name)); err != nil {
				t.Error(err)
			}
		})
	}
	testHookOpening.Store(&rename)
	defer testHookOpening.Store(nil)
	b, err := os.ReadFile(tm.at(name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, repl) {
		t.Errorf("read %d bytes starting %.8q, want the new file's %d", len(b), b, len(repl))
	}
	if b, err := io.ReadAll(io.NewSectionReader(r, 0, 1<<20)); err != nil && !errors.Is(err, io.EOF) || !bytes.Equal(b, old) {
		t.Errorf("the open old file reads %d bytes, %v; want its %d", len(b), err, len(old))
	}
}

// TestReadAhead checks that the kernel reads ahead 1 MiB of a file read
// through the page cache, as much as the mount answers at once, when the
// mount runs as root.
func TestReadAhead(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the read-ahead is set as root only")
	}
	tm := mountNew(t)
	var st unix.Stat_t
	if err := unix.Stat(tm.mnt, &st); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/sys/class/bdi/%d:%d/read_ahead_kb", unix.Major(st.Dev), unix.Minor(st.Dev)))
	if err != nil {
		t.Skip(err)
	}
	if got := strings.TrimSpace(string(b)); got != "1024" {
		t.Errorf("read_ahead_kb is %s, want 1024", got)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`/mnt/plain`, "/mnt/plain"},
		{`/mnt/a\040b`, "/mnt/a b"},
		{`/mnt/tab\011nl\012back\134`, "/mnt/tab\tnl\nback\\"},
		{`/mnt/short\04`, `/mnt/short\04`},
		{`/mnt/not\999octal`, `/mnt/not\999octal`},
	} {
		if got := unescapeMountinfo(tt.in); got != tt.want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
