package fsx_test

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

// A remoteFs stands for a base over a network (SFTP): a MemMapFs, without
// file identities, that logs the calls fsx makes of it and of its files,
// each of which would be a round trip. It reports HighLatency and
// CheapLookups as its fields say.
type remoteFs struct {
	afero.Fs
	high, cheap bool

	mu    sync.Mutex
	calls []string // "stat NAME", "open NAME", "fstat NAME", "chmod NAME"...
	// pair holds the calls ("stat", "open", "fstat") that wait, up to a
	// few seconds, for a second call to be running too, recording whether
	// one came.
	pair     map[string]bool
	waiting  chan struct{}
	together int
}

func newRemoteFs(high, cheap bool) *remoteFs {
	base := afero.NewBasePathFs(afero.NewMemMapFs(), "/base")
	if err := base.MkdirAll("/", 0o755); err != nil {
		panic(err)
	}
	return &remoteFs{Fs: base, high: high, cheap: cheap}
}

func (r *remoteFs) log(op, name string) {
	r.mu.Lock()
	r.calls = append(r.calls, op+" "+name)
	r.mu.Unlock()
}

// taken returns the calls logged since the last taken.
func (r *remoteFs) taken() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	return calls
}

func (r *remoteFs) HighLatency() bool  { return r.high }
func (r *remoteFs) CheapLookups() bool { return r.cheap }

func (r *remoteFs) Stat(name string) (os.FileInfo, error) {
	r.log("stat", name)
	r.meet("stat")
	return r.Fs.Stat(name)
}

// meet waits for another call to be running, when op is one of those
// paired, and counts the pairs met.
func (r *remoteFs) meet(op string) {
	r.mu.Lock()
	if !r.pair[op] {
		r.mu.Unlock()
		return
	}
	if r.waiting != nil {
		close(r.waiting)
		r.waiting = nil
		r.together++
		r.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	r.waiting = ch
	r.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(3 * time.Second):
		r.mu.Lock()
		if r.waiting == ch {
			r.waiting = nil
		}
		r.mu.Unlock()
	}
}

func (r *remoteFs) Chmod(name string, mode os.FileMode) error {
	r.log("chmod", name)
	return r.Fs.Chmod(name, mode)
}

func (r *remoteFs) Chtimes(name string, atime, mtime time.Time) error {
	r.log("chtimes", name)
	return r.Fs.Chtimes(name, atime, mtime)
}

func (r *remoteFs) Rename(oldname, newname string) error {
	r.log("rename", newname)
	return r.Fs.Rename(oldname, newname)
}

func (r *remoteFs) Open(name string) (afero.File, error) {
	return r.OpenFile(name, os.O_RDONLY, 0)
}

func (r *remoteFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	r.log("open", name)
	r.meet("open")
	f, err := r.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &remoteFile{File: f, fs: r}, nil
}

type remoteFile struct {
	afero.File
	fs *remoteFs
}

func (f *remoteFile) Stat() (os.FileInfo, error) {
	f.fs.log("fstat", f.Name())
	f.fs.meet("fstat")
	return f.File.Stat()
}

// count returns how many of calls are op of name.
func count(calls []string, op, name string) int {
	n := 0
	for _, c := range calls {
		if c == op+" "+name {
			n++
		}
	}
	return n
}

