package mount

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// countReads counts the reads the kernel asks of the file name until the
// test ends.
func countReads(t *testing.T, name string) *atomic.Int64 {
	var n atomic.Int64
	hook := func(got string) {
		if filepath.Base(got) == name {
			n.Add(1)
		}
	}
	testHookRead.Store(&hook)
	t.Cleanup(func() { testHookRead.Store(nil) })
	return &n
}

// TestPageCache checks that a file read again through a new read-only open
// comes from the kernel's page cache, without a read reaching the mount,
// while nothing changed it; and that a change through the mount or
// underneath is read at the next open.
func TestPageCache(t *testing.T) {
	tm := mountNew(t)
	const name = "pagecache"
	data := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16)
	if err := os.WriteFile(tm.at(name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	reads := countReads(t, name)
	// check reads the file whole. cached says whether the read is to
	// come from the page cache; as the kernel releases a closed file a
	// moment after close(2) returns, and a writer's open keeps readers
	// off the cache (see pagecache.go) until then, a while may pass first.
	check := func(at string, want []byte, cached bool) {
		t.Helper()
		for try := 0; ; try++ {
			reads.Store(0)
			got, err := os.ReadFile(tm.at(name))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: read %d bytes (%v), equal %v", at, len(got), err, bytes.Equal(got, want))
			}
			n := reads.Load()
			if cached == (n == 0) {
				return
			}
			if !cached || try == 100 {
				t.Fatalf("%s: %d reads reached the mount; want from the page cache: %v", at, n, cached)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	check("first read", data, false)
	check("read again", data, true)

	f := openOrFail(t, tm.at(name), os.O_RDWR)
	if _, err := f.WriteAt([]byte("XYZ"), 1000); err != nil {
		t.Fatal(err)
	}
	closeOrFail(t, f)
	copy(data[1000:], "XYZ")
	check("after a write through the mount", data, false)
	check("read again after the write", data, true)

	under := tm.otherView()
	g, err := under.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.WriteAt([]byte("underneath"), 5000); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	copy(data[5000:], "underneath")
	check("after a change of the same size underneath", data, false)

	// Appended to underneath: the new open reads to the new end, though
	// the kernel's attributes, which still give the old size, have not
	// timed out.
	if _, err := os.Stat(tm.at(name)); err != nil {
		t.Fatal(err)
	}
	g, err = under.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write([]byte("appended underneath")); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	data = append(data, "appended underneath"...)
	check("after an append underneath", data, false)
}

// TestReadDuringWrite reads a file through one descriptor while a write
// to it through another is on its way: held in the mount, not yet stored.
// The read may give the old bytes or the new, as on a local file system;
// once the write returns, a read must give what it wrote, and must not
// leave old bytes cached.
func TestReadDuringWrite(t *testing.T) {
	tm := mountNew(t)
	path := tm.at("raced")
	if err := os.WriteFile(path, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	r := openOrFail(t, path, os.O_RDONLY)
	defer r.Close()
	w := openOrFail(t, path, os.O_RDWR)
	defer w.Close()
	buf := make([]byte, 4096)
	if _, err := r.ReadAt(buf, 0); err != nil { // cached
		t.Fatal(err)
	}
	inWrite, release := make(chan struct{}), make(chan struct{})
	hook := func() {
		close(inWrite)
		<-release
	}
	testHookWrite.Store(&hook)
	defer testHookWrite.Store(nil)
	wrote := make(chan error, 1)
	go func() {
		_, err := w.WriteAt([]byte("new bytes"), 8)
		wrote <- err
	}()
	<-inWrite
	testHookWrite.Store(nil)
	read := make(chan error, 1)
	go func() {
		_, err := r.ReadAt(make([]byte, 4096), 0)
		read <- err
	}()
	select {
	case err := <-read:
		if err != nil {
			close(release)
			t.Fatal(err)
		}
	case <-time.After(time.Second): // the read waits for the write
	}
	close(release)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	if string(buf[8:17]) != "new bytes" {
		t.Fatalf("after the write returned, the other descriptor read %q", buf[8:17])
	}
	if errs := tm.errors(); len(errs) > 0 {
		t.Errorf("the mount logged: %v", fmt.Sprint(errs))
	}
}

// TestOneKindAtOnce checks that the opens of a file open at once are all
// served one way: a writer opened while a reader is open through the page
// cache is served through it too, and a reader opened while a writer is
// open with direct I/O is served with direct I/O. (Mixed, a read through the
// cache racing with a direct write could cache bytes the file never held
// at the size the kernel knows: TestStress read zeros that way.)
func TestOneKindAtOnce(t *testing.T) {
	tm := mountNew(t)
	data := bytes.Repeat([]byte("kinds of opens\n"), 4000)
	for _, name := range []string{"reader-first", "writer-first"} {
		if err := os.WriteFile(tm.at(name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	readVia := func(reads *atomic.Int64, f *os.File) int64 {
		t.Helper()
		reads.Store(0)
		buf := make([]byte, len(data))
		if n, err := f.ReadAt(buf, 0); n != len(data) || !bytes.Equal(buf, data) {
			t.Fatalf("read %d bytes (%v), or the wrong bytes", n, err)
		}
		return reads.Load()
	}

	reads := countReads(t, "reader-first")
	// Until the kernel releases the file os.WriteFile wrote, a reader is
	// served with direct I/O: wait until a read comes from the cache.
	for try := 0; ; try++ {
		reads.Store(0)
		if _, err := os.ReadFile(tm.at("reader-first")); err != nil {
			t.Fatal(err)
		}
		if reads.Load() == 0 {
			break
		}
		if try == 100 {
			t.Fatal("no read of the file came from the page cache")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := openOrFail(t, tm.at("reader-first"), os.O_RDONLY)
	defer r.Close()
	readVia(reads, r) // now in the page cache
	w := openOrFail(t, tm.at("reader-first"), os.O_RDWR)
	defer w.Close()
	if n := readVia(reads, w); n != 0 {
		t.Errorf("a writer opened while a reader is open through the page cache: %d reads reached the mount, want none", n)
	}

	reads = countReads(t, "writer-first")
	w = openOrFail(t, tm.at("writer-first"), os.O_RDWR)
	defer w.Close()
	r = openOrFail(t, tm.at("writer-first"), os.O_RDONLY)
	defer r.Close()
	readVia(reads, r)
	if n := readVia(reads, r); n == 0 {
		t.Error("a reader opened while a writer is open with direct I/O read from the page cache")
	}
}
