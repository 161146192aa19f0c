package rootfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestBeneathAgrees checks that openat2's fast path answers every lookup,
// readlink and open as os.Root does, over a tree of files, directories and links that
// stay inside the directory, lead out of it, dangle or loop: the same
// errors, the same files.
func TestBeneathAgrees(t *testing.T) {
	dir, _ := makeTree(t)
	fast := openFast(t, dir)
	defer fast.Close()
	slow := &Fs{root: fast.root}
	for _, name := range treeNames {
		for _, follow := range []bool{false, true} {
			got := describe(fast.stat(name, follow))
			want := describe(slow.stat(name, follow))
			if got != want {
				t.Errorf("stat(%q, follow=%v) = %s; os.Root: %s", name, follow, got, want)
			}
		}
		got, gerr := fast.ReadlinkIfPossible(name)
		want, werr := slow.ReadlinkIfPossible(name)
		if got != want || describeErr(gerr) != describeErr(werr) {
			t.Errorf("ReadlinkIfPossible(%q) = %q, %s; os.Root: %q, %s", name, got, describeErr(gerr), want, describeErr(werr))
		}
		for _, flag := range []int{os.O_RDONLY, os.O_WRONLY, os.O_WRONLY | os.O_CREATE, os.O_RDWR | os.O_CREATE | os.O_EXCL} {
			got := openResult(fast, name, flag)
			want := openResult(slow, name, flag)
			if got != want {
				t.Errorf("OpenFile(%q, %#x) = %s; os.Root: %s", name, flag, got, want)
			}
		}
	}
}

// openFast opens dir with the fast path, or skips the test where the kernel
// has no openat2 (before Linux 5.6) or refuses it (a seccomp filter).
func openFast(t *testing.T, dir string) *Fs {
	t.Helper()
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		t.Skipf("no openat2 here (%v): every operation goes through the os.Root", err)
	}
	unix.Close(fd)
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.fast == nil {
		t.Fatal("openat2 works here, but Open does not use it")
	}
	return f
}

// treeNames are names to try in a tree from makeTree.
var treeNames = []string{
	".", "a", "a/b", "a/b/file", "in", "indir", "indir/b/file", "a/up/file", "a/b/back",
	"out", "out/secret", "outrel/secret", "abs", "abs/b", "dangling", "loop", "loop/x",
	"proc", "proc/etc", "missing", "a/missing/x", "a/b/file/x", "../a", "a/../../x", "a/b/",
}

// makeTree makes a directory of files, directories and links that stay
// inside it, lead out of it (to outside, which holds a file), dangle or
// loop.
func makeTree(t *testing.T) (dir, outside string) {
	dir, outside = t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("outside"), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a", "b", "file"), []byte("inside"), 0o640))
	then := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	must(os.Chtimes(filepath.Join(dir, "a", "b", "file"), then, then))
	for link, target := range map[string]string{
		"in":       "a/b/file",
		"indir":    "a",
		"a/up":     "../a/b",
		"a/b/back": "../../in",
		"out":      outside,
		"outrel":   "../" + filepath.Base(outside),
		"abs":      filepath.Join(dir, "a"),
		"dangling": "missing",
		"loop":     "loop",
		"proc":     "/proc/self/root",
	} {
		must(os.Symlink(target, filepath.Join(dir, link)))
	}
	return dir, outside
}

// describe describes a FileInfo and an error, for comparisons.
func describe(info os.FileInfo, err error) string {
	if err != nil {
		return describeErr(err)
	}
	st := info.Sys().(*syscall.Stat_t)
	return fmt.Sprintf("%s %v %d ino=%d %v", info.Name(), info.Mode(), info.Size(), st.Ino, info.ModTime())
}

// describeErr describes an error by its errno, or whether it is a
// permission error.
func describeErr(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return "error " + errno.Error()
	}
	if err != nil {
		return fmt.Sprintf("error permission=%v", errors.Is(err, fs.ErrPermission))
	}
	return "ok"
}