// TestHighLatencyLookups checks that on a base with HighLatency and
// CheapLookups the lookups of a name that takes two (its stored name, then
// the name itself: a directory, or nothing) run at once, and that other
// bases are asked for the second only when the first finds no file (S3,
// HighLatency alone, where a lookup of nothing costs a LIST).
func TestHighLatencyLookups(t *testing.T) {
	t.Parallel()
	for _, kind := range []struct{ high, cheap bool }{{false, false}, {true, false}, {true, true}} {
		t.Run(fmt.Sprintf("high=%v,cheap=%v", kind.high, kind.cheap), func(t *testing.T) {
			t.Parallel()
			base := newRemoteFs(kind.high, kind.cheap)
			speculate := kind.high && kind.cheap
			fsys := newFs(t, base, base16384.NewCodec())
			mustWrite(t, fsys, "file", []byte("content\n"))
			if err := fsys.Mkdir("dir", 0o755); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name string
				want []string // the base's calls, in any order
			}{
				{"dir", []string{"stat dir.b14", "stat dir"}},
				{"missing", []string{"stat missing.b14", "stat missing"}},
				{"file", []string{"stat file.b14", "open file.b14", "fstat /file.b14"}}, // opened for its decoded size
			} {
				base.taken()
				base.mu.Lock()
				base.pair, base.together = nil, 0
				if speculate && tc.name != "file" {
					base.pair = map[string]bool{"stat": true}
				}
				base.mu.Unlock()
				_, err := fsys.Stat(tc.name)
				if tc.name != "missing" && err != nil {
					t.Fatal(err)
				}
				base.mu.Lock()
				base.pair = nil
				together := base.together
				base.mu.Unlock()
				want := slices.Clone(tc.want)
				if speculate && tc.name == "file" {
					want = append(want, "stat file") // asked at once, not waited for
				}
				got := base.taken()
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("Stat(%s): base calls %q, want %q", tc.name, got, want)
				}
				if speculate && tc.name != "file" && together != 1 {
					t.Errorf("Stat(%s): the two lookups ran one after the other", tc.name)
				}
			}
		})
	}
}

// TestOpenFileRoundTrips checks the calls to a base over a network that an
// open file costs: its open, and the Stat of the file it opened; a Stat of
// its name looks it up once; after a Chmod and a Chtimes the next lookup
// tells its FileInfo (no reopening, no Stat of their own); a Chmod leaves
// writes unstored;
// storing a written file looks the stored file up once.
func TestOpenFileRoundTrips(t *testing.T) {
	t.Parallel()
	base := newRemoteFs(false, false)
	fsys := newFs(t, base, base16384.NewCodec())
	mustWrite(t, fsys, "f", []byte("content\n"))
	base.taken()

	f, err := fsys.OpenFile("f", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if calls := base.taken(); !slices.Equal(calls, []string{"stat f.b14", "open f.b14", "fstat /f.b14"}) {
		t.Errorf("open: base calls %q, want a lookup, an open and the Stat of what it opened", calls)
	}
	if _, err := fsys.Stat("f"); err != nil {
		t.Fatal(err)
	}
	if calls := base.taken(); !slices.Equal(calls, []string{"stat f.b14"}) {
		t.Errorf("Stat of an open file: base calls %q, want one lookup", calls)
	}

	if err := fsys.Chmod("f", 0o640); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := fsys.Chtimes("f", mtime, mtime); err != nil {
		t.Fatal(err)
	}
	calls := base.taken()
	if n := count(calls, "open", "f.b14"); n != 0 {
		t.Errorf("Chmod and Chtimes of an open file opened it %d times: %q", n, calls)
	}
	if n := count(calls, "stat", "f.b14"); n != 2 {
		t.Errorf("Chmod and Chtimes of an open file: %d Stats, want 2 (their lookups): %q", n, calls)
	}
	// The next Stat's lookup tells the open file's new FileInfo.
	if info, err := fsys.Stat("f"); err != nil || info.Mode().Perm() != 0o640 || !info.ModTime().Equal(mtime) {
		t.Errorf("Stat = %v, %v; want mode 0640 and time %v", info, err, mtime)
	}
	if calls := base.taken(); !slices.Equal(calls, []string{"stat f.b14"}) {
		t.Errorf("Stat after a Chmod of an open file: base calls %q, want one lookup", calls)
	}
	if info, err := f.Stat(); err != nil || info.Mode().Perm() != 0o640 || !info.ModTime().Equal(mtime) {
		t.Errorf("the open file's Stat = %v, %v; want mode 0640 and time %v", info, err, mtime)
	}
	checkContent(t, fsys, "f", []byte("content\n"))
	base.taken()

	if _, err := f.Write([]byte("new ")); err != nil {
		t.Fatal(err)
	}
	// A Chmod leaves the writes unstored: the store keeps the new mode.
	if err := fsys.Chmod("f", 0o600); err != nil {
		t.Fatal(err)
	}
	if calls := base.taken(); count(calls, "rename", "f.b14") != 0 {
		t.Errorf("a Chmod of a file holding writes stored them: %q", calls)
	}
	if info, err := f.Stat(); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the open file's Stat after a Chmod = %v, %v; want mode 0600", info, err)
	}
	base.taken()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	calls = base.taken()
	if n := count(calls, "stat", "f.b14"); n != 1 {
		t.Errorf("storing a file looked it up %d times, want 1: %q", n, calls)
	}
	if n := count(calls, "rename", "f.b14"); n != 1 {
		t.Errorf("storing a file: %q, want one rename over it", calls)
	}
	checkContent(t, fsys, "f", []byte("new ent\n"))
	if info, err := fsys.Stat("f"); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("Stat after the store = %v, %v; want mode 0600 kept", info, err)
	}
}

