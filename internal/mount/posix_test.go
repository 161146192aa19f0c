//go:build linux

package mount

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
	"golang.org/x/sys/unix"

	"github.com/b14fs/b14fs/internal/testing/tmpfs"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestSpecialFiles makes a FIFO, a Unix socket and (as root) a device on
// the mount: each is stored as itself in DIR and shown with its type.
func TestSpecialFiles(t *testing.T) {
	tm := mountNew(t)
	if err := syscall.Mkfifo(tm.at("fifo"), 0o640); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	l, err := net.Listen("unix", tm.at("sock"))
	if err != nil {
		t.Fatalf("binding a Unix socket: %v", err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	want := map[string]os.FileMode{"fifo": os.ModeNamedPipe, "sock": os.ModeSocket}
	if os.Geteuid() == 0 {
		if err := syscall.Mknod(tm.at("null"), syscall.S_IFCHR|0o600, int(unix.Mkdev(1, 3))); err != nil {
			t.Fatalf("mknod: %v", err)
		}
		want["null"] = os.ModeDevice | os.ModeCharDevice
	}
	for name, typ := range want {
		for _, p := range []string{tm.at(name), tm.stored(name)} {
			fi, err := os.Lstat(p)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if fi.Mode().Type() != typ {
				t.Errorf("%s is %v, want %v", p, fi.Mode().Type(), typ)
			}
		}
	}
	if fi, err := os.Lstat(tm.at("fifo")); err == nil && fi.Mode().Perm() != 0o640 {
		t.Errorf("fifo mode %v", fi.Mode())
	}
	entries, err := os.ReadDir(tm.mnt)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok {
			t.Errorf("listed %q", e.Name())
		}
	}
}

// TestSetuidModes checks that files and directories made with the setuid,
// setgid or sticky bit get them.
func TestSetuidModes(t *testing.T) {
	tm := mountNew(t)
	if err := syscall.Mkdir(tm.at("d"), 0o1777); err != nil {
		t.Fatalf("mkdir -m 1777: %v", err)
	}
	fd, err := syscall.Open(tm.at("f"), syscall.O_CREAT|syscall.O_WRONLY, 0o4755)
	if err != nil {
		t.Fatalf("open(O_CREAT, 04755): %v", err)
	}
	syscall.Close(fd)
	for name, want := range map[string]os.FileMode{"d": os.ModeDir | os.ModeSticky | 0o777, "f": os.ModeSetuid | 0o755} {
		fi, err := os.Stat(tm.at(name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode() &^ 0o022; got != want&^0o022 { // the umask may take group and other write
			t.Errorf("%s: mode %v, want %v", name, fi.Mode(), want)
		}
	}
}

// TestLinkTimes checks that utimensat with AT_SYMLINK_NOFOLLOW (touch -h,
// rsync's lutimes) changes the link's times, not its target's.
func TestLinkTimes(t *testing.T) {
	tm := mountNew(t)
	if err := os.WriteFile(tm.at("target"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target", tm.at("link")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(tm.at("target"))
	when := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	ts := []unix.Timespec{unix.NsecToTimespec(when.UnixNano()), unix.NsecToTimespec(when.UnixNano())}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, tm.at("link"), ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(tm.at("link")); err != nil || !fi.ModTime().Equal(when) {
		t.Errorf("the link's time: %v, %v; want %v", fi.ModTime(), err, when)
	}
	if fi, err := os.Stat(tm.at("target")); err != nil || !fi.ModTime().Equal(before.ModTime()) {
		t.Errorf("the target's time changed to %v, %v", fi.ModTime(), err)
	}
}

// TestNameMax checks that statfs reports as NAME_MAX the longest name that
// fits once the suffix is added, and that names of that length work.
func TestNameMax(t *testing.T) {
	tm := mountNew(t)
	var st unix.Statfs_t
	if err := unix.Statfs(tm.mnt, &st); err != nil {
		t.Fatal(err)
	}
	var back unix.Statfs_t
	if err := unix.Statfs(tm.back, &back); err != nil {
		t.Fatal(err)
	}
	if st.Namelen != back.Namelen-int64(len(".b14")) {
		t.Fatalf("NAME_MAX %d, want %d", st.Namelen, back.Namelen-4)
	}
	longest := strings.Repeat("n", int(st.Namelen))
	if err := os.WriteFile(tm.at(longest), []byte("x"), 0o644); err != nil {
		t.Errorf("a name of NAME_MAX bytes: %v", err)
	}
	if got, err := os.ReadFile(tm.at(longest)); err != nil || string(got) != "x" {
		t.Errorf("reading it back: %q, %v", got, err)
	}
	if err := os.WriteFile(tm.at(longest+"n"), []byte("x"), 0o644); !os.IsNotExist(err) && !strings.Contains(err.Error(), "too long") {
		t.Errorf("a name longer than NAME_MAX: %v, want ENAMETOOLONG", err)
	}
}

// TestStatfsUsage checks that a mount with no Dir reports the Usage it is
// given (a remote DIR's), with NAME_MAX less the stored suffix; an error
// of Usage as the errno of statfs(2); and zeros with no Usage either.
func TestStatfsUsage(t *testing.T) {
	want := Usage{Bsize: 4096, Frsize: 1024, Blocks: 1000, Bfree: 600, Bavail: 500, Files: 90, Ffree: 80, NameLen: 255}
	var fail atomic.Bool
	usage := func() (Usage, error) {
		if fail.Load() {
			return Usage{}, syscall.ENOTCONN
		}
		return want, nil
	}
	tm := mountView(t, "", mustFsx(t, afero.NewMemMapFs(), base16384.NewCodec()), Options{Usage: usage})
	var st unix.Statfs_t
	if err := unix.Statfs(tm.mnt, &st); err != nil {
		t.Fatal(err)
	}
	got := Usage{Bsize: uint32(st.Bsize), Frsize: uint32(st.Frsize), Blocks: st.Blocks, Bfree: st.Bfree, Bavail: st.Bavail,
		Files: st.Files, Ffree: st.Ffree, NameLen: uint32(st.Namelen)}
	shown := want
	shown.NameLen -= 4
	if got != shown {
		t.Errorf("statfs: %+v, want %+v", got, shown)
	}
	fail.Store(true)
	if err := unix.Statfs(tm.mnt, &st); err != syscall.ENOTCONN {
		t.Errorf("statfs while Usage fails: %v, want ENOTCONN", err)
	}

	zero := mountView(t, "", mustFsx(t, afero.NewMemMapFs(), base16384.NewCodec()), Options{})
	if err := unix.Statfs(zero.mnt, &st); err != nil || st.Blocks != 0 || st.Files != 0 {
		t.Errorf("statfs with neither Dir nor Usage: %+v, %v; want zeros", st, err)
	}
}

// TestNameMaxSFTP checks that a mount over SFTP answers names around
// NAME_MAX as one over a local directory does: those too long for the
// stored name fail with ENAMETOOLONG, never EIO, in every call.
func TestNameMaxSFTP(t *testing.T) {
	answers := func(tm *testMount) string {
		var b strings.Builder
		for _, n := range []int{251, 252, 256} {
			name := strings.Repeat("n", n)
			dir := "d" + name[1:]
			_, serr := os.Stat(tm.at(name))
			errs := []error{
				serr,
				os.WriteFile(tm.at(name), []byte("x"), 0o644),
				os.Chmod(tm.at(name), 0o600),
				os.Rename(tm.at(name), tm.at(name+"2")),
				os.Symlink("x", tm.at("l"+name[1:])),
				os.Mkdir(tm.at(dir), 0o755),
				os.Remove(tm.at(dir)),
			}
			fmt.Fprintf(&b, "%d:", n)
			for _, err := range errs {
				var errno syscall.Errno
				errors.As(err, &errno)
				fmt.Fprintf(&b, " %d", errno)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	local, sftp := answers(mountNew(t)), answers(mountSFTP(t, Options{Writable: true}))
	if local != sftp {
		t.Errorf("errnos of names around NAME_MAX (stat, write, chmod, rename, symlink, mkdir, rmdir):\nlocal:\n%ssftp:\n%s", local, sftp)
	}
	if !strings.Contains(local, fmt.Sprintf(" %d", syscall.ENAMETOOLONG)) {
		t.Errorf("no ENAMETOOLONG locally:\n%s", local)
	}
}

// TestMoveAcrossSFTPFileSystems moves a file and a directory, through a
// mount over SFTP, into a directory of the server that is another file
// system: the server refuses the rename, the mount answers EXDEV as a local
// file system does, and mv copies instead.
func TestMoveAcrossSFTPFileSystems(t *testing.T) {
	need(t, "mv", "sh")
	tm := mountSFTP(t, Options{Writable: true})
	other := filepath.Join(tm.back, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	tmpfs.MountAt(t, other, "1m")
	if err := os.WriteFile(tm.at("file"), []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tm.at("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tm.at("dir/x"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tm.at("file"), tm.at("other/file")); !errors.Is(err, syscall.EXDEV) {
		t.Errorf("rename(2) to another file system of the server: %v, want EXDEV", err)
	}
	run(t, tm.mnt, "sh", "-c", "mv file other/ && mv dir other/")
	if got := run(t, tm.mnt, "cat", "other/file", "other/dir/x"); got != "data\nx\n" {
		t.Errorf("moved: %q", got)
	}
	if _, err := os.Stat(filepath.Join(other, "file.b14")); err != nil {
		t.Error(err)
	}
}

// TestCallerOwns checks that, as root with allow_other, what another user
// makes through the mount is that user's, as on a local file system: a
// file made with umask 077 stays readable and changeable by its maker.
func TestCallerOwns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to mount with allow_other and run as another user")
	}
	back := t.TempDir()
	tm := mountBack(t, back, base16384.NewCodec(), Options{Writable: true, AllowOther: true})
	for _, d := range []string{back, tm.mnt, filepath.Dir(back), filepath.Dir(tm.mnt)} {
		os.Chmod(d, 0o777)
	}
	script := "umask 077 && echo hello > f && cat f && chmod 640 f && mkdir d && ln -s f l && mkfifo p"
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Args = []string{"sh", "-c", "cd " + tm.mnt + " && " + script}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "hello\n" {
		t.Fatalf("as another user: %v: %s", err, out)
	}
	for _, name := range []string{"f", "d", "l", "p"} {
		stored := tm.stored(name)
		if name == "d" {
			stored = filepath.Join(back, name) // directories keep their names
		}
		for _, p := range []string{tm.at(name), stored} {
			fi, err := os.Lstat(p)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			st := fi.Sys().(*syscall.Stat_t)
			if st.Uid != 65534 || st.Gid != 65534 {
				t.Errorf("%s is owned by %d:%d, want its maker's, 65534:65534", p, st.Uid, st.Gid)
			}
		}
	}
}

// TestCallerLinksOverSFTP checks that, as root with allow_other over SFTP,
// another user makes links through the mount: the server cannot give a
// link itself another owner (it would change what the link points at), so
// the link keeps the owner the server made it with.
func TestCallerLinksOverSFTP(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to mount with allow_other and run as another user")
	}
	tm := mountSFTP(t, Options{Writable: true, AllowOther: true})
	for _, d := range []string{tm.back, tm.mnt, filepath.Dir(tm.back), filepath.Dir(tm.mnt)} {
		os.Chmod(d, 0o777)
	}
	// A file of root's outside the mount, as /etc/shadow would be.
	target := filepath.Join(t.TempDir(), "roots")
	if err := os.WriteFile(target, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(target), 0o755)
	cmd := exec.Command("sh", "-c", "cd "+tm.mnt+" && ln -s "+target+" l && readlink l && cat l >/dev/null")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != target+"\n" {
		t.Fatalf("as another user: %v: %s", err, out)
	}
	if fi, err := os.Stat(target); err != nil || fi.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Errorf("what the link points at changed owner: %v", err)
	}
}

// TestHardLinks checks that a hard link is another name of one file: both
// names show the same content and link count, a write through either (in
// place, or rewriting it whole) is seen through both and stays one stored
// file, and removing one name leaves the other.
func TestHardLinks(t *testing.T) {
	tm := mountNew(t)
	if err := os.WriteFile(tm.at("a"), []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(tm.at("a"), tm.at("b")); err != nil {
		t.Fatalf("link: %v", err)
	}
	check := func(want string, nlink uint64) {
		t.Helper()
		for _, name := range []string{"a", "b"} {
			got, err := os.ReadFile(tm.at(name))
			if err != nil || string(got) != want {
				t.Errorf("%s holds %q, %v; want %q", name, got, err, want)
			}
			fi, err := os.Stat(tm.at(name))
			if err != nil {
				t.Fatal(err)
			}
			if n := uint64(fi.Sys().(*syscall.Stat_t).Nlink); n != nlink {
				t.Errorf("%s has %d links, want %d", name, n, nlink)
			}
		}
		sa, _ := os.Stat(tm.stored("a"))
		sb, _ := os.Stat(tm.stored("b"))
		if !os.SameFile(sa, sb) {
			t.Error("the stored names are two files now")
		}
	}
	check("one", 2)
	f, err := os.OpenFile(tm.at("b"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("O"), 0)
	f.Close()
	check("One", 2)
	if err := os.WriteFile(tm.at("a"), []byte("rewritten whole"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("rewritten whole", 2)
	if err := os.Remove(tm.at("a")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(tm.at("b")); err != nil || string(got) != "rewritten whole" {
		t.Errorf("b after removing a: %q, %v", got, err)
	}
	if err := os.Link(tm.mnt, tm.at("dirlink")); !errors.Is(err, syscall.EPERM) {
		t.Errorf("a link to a directory: %v, want EPERM", err)
	}
}

// TestHardLinkOutlivesName checks that removing one name of a file with
// hard links, or renaming another file over it, leaves the file its inode
// number and the right link count under its other names, also once the
// kernel has forgotten the names and looks them up again (it did not: the
// file's other names came back as a new file, with another number and a
// link count the kernel kept from before). The file is rewritten whole
// first, so that the number it shows is not the one of its stored file.
func TestHardLinkOutlivesName(t *testing.T) {
	const timeout = 50 * time.Millisecond
	tm := mountBack(t, t.TempDir(), base16384.NewCodec(), Options{Writable: true, Timeout: timeout})
	for _, name := range []string{"a", "x"} {
		if err := os.WriteFile(tm.at(name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}} {
		if err := os.Link(tm.at(l[0]), tm.at(l[1])); err != nil {
			t.Fatal(err)
		}
	}
	stat := func(name string) (ino, nlink uint64) {
		t.Helper()
		fi, err := os.Lstat(tm.at(name))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		return st.Ino, uint64(st.Nlink)
	}
	ino, _ := stat("a")
	check := func(step string, nlink uint64, names ...string) {
		t.Helper()
		time.Sleep(2 * timeout) // the kernel forgets names and attributes
		for _, name := range names {
			if gi, gn := stat(name); gi != ino || gn != nlink {
				t.Errorf("after %s: %s has number %d and %d links, want %d and %d", step, name, gi, gn, ino, nlink)
			}
		}
	}
	check("linking", 4, "a", "b", "c", "d")
	if err := os.Remove(tm.at("a")); err != nil {
		t.Fatal(err)
	}
	check("removing a", 3, "b", "c", "d")
	if err := os.Rename(tm.at("x"), tm.at("b")); err != nil {
		t.Fatal(err)
	}
	check("renaming x over b", 2, "c", "d")
	if err := os.Remove(tm.at("d")); err != nil {
		t.Fatal(err)
	}
	check("removing d", 1, "c")
	if got, err := os.ReadFile(tm.at("c")); err != nil || string(got) != "a" {
		t.Errorf("c holds %q, %v; want %q", got, err, "a")
	}
}
