//go:build linux

package mount

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// mountForTest mounts fsys on a temporary directory, or skips the test when
// this machine cannot mount FUSE file systems.
func mountForTest(t *testing.T, fsys afero.Fs, opts Options) string {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse: FUSE is not available here")
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		if _, err := exec.LookPath("fusermount"); err != nil {
			t.Skip("fusermount3 not installed (Debian package fuse3)")
		}
	}
	dir := t.TempDir()
	srv, err := Mount(fsys, dir, opts)
	if err != nil {
		t.Skipf("cannot mount FUSE here: %v", err)
	}
	usableInProcess(t, srv)
	t.Cleanup(func() {
		if lazy, err := srv.Unmount(); err != nil || lazy {
			t.Errorf("Unmount: lazy %v, %v", lazy, err)
		}
	})
	return dir
}

func TestMountReadOnly(t *testing.T) {
	mem := afero.NewMemMapFs()
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000)
	afero.WriteFile(mem, "/a.txt", []byte("hello\n"), 0o644)
	afero.WriteFile(mem, "/sub/big.bin", big, 0o640)
	dir := mountForTest(t, mem, Options{Name: "test"})

	got, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	if err != nil || string(got) != "hello\n" {
		t.Errorf("ReadFile(a.txt) = %q, %v", got, err)
	}
	got, err = os.ReadFile(filepath.Join(dir, "sub", "big.bin"))
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("ReadFile(sub/big.bin): %d bytes, %v; want %d bytes", len(got), err, len(big))
	}
	f, err := os.Open(filepath.Join(dir, "sub", "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	if n, err := f.ReadAt(buf, 200003); err != nil || !bytes.Equal(buf[:n], big[200003:200103]) {
		t.Errorf("ReadAt: %d, %v", n, err)
	}
	f.Close()

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a.txt", "sub"}) || !entries[1].IsDir() {
		t.Errorf("ReadDir = %v", names)
	}
	fi, err := os.Stat(filepath.Join(dir, "sub", "big.bin"))
	if err != nil || fi.Size() != int64(len(big)) || fi.Mode().Perm() != 0o640 { // as stored, not made read-only
		t.Errorf("Stat = %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(missing) = %v, want ErrNotExist", err)
	}
	err = os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	if !errors.Is(err, syscall.EROFS) && !errors.Is(err, os.ErrPermission) {
		t.Errorf("writing through a read-only mount: %v, want EROFS", err)
	}
}