// TestReaddirAtOnce checks that Readdir over a HighLatency base decodes
// the sizes of its entries (an open of each) at once.
func TestReaddirAtOnce(t *testing.T) {
	t.Parallel()
	base := newRemoteFs(true, true)
	fsys := newFs(t, base, base16384.NewCodec())
	mustWrite(t, fsys, "a", []byte("content a\n"))
	mustWrite(t, fsys, "b", []byte("content b, longer\n"))
	d, err := fsys.Open("/")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	base.mu.Lock()
	base.pair = map[string]bool{"open": true}
	base.mu.Unlock()
	infos, err := d.Readdir(-1)
	base.mu.Lock()
	base.pair = nil
	together := base.together
	base.mu.Unlock()
	if err != nil || len(infos) != 2 || infos[0].Size() != 10 || infos[1].Size() != 18 {
		t.Fatalf("Readdir = %v, %v; want a (10 bytes) and b (18)", infos, err)
	}
	if together != 1 {
		t.Error("Readdir decoded its entries' sizes one after the other")
	}
}

// TestStoreStatsAtOnce checks that a store over a HighLatency base states
// the stored file and its temporary file at once.
func TestStoreStatsAtOnce(t *testing.T) {
	t.Parallel()
	base := newRemoteFs(true, true)
	fsys := newFs(t, base, base16384.NewCodec())
	mustWrite(t, fsys, "f", []byte("old\n"))
	f, err := fsys.OpenFile("f", os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new\n")); err != nil {
		t.Fatal(err)
	}
	base.mu.Lock()
	base.pair, base.together = map[string]bool{"stat": true, "fstat": true}, 0
	base.mu.Unlock()
	err = f.Close()
	base.mu.Lock()
	base.pair = nil
	together := base.together
	base.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if together != 1 {
		t.Error("the store stated the stored file and its temporary file one after the other")
	}
	checkContent(t, fsys, "f", []byte("new\n"))
}

var (
	_ fsx.HighLatency  = (*remoteFs)(nil)
	_ fsx.CheapLookups = (*remoteFs)(nil)
)

// TestChmodThenRemove checks that an open file shows the mode a Chmod gave
// it after its name is removed: the FileInfo a Chmod leaves to be taken
// again is taken from the open file, not its name (the differential test
// found a Stat failing there).
func TestChmodThenRemove(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		if !can(base).attrs {
			t.Skip("the base keeps no modes")
		}
		mustWrite(t, fsys, "f", []byte("content\n"))
		f, err := fsys.Open("f")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := fsys.Chmod("f", 0o640); err != nil {
			t.Fatal(err)
		}
		if err := fsys.Remove("f"); err != nil {
			t.Fatal(err)
		}
		if info, err := f.Stat(); err != nil || info.Mode().Perm() != 0o640 || info.Size() != 8 {
			t.Errorf("Stat of the open file = %v, %v; want mode 0640, 8 bytes", info, err)
		}
	})
}
