package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"
)

func TestTempNameFitsWhereTargetFits(t *testing.T) {
	for _, target := range []string{
		"a",
		"notes.txt.b14",
		strings.Repeat("x", 50),
		strings.Repeat("x", 64),
		strings.Repeat("x", 240),
		strings.Repeat("x", 255),
		strings.Repeat("é", 127), // 254 bytes, cut between runes
	} {
		name := TempName(target)
		if len(name) > max(len(target), minLen) {
			t.Errorf("TempName(%d bytes) = %d bytes: %q", len(target), len(name), name)
		}
		if !IsTemp(name) {
			t.Errorf("IsTemp(%q) = false", name)
		}
		if !strings.HasPrefix(name, ".") || !strings.Contains(name, tag) {
			t.Errorf("TempName(%q) = %q: not the documented pattern", target, name)
		}
		if !utf8Valid(name) {
			t.Errorf("TempName cut a UTF-8 sequence: %q", name)
		}
		if Stale(name) {
			t.Errorf("Stale(%q) = true for this process's own name", name)
		}
	}
	if a, b := TempName("x"), TempName("x"); a == b {
		t.Errorf("two temporary names are both %q", a)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestIsTemp(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		name string
		want bool
	}{
		{".a.b14fs-0123abcd-" + pid + "-xyz.tmp", true},
		{".b14fs-0123abcd-12-x.tmp", true},
		{"a.b14fs-0123abcd-12-x.tmp", false},    // no leading dot
		{".a.b14fs-0123abcd-12-x.tmpx", false},  // wrong suffix
		{".a.b14fs-0123abc-12-x.tmp", false},    // short host
		{".a.b14fs-0123abcd-0-x.tmp", false},    // no such process ID
		{".a.b14fs-0123abcd--1-x.tmp", false},   // negative
		{".a.b14fs-0123abcd-12-.tmp", false},    // no random part
		{".a.b14fs-0123abcd-12-x-y.tmp", false}, // extra part
		{".notes.txt.fsx-abc.tmp", false},       // another pattern
		{".a.b14fs-0123abcd-1x-x.tmp", false},   // bad number
		{"notes.txt.b14", false},
	} {
		if got := IsTemp(tc.name); got != tc.want {
			t.Errorf("IsTemp(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// deadPID returns the ID of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestStale(t *testing.T) {
	dead := strconv.Itoa(deadPID(t))
	for _, tc := range []struct {
		name string
		want bool
	}{
		{".f.b14fs-" + host + "-" + dead + "-x.tmp", true},
		{".f.b14fs-" + host + "-" + strconv.Itoa(os.Getpid()) + "-x.tmp", false},
		{".f.b14fs-" + host + "-" + strconv.Itoa(os.Getppid()) + "-x.tmp", false},
		{".f.b14fs-ffffffff-" + dead + "-x.tmp", host == "ffffffff"}, // another host's
		{"f.b14", false},
	} {
		if got := Stale(tc.name); got != tc.want {
			t.Errorf("Stale(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	dead := strconv.Itoa(deadPID(t))
	stale := ".f.b14fs-" + host + "-" + dead + "-a.tmp"
	staleDir := ".plugins.b14fs-" + host + "-" + dead + "-b.tmp"
	live := TempName("f")
	keep := []string{live, "f.b14", ".f.b14fs-ffffffff-" + dead + "-c.tmp"}
	for _, name := range append([]string{stale}, keep...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, staleDir, "plugin-dir1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := RemoveStale(afero.NewOsFs(), dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{stale, staleDir} {
		if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s: still there after RemoveStale (%v)", name, err)
		}
	}
	for _, name := range keep {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil && host != "ffffffff" {
			t.Errorf("%s: removed: %v", name, err)
		}
	}
}

func TestCommitReplacesTarget(t *testing.T) {
	for _, fsys := range []afero.Fs{afero.NewMemMapFs(), afero.NewBasePathFs(afero.NewOsFs(), t.TempDir())} {
		if err := afero.WriteFile(fsys, "/out", []byte("old"), 0o640); err != nil {
			t.Fatal(err)
		}
		f, err := Create(fsys, "/out", 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("new"); err != nil {
			t.Fatal(err)
		}
		if err := f.Chmod(0o640); err != nil {
			t.Fatal(err)
		}
		if got, _ := afero.ReadFile(fsys, "/out"); string(got) != "old" {
			t.Errorf("before Commit: %q", got)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		f.Abort() // a no-op after Commit
		got, err := afero.ReadFile(fsys, "/out")
		if err != nil || string(got) != "new" {
			t.Errorf("after Commit: %q, %v", got, err)
		}
		if fi, _ := fsys.Stat("/out"); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want 0640", fi.Mode())
		}
		checkOnly(t, fsys, "out")
	}
}

func TestAbortKeepsTarget(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/out", []byte("old"), 0o644)
	f, err := Create(fsys, "/out", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	f.Abort()
	if got, _ := afero.ReadFile(fsys, "/out"); string(got) != "old" {
		t.Errorf("after Abort: %q", got)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	checkOnly(t, fsys, "out")
}

// checkOnly fails unless the root of fsys holds exactly the named entries.
func checkOnly(t *testing.T, fsys afero.Fs, names ...string) {
	t.Helper()
	d, err := fsys.Open("/")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, _ := d.Readdirnames(-1)
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

// pathless is a base that refuses to change files by name, and counts the
// directory syncs asked of it: what a base over a network saves is there.
type pathless struct {
	afero.Fs
	dirSyncs int
}

func (pathless) Chmod(string, os.FileMode) error { return errors.ErrUnsupported }
func (pathless) Chown(string, int, int) error    { return errors.ErrUnsupported }
func (p *pathless) SyncDir(string) error {
	p.dirSyncs++
	return nil
}
func (p *pathless) Open(name string) (afero.File, error) {
	if info, err := p.Fs.Stat(name); err == nil && info.IsDir() {
		return nil, errors.New("opened a directory")
	}
	return p.Fs.Open(name)
}

// TestThroughTheFile checks that Chmod and Chown go through the open
// temporary file where the base's files can (an *os.File here), not by
// name, and that Commit lets a DirSyncer sync the directory.
func TestThroughTheFile(t *testing.T) {
	dir := t.TempDir()
	base := &pathless{Fs: afero.NewOsFs()}
	f, err := Create(base, filepath.Join(dir, "out"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Chmod(0o640); err != nil {
		t.Errorf("Chmod: %v", err)
	}
	if err := f.Chown(os.Getuid(), os.Getgid()); err != nil {
		t.Errorf("Chown: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "out")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("Stat = %v, %v; want mode 0640", fi, err)
	}
	if base.dirSyncs != 1 {
		t.Errorf("Commit asked the base to sync the directory %d times, want 1", base.dirSyncs)
	}
}

// syncErr is a DirSyncer whose directory syncs fail with err.
type syncErr struct {
	afero.Fs
	err error
}

func (s syncErr) SyncDir(string) error { return s.err }

// TestSyncDirCannot checks that SyncDir takes a DirSyncer that cannot sync
// a directory (EINVAL, errors.ErrUnsupported) as one that need not, as it
// does for a directory's Sync, and reports its other errors.
func TestSyncDirCannot(t *testing.T) {
	broken := errors.New("broken")
	for _, tc := range []struct{ err, want error }{
		{nil, nil},
		{&fs.PathError{Op: "sync", Path: "d", Err: syscall.EINVAL}, nil},
		{errors.ErrUnsupported, nil},
		{broken, broken},
	} {
		if got := SyncDir(syncErr{afero.NewMemMapFs(), tc.err}, "d"); got != tc.want {
			t.Errorf("SyncDir with a DirSyncer failing with %v = %v, want %v", tc.err, got, tc.want)
		}
	}
}