// TestBeneathChangesAgree checks that the fast path's changes (Remove,
// Mkdir, Chmod, Chown, Chtimes, links) do what os.Root's do, to two copies of one
// tree: the same errors, the same trees after each, nothing outside
// touched.
func TestBeneathChangesAgree(t *testing.T) {
	when := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	ops := []struct {
		name string
		do   func(f *Fs, name string) error
	}{
		{"chmod", func(f *Fs, name string) error { return f.Chmod(name, 0o700|os.ModeSetgid) }},
		{"chown", func(f *Fs, name string) error { return f.Chown(name, os.Getuid(), os.Getgid()) }},
		{"chtimes", func(f *Fs, name string) error { return f.Chtimes(name, when, when.Add(time.Hour)) }},
		{"chtimes mtime", func(f *Fs, name string) error { return f.Chtimes(name, time.Time{}, when) }},
		{"mkdir", func(f *Fs, name string) error { return f.Mkdir(name+"/new", 0o750) }},
		{"mkdir over", func(f *Fs, name string) error { return f.Mkdir(name, 0o750) }},
		{"remove", func(f *Fs, name string) error { return f.Remove(name) }},
		{"symlink", func(f *Fs, name string) error { return f.SymlinkIfPossible("../t", name+"/new") }},
		{"symlink over", func(f *Fs, name string) error { return f.SymlinkIfPossible("t", name) }},
		{"link", func(f *Fs, name string) error { return f.Link("a/b/file", name+"/new") }},
		{"link from", func(f *Fs, name string) error { return f.Link(name, "a/new") }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			slowDir, slowOut := makeTree(t)
			fastDir, fastOut := makeTree(t)
			slowRoot, err := os.OpenRoot(slowDir)
			if err != nil {
				t.Fatal(err)
			}
			slow := &Fs{root: slowRoot}
			defer slow.Close()
			fast := openFast(t, fastDir)
			defer fast.Close()
			for _, name := range treeNames {
				got, want := describeErr(op.do(fast, name)), describeErr(op.do(slow, name))
				if got != want {
					t.Errorf("%s(%q) = %s; os.Root: %s", op.name, name, got, want)
				}
				if got, want := listTree(t, fastDir, fastOut), listTree(t, slowDir, slowOut); got != want {
					t.Fatalf("after %s(%q), the tree is\n%s\nos.Root left\n%s", op.name, name, got, want)
				}
			}
			for _, out := range []string{slowOut, fastOut} {
				if info, err := os.Stat(filepath.Join(out, "secret")); err != nil || info.Mode() != 0o644 {
					t.Errorf("outside: %v, %v", info, err)
				}
				if entries, _ := os.ReadDir(out); len(entries) != 1 {
					t.Errorf("outside: %v", entries)
				}
			}
		})
	}
}

// listTree describes every name in dir, with its mode, and for a link its
// target (dir and outside named so), for a file its modification time.
func listTree(t *testing.T, dir, outside string) string {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %v", rel, info.Mode())
		if target, err := os.Readlink(p); err == nil {
			target = strings.Replace(target, dir, "DIR", 1)
			target = strings.Replace(target, outside, "OUTSIDE", 1)
			if target == "../"+filepath.Base(outside) {
				target = "../OUTSIDE"
			}
			fmt.Fprintf(&b, " -> %s", target)
		}
		if info.Mode().IsRegular() {
			fmt.Fprintf(&b, " %v", info.ModTime())
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// openResult describes what opening name with flag gives: an error, or the
// file's identity (unless it may be new), mode and content. A file it
// creates is removed: name, or "missing", where the link "dangling" leads.
func openResult(f *Fs, name string, flag int) string {
	file, err := f.OpenFile(name, flag, 0o600)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return "error " + errno.Error()
		}
		return fmt.Sprintf("error permission=%v", errors.Is(err, fs.ErrPermission))
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return "stat: " + err.Error()
	}
	if flag&os.O_CREATE != 0 {
		defer f.Remove("missing")
		if flag&os.O_EXCL != 0 {
			defer f.Remove(name)
		}
	}
	data, _ := io.ReadAll(file)
	if flag&os.O_CREATE != 0 {
		// What it opened may be new: inode numbers of new files differ.
		return fmt.Sprintf("%v %q", info.Mode(), data)
	}
	return fmt.Sprintf("ino=%d %v %q", info.Sys().(*syscall.Stat_t).Ino, info.Mode(), data)
}

// TestBeneathOpens checks the files the fast path opens: their names,
// appends, directories read through the os.Root, and a closed Fs.
func TestBeneathOpens(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "d", "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	file, err := f.OpenFile("/d/log", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "d/log"); file.Name() != want {
		t.Errorf("Name() = %q, want %q", file.Name(), want)
	}
	if _, err := file.WriteAt([]byte("x"), 0); err == nil {
		t.Error("WriteAt on a file opened with O_APPEND succeeded")
	}
	file.Close()
	if info, err := os.Stat(filepath.Join(dir, "d/log")); err != nil || info.Mode().Perm() != 0o644&^umask() {
		t.Errorf("the file made: %v, %v", info, err)
	}
	d, err := f.Open("d")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := d.(*os.File).ReadDir(-1)
	d.Close()
	if err != nil || len(entries) != 2 {
		t.Fatalf("ReadDir = %v, %v", entries, err)
	}
	if err := f.Rename("d/log", "d/e/log"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stat("d/e/log"); err != nil {
		t.Error(err)
	}
	f.Close()
	if _, err := f.Stat("d/e/log"); err == nil {
		t.Error("Stat after Close succeeded")
	}
	if _, err := f.OpenFile("d/e/log", os.O_RDONLY, 0); err == nil {
		t.Error("OpenFile after Close succeeded")
	}
}

// umask returns the process's umask.
func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

// TestBeneathLongPaths checks that paths longer than one system call takes
// (PATH_MAX) still work, through the os.Root, as they did before the fast
// path: pjdfstest makes them.
func TestBeneathLongPaths(t *testing.T) {
	f, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := ""
	for len(p) < 5000 {
		p += strings.Repeat("d", 200) + "/"
		if err := f.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	name := p + "file"
	file, err := f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatalf("OpenFile of a %d-byte path: %v", len(name), err)
	}
	file.Close()
	if _, err := f.Stat(name); err != nil {
		t.Errorf("Stat of a %d-byte path: %v", len(name), err)
	}
	if err := f.Rename(name, p+"moved"); err != nil {
		t.Errorf("Rename of a %d-byte path: %v", len(name), err)
	}
	if err := f.SyncDir(p); err != nil {
		t.Errorf("SyncDir of a %d-byte path: %v", len(p), err)
	}
}