func TestMountWritable(t *testing.T) {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/old.txt", []byte("0123456789"), 0o644)
	dir := mountForTest(t, mem, Options{Writable: true})
	at := func(name string) string { return filepath.Join(dir, name) }
	base := func(name string) string {
		b, err := afero.ReadFile(mem, name)
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}

	if err := os.WriteFile(at("new.txt"), []byte("fresh"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := base("/new.txt"); got != "fresh" {
		t.Errorf("after WriteFile the base holds %q", got)
	}
	if fi, err := mem.Stat("/new.txt"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("created file: %v, %v; want mode 0600", fi, err)
	}

	f, err := os.OpenFile(at("old.txt"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("ab")
	f.WriteString("cd")
	if fi, err := os.Stat(at("old.txt")); err != nil || fi.Size() != 14 {
		t.Errorf("size while open for writing: %v, %v; want 14", fi, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := base("/old.txt"); got != "0123456789abcd" {
		t.Errorf("after appends the base holds %q", got)
	}

	f, err = os.OpenFile(at("old.txt"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("XY"), 3)
	f.Close()
	if err := os.Truncate(at("old.txt"), 6); err != nil {
		t.Fatal(err)
	}
	if got := base("/old.txt"); got != "012XY5" {
		t.Errorf("after WriteAt and Truncate the base holds %q", got)
	}

	if err := os.Mkdir(at("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(at("old.txt"), at("d/moved.txt")); err != nil {
		t.Fatal(err)
	}
	if got := base("/d/moved.txt"); got != "012XY5" {
		t.Errorf("after Rename the base holds %q", got)
	}
	if b, err := os.ReadFile(at("d/moved.txt")); err != nil || string(b) != "012XY5" {
		t.Errorf("reading the renamed file: %q, %v", b, err)
	}
	if err := os.Chmod(at("d/moved.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	if fi, _ := mem.Stat("/d/moved.txt"); fi.Mode().Perm() != 0o640 {
		t.Errorf("after Chmod the mode is %v", fi.Mode())
	}
	// On a file the mount never wrote: MemMapFs's File.Close sets the
	// modification time, and the kernel's release of the handles that
	// wrote moved.txt may come after the Chtimes.
	afero.WriteFile(mem, "/d/times.txt", []byte("t"), 0o644)
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(at("d/times.txt"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if fi, _ := mem.Stat("/d/times.txt"); !fi.ModTime().Equal(mtime) {
		t.Errorf("after Chtimes the time is %v", fi.ModTime())
	}
	if err := os.Remove(at("d/times.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(at("d/moved.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(at("d")); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Stat("/d"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Remove: %v", err)
	}
	if _, err := os.OpenFile(at("new.txt"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); !errors.Is(err, os.ErrExist) {
		t.Errorf("O_EXCL on an existing file: %v", err)
	}
}

func TestErrno(t *testing.T) {
	tests := []struct {
		err  error
		want syscall.Errno
	}{
		{nil, 0},
		{os.ErrNotExist, syscall.ENOENT},
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrExist}, syscall.EEXIST},
		{os.ErrPermission, syscall.EACCES},
		{syscall.ENOSPC, syscall.ENOSPC},
		{errors.New("corrupt"), syscall.EIO},
		{&os.PathError{Op: "rename", Path: "x", Err: errors.ErrUnsupported}, syscall.ENOTSUP},
	}
	for _, tt := range tests {
		if got := errno(tt.err); got != tt.want {
			t.Errorf("errno(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestFsyncDir syncs directories through the mount, as programs do after a
// rename (sqlite, git, coreutils' sync DIR): it failed with ENOTSUP.
func TestFsyncDir(t *testing.T) {
	tm := mountNew(t)
	if err := os.Mkdir(tm.at("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "sub"} {
		d, err := os.Open(tm.at(name))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			t.Errorf("fsync of directory %q: %v", name, err)
		}
		d.Close()
	}
}

// TestLongDirectoryNames uses, through the mount, a directory made in DIR
// whose name leaves no room for a file's stored suffix (252 to 255 bytes):
// it was listed but every lookup of it failed with ENAMETOOLONG, so neither
// it nor what it held could be reached. A new name that long fails so, as
// the name length the mount reports (statfs) says: a file of it could not
// be stored.
func TestLongDirectoryNames(t *testing.T) {
	tm := mountNew(t)
	long := strings.Repeat("s", 252)
	if err := os.Mkdir(filepath.Join(tm.back, long), 0o755); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(tm.at(long)); err != nil || !info.IsDir() {
		t.Fatalf("stat of the directory: %v", err)
	}
	want := []byte("in a long directory")
	if err := os.WriteFile(tm.at(long+"/f"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(tm.at(long + "/f")); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read back %q, %v", got, err)
	}
	for _, name := range []string{strings.Repeat("d", 252), strings.Repeat("e", 255)} {
		if err := os.Mkdir(tm.at(name), 0o755); !errors.Is(err, syscall.ENAMETOOLONG) {
			t.Errorf("mkdir of a %d-byte name: %v, want ENAMETOOLONG", len(name), err)
		}
		if _, err := os.Stat(tm.at(name)); !errors.Is(err, syscall.ENAMETOOLONG) {
			t.Errorf("stat of a %d-byte name: %v, want ENAMETOOLONG", len(name), err)
		}
	}
	err := os.WriteFile(tm.at(strings.Repeat("f", 252)), nil, 0o644)
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("a file of a 252-byte name: %v, want ENAMETOOLONG", err)
	}
}

// TestMountFullDisk writes through a writable mount of fsx over a tmpfs with
// no inode left for a temporary file: the writer gets ENOSPC, the mount
// keeps working, and nothing is left behind.
func TestMountFullDisk(t *testing.T) {
	back := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,nr_inodes=4", "tmpfs", back).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		// The FUSE mount is gone by now; give the kernel a moment to let
		// go of the files it had open, and never leave the tmpfs behind.
		for try := 0; exec.Command("umount", back).Run() != nil; try++ {
			if try == 20 {
				exec.Command("umount", "-l", back).Run()
				t.Errorf("the tmpfs stayed busy")
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	// Use up the inodes but one, which the new file's stored name takes.
	var fill []string
	for i := 0; ; i++ {
		name := filepath.Join(back, "fill"+strconv.Itoa(i))
		if err := os.WriteFile(name, nil, 0o644); err != nil {
			break
		}
		fill = append(fill, name)
	}
	if len(fill) == 0 {
		t.Fatal("no inode free on the new tmpfs")
	}
	os.Remove(fill[len(fill)-1])
	fsys, err := fsx.New(afero.NewBasePathFs(afero.NewOsFs(), back), base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	var logged []error
	dir := mountForTest(t, fsys, Options{Writable: true, Log: func(err error) { logged = append(logged, err) }})

	err = os.WriteFile(filepath.Join(dir, "new"), []byte("hi\n"), 0o644)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("writing a file on a full disk: %v, want ENOSPC", err)
	}
	if logged != nil {
		t.Errorf("logged as EIO: %v", logged)
	}
	entries, err := os.ReadDir(back)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(fill)-1 {
		t.Errorf("the backing directory holds %d entries after the failed write, want %d", len(entries), len(fill)-1)
	}
	os.Remove(fill[0])
	if err := os.WriteFile(filepath.Join(dir, "new"), []byte("hi\n"), 0o644); err != nil {
		t.Errorf("writing once an inode is free again: %v", err)
	}
}

// statCountingFs counts the lookups by name of its base.
type statCountingFs struct {
	afero.Fs
	stats atomic.Int64
}

func (c *statCountingFs) Stat(name string) (os.FileInfo, error) {
	c.stats.Add(1)
	return c.Fs.Stat(name)
}

// TestReadAtEndNoLookup checks that a read at the end of a file, over a
// base without file identities (a remote one: MemMapFs here), looks
// nothing up by name when the mount stored nothing into the file since it
// was opened: each lookup is a round trip to a remote base, and a program
// reading a file to its end meets the end twice.
func TestReadAtEndNoLookup(t *testing.T) {
	base := &statCountingFs{Fs: afero.NewMemMapFs()}
	content := bytes.Repeat([]byte("0123456789"), 10000)
	afero.WriteFile(base, "/f", content, 0o644)
	dir := mountForTest(t, base, Options{Name: "test"})
	f, err := os.Open(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 1000)
	if n, err := f.ReadAt(p, int64(len(content))-10); n != 10 || !bytes.Equal(p[:n], content[len(content)-10:]) {
		t.Fatalf("ReadAt over the end = %d, %v", n, err)
	}
	before := base.stats.Load()
	for range 3 {
		if n, err := f.ReadAt(p, int64(len(content))); n != 0 || err == nil {
			t.Fatalf("ReadAt at the end = %d, %v", n, err)
		}
	}
	if n := base.stats.Load() - before; n != 0 {
		t.Errorf("3 reads at the end of a file looked it up %d times", n)
	}
}

// TestCacheModeOrdersReads reads a file of a base whose ReadAt calls may not
// run at once (afero's mem.File) through --cache, where the kernel sends a
// file's reads at once: the mount takes them one at a time. Under -race,
// without that, the race detector saw mem.File's reads meet.
func TestCacheModeOrdersReads(t *testing.T) {
	mem := afero.NewMemMapFs()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	afero.WriteFile(mem, "/big.bin", big, 0o640)
	dir := mountForTest(t, mem, Options{Name: "test", Cache: true})
	for range 4 {
		got, err := os.ReadFile(filepath.Join(dir, "big.bin"))
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("ReadFile: %d bytes, %v; want %d bytes", len(got), err, len(big))
		}
	}
}
