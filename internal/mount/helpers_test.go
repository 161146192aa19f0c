//go:build linux

package mount

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// fuseAvailable skips the test when this machine cannot mount FUSE file
// systems.
func fuseAvailable(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse: FUSE is not available here")
	}
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			if _, err := exec.LookPath("fusermount"); err != nil {
				t.Skip("fusermount3 not installed (Debian package fuse3)")
			}
		}
	}
}

// testMount is a directory of encoded files mounted through fsx, as b14fs
// mount does it.
type testMount struct {
	t    testing.TB
	back string // the directory holding the encoded files
	mnt  string // where they are shown decoded
	srv  *Server

	mu     sync.Mutex
	logged []error
}

// mountBack mounts back (a directory of files stored by codec c) on a new
// directory with opts (Dir and Log are set here), unmounting it when the
// test ends.
func mountBack(t testing.TB, back string, c core.Codec, opts Options) *testMount {
	t.Helper()
	fuseAvailable(t)
	base, err := rootfs.Open(back)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { base.Close() })
	return mountView(t, back, mustFsx(t, base, c), opts)
}

// mountView mounts fsys, whose files are stored in the local directory back
// (whose statfs the mount reports), as mountBack does.
func mountView(t testing.TB, back string, fsys afero.Fs, opts Options) *testMount {
	t.Helper()
	tm := &testMount{t: t, back: back, mnt: t.TempDir()}
	opts.Dir = back
	opts.Log = func(err error) {
		tm.mu.Lock()
		tm.logged = append(tm.logged, err)
		tm.mu.Unlock()
	}
	srv, err := Mount(fsys, tm.mnt, opts)
	if err != nil {
		t.Fatalf("mount: %v", err)
	}
	usableInProcess(t, srv)
	tm.srv = srv
	t.Cleanup(tm.unmount)
	return tm
}

// usableInProcess readies srv's mount for use by the process that serves
// it, as tests use it: go-fuse's poll hack (WaitMount) has the kernel learn
// that the mount does not poll. Otherwise the first open of a file of the
// mount by this process registers it with the runtime's poller, an
// epoll_ctl that waits in the kernel for the mount to answer a poll, in a
// thread the runtime counts as running Go code: a garbage collection then
// waits for that thread, and the mount's goroutines for the collection, for
// ever. (Mount itself does not run the hack, which leaves a file of the
// mount open a moment; b14fs mount never opens a file of its own mount.)
func usableInProcess(t testing.TB, srv *Server) {
	t.Helper()
	if err := srv.srv.WaitMount(); err != nil {
		t.Fatalf("mount: %v", err)
	}
}

// mountNew mounts a new directory, writable, with base16384.
func mountNew(t testing.TB) *testMount {
	return mountBack(t, t.TempDir(), base16384.NewCodec(), Options{Writable: true})
}

func (tm *testMount) unmount() {
	if tm.srv == nil {
		return
	}
	held := holders(tm.mnt)
	lazy, err := tm.srv.Unmount()
	if err != nil || lazy {
		tm.t.Errorf("Unmount: lazy %v, %v; what held the mount just before: %q", lazy, err, held)
		if err != nil {
			tm.srv.Detach()
		}
	}
	tm.srv = nil
}

// holders returns the processes whose working directory, root or open
// files are in dir, from /proc, as "pid (command): path": what keeps a
// mount busy.
func holders(dir string) []string {
	var held []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		links := []string{filepath.Join(p, "cwd"), filepath.Join(p, "root")}
		fds, _ := filepath.Glob(filepath.Join(p, "fd", "*"))
		for _, l := range append(links, fds...) {
			target, err := os.Readlink(l)
			if err != nil || target != dir && !strings.HasPrefix(target, dir+"/") {
				continue
			}
			comm, _ := os.ReadFile(filepath.Join(p, "comm"))
			held = append(held, fmt.Sprintf("%s (%s): %s", filepath.Base(p), bytes.TrimSpace(comm), l))
		}
	}
	return held
}

// waitUnheld waits up to timeout until no process holds dir (holders),
// and logs those that still do: programs a test started may still be
// ending when it unmounts.
func waitUnheld(t testing.TB, dir string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		held := holders(dir)
		if len(held) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Logf("after %v, processes still hold %s: %q", timeout, dir, held)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// at returns the path of name in the mount.
func (tm *testMount) at(name string) string { return filepath.Join(tm.mnt, name) }

// stored returns the path of the stored file of name.
func (tm *testMount) stored(name string) string { return filepath.Join(tm.back, name+".b14") }

// errors returns what the mount logged.
func (tm *testMount) errors() []error {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return append([]error(nil), tm.logged...)
}

// run runs a command with a timeout and returns its standard output,
// failing the test when it fails.
func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	out, err := runErr(dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// runErr runs a command with a timeout and returns its output (standard
// output and error).
func runErr(dir string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if dir != "" {
		// Not cmd.Dir: the child would chdir into the mount between
		// fork and exec, while this process, which serves the mount,
		// cannot run its garbage collector (a thread in vfork holds a
		// P): a deadlock. The shell changes directory after exec.
		args = append([]string{"-c", `cd "$0" && exec "$@"`, dir, name}, args...)
		name = "sh"
	}
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

// debianPackage names the Debian package of the programs the tests run
// that a minimal system may lack.
var debianPackage = map[string]string{"rsync": "rsync", "sqlite3": "sqlite3", "diff": "diffutils", "python3": "python3"}

// need fails the test when a program it runs is not installed: the tests
// of the tools people use skip only where FUSE is missing, so that CI, which
// installs them, never skips them silently.
func need(t testing.TB, progs ...string) {
	t.Helper()
	fuseAvailable(t)
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			pkg := debianPackage[p]
			if pkg == "" {
				pkg = "coreutils or findutils"
			}
			t.Fatalf("%s not installed (Debian package %s)", p, pkg)
		}
	}
}

// writeTree writes files (name to content) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// eventually retries check until it returns "" or the timeout passes, and
// fails with its last message.
func eventually(t testing.TB, timeout time.Duration, check func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", timeout, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mustFsx returns fsx.New(base, c), ending the test on an error.
func mustFsx(t testing.TB, base afero.Fs, c core.Codec) *fsx.Fs {
	t.Helper()
	fsys, err := fsx.New(base, c)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// otherView returns the mount's directory as another program sees it: an
// fsx of its own over the stored files, with base16384, sharing nothing
// with the mount.
func (tm *testMount) otherView() *fsx.Fs {
	tm.t.Helper()
	base, err := rootfs.Open(tm.back)
	if err != nil {
		tm.t.Fatal(err)
	}
	tm.t.Cleanup(func() { base.Close() })
	return mustFsx(tm.t, base, base16384.NewCodec())
}
