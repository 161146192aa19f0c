package sftpfs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"testing/iotest"
	"time"

	"github.com/spf13/afero"
	"golang.org/x/crypto/ssh"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/umask"
	"github.com/b14fs/b14fs/internal/remote/sftpfs"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/internal/testing/tmpfs"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// dial dials s, with a timeout of 5 s.
func dial(t *testing.T, s *remotetest.SSH) *sftpfs.Fs { return dialAt(t, s, s.Addr) }

// TestSFTP runs fstest.TestFS over a directory of a real sshd, as it is
// and through fsx, and reads and edits encoded files there.
func TestSFTP(t *testing.T) {
	s := remotetest.SSHD(t)
	fsys := dial(t, s)
	if err := fsys.Mkdir("raw", 0o755); err != nil {
		t.Fatal(err)
	}
	raw := afero.NewBasePathFs(fsys, "raw")
	names := remotetest.WriteTree(t, raw)
	if err := fstest.TestFS(afero.NewIOFS(raw), names...); err != nil {
		t.Error("raw:", err)
	}
	// pkg/sftp's ReadAt is safe for concurrent use: fsx is told so.
	if f, err := fsys.Open("raw/" + names[0]); err != nil {
		t.Error(err)
	} else {
		if c, ok := f.(fsx.ConcurrentReaderAt); !ok || !c.ConcurrentReadAt() {
			t.Errorf("an open file (%T) does not report concurrent ReadAt", f)
		}
		f.Close()
	}

	if err := fsys.Mkdir("enc", 0o755); err != nil {
		t.Fatal(err)
	}
	enc, err := fsx.New(afero.NewBasePathFs(fsys, "enc"), base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	names = remotetest.WriteTree(t, enc)
	if err := fstest.TestFS(afero.NewIOFS(enc), names...); err != nil {
		t.Error("fsx:", err)
	}
	// The server holds the encoded files, in the directory given.
	if _, err := os.Stat(filepath.Join(s.Root, "enc", "dir", "b.bin.b14")); err != nil {
		t.Error(err)
	}

	// iotest.TestReader reads every byte with a ReadAt of its own, each a
	// round trip: a small file.
	small := remotetest.RandomBytes(3000, 2)
	if err := afero.WriteFile(enc, "small", small, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := enc.Open("small")
	if err != nil {
		t.Fatal(err)
	}
	if err := iotest.TestReader(f, small); err != nil {
		t.Error(err)
	}
	f.Close()
	want := remotetest.RandomBytes(300000, 1)
	if err := afero.WriteFile(enc, "big", want, 0o644); err != nil {
		t.Fatal(err)
	}

	// An append in place and a write in the middle, as on a local disk.
	f, err = enc.OpenFile("big", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("tail"))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want = append(want, "tail"...)
	f, err = enc.OpenFile("big", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("MIDDLE"), 150000)
	copy(want[150000:], "MIDDLE")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := afero.ReadFile(enc, "big"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("after edits: %d bytes, %v", len(got), err)
	}
	if err := enc.Rename("big", "moved"); err != nil {
		t.Error(err)
	}
	if got, err := afero.ReadFile(enc, "moved"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("after rename: %d bytes, %v", len(got), err)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Join(s.Root, "enc"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestHostKey checks that a server whose key is not in known_hosts, or
// differs from the one there, is refused with an error saying so, unless
// the check is turned off by name; and that a server with keys of several
// types is accepted when known_hosts holds any one of them, or the
// authority that signed its certificate.
func TestHostKey(t *testing.T) {
	types := []string{"ed25519", "ecdsa", "rsa"}
	s := remotetest.SSHDWith(t, remotetest.SSHOptions{HostKeyTypes: types, HostCertificate: true})
	single := remotetest.SSHD(t) // an ed25519 key only
	t.Setenv("SSH_AUTH_SOCK", "")
	dir := t.TempDir()
	knownHosts := func(lines ...string) string {
		file := filepath.Join(dir, fmt.Sprintf("%d.known_hosts", rand.Uint64()))
		if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	others := map[string]ssh.PublicKey{} // keys of each type the servers do not have
	for _, typ := range types {
		key, err := ssh.NewPublicKey(remotetest.NewKey(t, typ).Public())
		if err != nil {
			t.Fatal(err)
		}
		others[typ] = key
	}

	type test struct {
		name   string
		server *remotetest.SSH
		known  string
		ignore bool
		want   string // in the error; "" for success
	}
	tests := []test{
		{"unknown host", s, knownHosts(), false, "not in known_hosts"},
		{"ignored by name", s, knownHosts(), true, ""},
		{"all keys known", s, s.KnownHosts, false, ""},
		{"authority known", s, knownHosts("@cert-authority " + remotetest.KnownHostsLine(s.Addr, s.HostCA)), false, ""},
		{"another authority", s, knownHosts("@cert-authority " + remotetest.KnownHostsLine(s.Addr, others["ed25519"])), false, "not signed by an authority"},
		{"no key of the known type", single, knownHosts(remotetest.KnownHostsLine(single.Addr, others["ecdsa"])), false, "no host key of the types known_hosts holds"},
	}
	for i, typ := range types {
		tests = append(tests,
			test{typ + " key known", s, knownHosts(remotetest.KnownHostsLine(s.Addr, s.HostKeys[i])), false, ""},
			test{typ + " key changed", s, knownHosts(remotetest.KnownHostsLine(s.Addr, others[typ])), false, "does NOT match"})
	}
	for _, tt := range tests {
		fsys, err := sftpfs.Dial(sftpfs.Config{
			Addr: tt.server.Addr, User: tt.server.User, KeyFiles: []string{tt.server.KeyFile}, KnownHosts: []string{tt.known},
			InsecureIgnoreHostKey: tt.ignore, Timeout: 5 * time.Second,
		}, tt.server.Root)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			} else {
				fsys.Close()
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.want)
		}
		if err == nil {
			fsys.Close()
		}
	}
}

// TestServerKilled checks that killing the server mid-write leaves the old
// file, and that calls then fail at once, with an error.
func TestServerKilled(t *testing.T) {
	s := remotetest.SSHD(t)
	fsys := dial(t, s)
	enc, err := fsx.New(fsys, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(enc, "x", []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := enc.Create("x")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(remotetest.RandomBytes(1<<20, 2))
	// The server dies, and with it the connection (sshd's process for
	// the connection may outlive its listener: close it as a dying
	// network would).
	s.Kill()
	fsys.Close()
	done := make(chan error, 1)
	go func() { done <- f.Close() }()
	select {
	case err := <-done:
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			t.Errorf("Close after the server died: %v, want a *fs.PathError", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Close hangs after the server died")
	}
	got, err := os.ReadFile(filepath.Join(s.Root, "x.b14"))
	if err != nil {
		t.Fatal(err)
	}
	local, _ := fsx.New(afero.NewBasePathFs(afero.NewOsFs(), s.Root), base16384.NewCodec())
	if plain, err := afero.ReadFile(local, "x"); err != nil || string(plain) != "old content" {
		t.Errorf("after the server died mid-write the file reads %.20q (%d bytes), %v (stored: %d bytes)", plain, len(plain), err, len(got))
	}
}

// TestExclusiveCreate has several clients create one name with O_EXCL at
// once, and then once more: exactly one wins the first round, and every
// other creator gets fs.ErrExist in a *fs.PathError (OpenSSH answers a
// plain failure, which would otherwise read as EIO).
func TestExclusiveCreate(t *testing.T) {
	s := remotetest.SSHD(t)
	const clients = 6
	var fss [clients]*sftpfs.Fs
	for i := range fss {
		fss[i] = dial(t, s)
	}
	for round := range 5 {
		name := fmt.Sprintf("one-%d", round)
		won := remotetest.Race(clients, func(c int) bool {
			f, err := fss[c].OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			var pe *fs.PathError
			switch {
			case err == nil:
				if err := f.Close(); err != nil {
					t.Errorf("client %d: Close: %v", c, err)
				}
				return true
			case !errors.Is(err, fs.ErrExist) || !errors.As(err, &pe):
				t.Errorf("round %d, client %d: %v, want fs.ErrExist in a *fs.PathError", round, c, err)
			}
			return false
		})
		if len(won) != 1 {
			t.Errorf("round %d: %d creators succeeded, want 1", round, len(won))
		}
		if _, err := fss[0].OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); !errors.Is(err, fs.ErrExist) {
			t.Errorf("creating the existing %s: %v, want fs.ErrExist", name, err)
		}
	}
}

// TestOpenRoundTrips checks that opening a file for reading, a directory
// or a missing name takes one round trip to the server, counted by the
// proxy of a link with 40 ms round trips: the Stat that tells them apart
// goes with the open. Two Stats, one after the other, take two. It checks
// the round trips of what fsx stores a file with too.
func TestOpenRoundTrips(t *testing.T) {
	s := remotetest.SSHD(t)
	proxy := remotetest.NewProxy(t, s.Addr)
	fsys := dialTimeout(t, s, proxy.Addr, 30*time.Second)
	if err := afero.WriteFile(fsys, "f", []byte("content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Mkdir("d", 0o755); err != nil {
		t.Fatal(err)
	}
	proxy.SetDelay(20 * time.Millisecond)
	for _, name := range []string{"f", "d", "missing"} {
		before := proxy.Flights()
		f, err := fsys.Open(name)
		flights := proxy.Flights() - before
		if name == "missing" {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Open(%s): %v, want ErrNotExist", name, err)
			}
		} else if err != nil {
			t.Fatal(err)
		} else {
			f.Close()
		}
		if flights != 1 {
			t.Errorf("Open(%s) took %d round trips, want 1", name, flights)
		}
	}
	before := proxy.Flights()
	fsys.Stat("f")
	fsys.Stat("d")
	if flights := proxy.Flights() - before; flights != 2 {
		t.Errorf("two Stats took %d round trips, want 2", flights)
	}
	f, err := fsys.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(f); err != nil || string(got) != "content" {
		t.Errorf("read %q, %v", got, err)
	}
	if info, err := f.Stat(); err != nil || info.Size() != 7 {
		t.Errorf("Stat = %v, %v", info, err)
	}
	// Closing a file open only for reading does not wait for the server.
	before = proxy.Flights()
	if err := f.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if flights := proxy.Flights() - before; flights != 0 {
		t.Errorf("closing a file open for reading took %d round trips, want 0", flights)
	}

	// An exclusive create is an open and the fsetstat of its mode, with no
	// Stat first; its Chmod goes through the handle, without the Lstat a
	// Chmod by name makes first.
	before = proxy.Flights()
	w, err := fsys.OpenFile("new", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if flights := proxy.Flights() - before; flights != 2 {
		t.Errorf("an exclusive create took %d round trips, want 2", flights)
	}
	before = proxy.Flights()
	if err := w.(interface{ Chmod(os.FileMode) error }).Chmod(0o640); err != nil {
		t.Fatal(err)
	}
	if flights := proxy.Flights() - before; flights != 1 {
		t.Errorf("a Chmod of an open file took %d round trips, want 1", flights)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if info, err := fsys.Stat("new"); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("Stat(new) = %v, %v; want mode 0640", info, err)
	}
	for _, name := range []string{"f", "d"} {
		if _, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
			t.Errorf("an exclusive create of %s: %v, want fs.ErrExist", name, err)
		}
	}

	// A directory is not flushed: no round trip (atomicfile.DirSyncer).
	before = proxy.Flights()
	if err := fsys.SyncDir("d"); err != nil {
		t.Errorf("SyncDir: %v", err)
	}
	if flights := proxy.Flights() - before; flights != 0 {
		t.Errorf("SyncDir took %d round trips, want 0", flights)
	}
	if h, ok := fsys.NoFollow().(fsx.HighLatency); !ok || !h.HighLatency() {
		t.Error("NoFollow's Fs does not report HighLatency")
	}
	if c, ok := fsys.NoFollow().(fsx.CheapLookups); !ok || !c.CheapLookups() {
		t.Error("NoFollow's Fs does not report CheapLookups")
	}
}

// TestErrnos checks that removals and renames the server refuses with
// SFTP's plain failure, or with "no such file" where a name is not a
// directory, fail as on a local directory (ENOTEMPTY, EISDIR, ENOTDIR),
// not with errors that show as EIO or ENOENT through a mount.
func TestErrnos(t *testing.T) {
	s := remotetest.SSHD(t)
	remote := afero.NewBasePathFs(dial(t, s), "errnos")
	local := t.TempDir()
	if err := remote.MkdirAll("/", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"full", "empty", "other"} {
		if err := remote.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(local, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{"full/x", "other/y", "file"} {
		if err := afero.WriteFile(remote, file, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(local, file), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		op       string
		from, to string
		want     error
	}{
		{"remove", "full", "", syscall.ENOTEMPTY},
		{"rename", "other", "full", syscall.ENOTEMPTY},
		{"rename", "file", "empty", syscall.EISDIR},
		{"rename", "empty", "file", syscall.ENOTDIR},
	} {
		// The local reference is rename(2) itself: os.Rename refuses any
		// directory as the new name.
		var lerr, rerr error
		if tc.op == "remove" {
			lerr, rerr = syscall.Rmdir(filepath.Join(local, tc.from)), remote.Remove(tc.from)
		} else {
			lerr, rerr = syscall.Rename(filepath.Join(local, tc.from), filepath.Join(local, tc.to)), remote.Rename(tc.from, tc.to)
		}
		if !errors.Is(lerr, tc.want) {
			t.Fatalf("%s %s %s locally: %v, want %v", tc.op, tc.from, tc.to, lerr, tc.want)
		}
		if !errors.Is(rerr, tc.want) {
			t.Errorf("%s %s %s over SFTP: %v, want %v", tc.op, tc.from, tc.to, rerr, tc.want)
		}
	}
}

// TestSymlinks makes, reads and removes links on the server, as they are
// and through fsx; a link's own mode, owner and times cannot be changed
// over SFTP, and trying leaves what it points at alone, outside the root
// too.
func TestSymlinks(t *testing.T) {
	s := remotetest.SSHD(t)
	fsys := dial(t, s)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(outside, old, old)
	if err := afero.WriteFile(fsys, "file", []byte("file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for target, name := range map[string]string{"file": "rel", outside: "abs", "nothing": "dangling"} {
		if err := fsys.SymlinkIfPossible(target, name); err != nil {
			t.Fatal(err)
		}
		if got, err := fsys.ReadlinkIfPossible(name); err != nil || got != target {
			t.Errorf("ReadlinkIfPossible(%s) = %q, %v; want %q", name, got, err, target)
		}
		if got, err := os.Readlink(filepath.Join(s.Root, name)); err != nil || got != target {
			t.Errorf("on the server, %s -> %q, %v; want %q", name, got, err, target)
		}
		info, lstater, err := fsys.LstatIfPossible(name)
		if err != nil || !lstater || info.Mode()&os.ModeSymlink == 0 || info.Name() != name {
			t.Errorf("LstatIfPossible(%s) = %v, %v, %v; want a link", name, info, lstater, err)
		}
	}
	if fi, err := fsys.Stat("rel"); err != nil || fi.Mode()&os.ModeSymlink != 0 || fi.Size() != 5 {
		t.Errorf("Stat follows a link: %v, %v", fi, err)
	}
	var le *os.LinkError
	if err := fsys.SymlinkIfPossible("x", "file"); !errors.Is(err, fs.ErrExist) || !errors.As(err, &le) {
		t.Errorf("a link over a file: %v, want an *os.LinkError wrapping fs.ErrExist", err)
	}
	if _, err := fsys.ReadlinkIfPossible("file"); err == nil {
		t.Error("ReadlinkIfPossible of a file succeeded")
	}
	if info, _, err := fsys.LstatIfPossible("file"); err != nil || !info.Mode().IsRegular() {
		t.Errorf("LstatIfPossible(file) = %v, %v", info, err)
	}

	for _, name := range []string{"abs", "rel", "dangling"} {
		for op, err := range map[string]error{
			"chmod":   fsys.Chmod(name, 0o777),
			"chown":   fsys.Chown(name, 1, 1),
			"chtimes": fsys.Chtimes(name, time.Now(), time.Now()),
		} {
			if !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("%s %s: %v, want errors.ErrUnsupported", op, name, err)
			}
		}
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o600 || !fi.ModTime().Equal(old) || fi.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Errorf("what a link points at changed: %v, %v", fi, err)
	}
	if err := fsys.Chmod("file", 0o600); err != nil {
		t.Error(err)
	}
	if err := fsys.Rename("dangling", "dangling2"); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"abs", "rel", "dangling2"} {
		if err := fsys.Remove(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("removing a link removed what it points at: %v", err)
	}
	// RemoveAll removes a link to a directory, not what is in it.
	if err := fsys.MkdirAll("tree/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fsys.SymlinkIfPossible(filepath.Dir(outside), "tree/sub/out"); err != nil {
		t.Fatal(err)
	}
	if err := fsys.RemoveAll("tree"); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("RemoveAll followed a link: %v", err)
	}

	// A root that is a link stands for its directory.
	if err := fsys.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir", filepath.Join(s.Root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	under := dialRoot(t, s, s.Addr, reconnectTimeout, filepath.Join(s.Root, "dirlink"))
	if info, _, err := under.LstatIfPossible(""); err != nil || !info.IsDir() {
		t.Errorf("the root, a link to a directory: %v, %v", info, err)
	}
	if err := under.Chmod("", 0o750); err != nil {
		t.Errorf("chmod of the root, a link to a directory: %v", err)
	}

	// NoFollow's Stat describes a link itself.
	if err := fsys.SymlinkIfPossible("file", "rel"); err != nil {
		t.Fatal(err)
	}
	if fi, err := fsys.NoFollow().Stat("rel"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("NoFollow().Stat(rel) = %v, %v; want a link", fi, err)
	}
	if fi, err := under.NoFollow().Stat(""); err != nil || !fi.IsDir() {
		t.Errorf("NoFollow().Stat of the root, a link to a directory: %v, %v", fi, err)
	}

	// Through fsx as a mount has it, a link's target is mapped like a
	// file's name, and dangling links are renamed too.
	enc, err := fsx.New(under.NoFollow(), base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(enc, "notes.txt", []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := enc.SymlinkIfPossible("notes.txt", "ln"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(filepath.Join(s.Root, "dir", "ln.b14")); err != nil || got != "notes.txt.b14" {
		t.Errorf("stored link: %q, %v", got, err)
	}
	if got, err := enc.ReadlinkIfPossible("ln"); err != nil || got != "notes.txt" {
		t.Errorf("shown link: %q, %v", got, err)
	}
	if err := enc.Rename("ln", "ln2"); err != nil {
		t.Error(err)
	}
	if err := enc.SymlinkIfPossible("nothing", "dangling"); err != nil {
		t.Fatal(err)
	}
	if err := enc.Rename("dangling", "dangling2"); err != nil {
		t.Error(err)
	}
}

// TestNameTooLong checks that a name with an element longer than the
// server takes fails with ENAMETOOLONG in every call, as on a local disk,
// not with the server's plain refusal (EIO through a mount); and that one
// of the longest length works.
func TestNameTooLong(t *testing.T) {
	s := remotetest.SSHD(t)
	fsys := dial(t, s)
	longest, long := strings.Repeat("n", 255), strings.Repeat("n", 256)
	if err := afero.WriteFile(fsys, longest, []byte("x"), 0o644); err != nil {
		t.Fatalf("a name of 255 bytes: %v", err)
	}
	if err := fsys.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{long, "dir/" + long, long + "/x"} {
		calls := map[string]error{
			"open": func() error { _, err := fsys.Open(name); return err }(),
			"create": func() error {
				f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
				if err == nil {
					f.Close()
				}
				return err
			}(),
			"stat":      func() error { _, err := fsys.Stat(name); return err }(),
			"lstat":     func() error { _, _, err := fsys.LstatIfPossible(name); return err }(),
			"readlink":  func() error { _, err := fsys.ReadlinkIfPossible(name); return err }(),
			"mkdir":     fsys.Mkdir(name, 0o755),
			"mkdirall":  fsys.MkdirAll(name, 0o755),
			"remove":    fsys.Remove(name),
			"chmod":     fsys.Chmod(name, 0o600),
			"rename":    fsys.Rename(longest, name),
			"renamed":   fsys.Rename(name, "x"),
			"symlink":   fsys.SymlinkIfPossible("x", name),
			"removeall": fsys.RemoveAll(name),
		}
		for op, err := range calls {
			if !errors.Is(err, syscall.ENAMETOOLONG) {
				t.Errorf("%s of %.20s... (%d bytes): %v, want ENAMETOOLONG", op, name, len(name), err)
			}
		}
	}
}

// TestFullDisk writes to a server whose disk is full (a 1 MiB tmpfs):
// the writes fail with ENOSPC, as on a local disk, not with the server's
// plain refusal (EIO through a mount); through fsx the file keeps what it
// held, and no temporary file is left.
func TestFullDisk(t *testing.T) {
	s := remotetest.SSHD(t)
	small := tmpfs.Mount(t, "1m")
	if err := os.Chmod(small, 0o777); err != nil {
		t.Fatal(err)
	}
	fsys := dialRoot(t, s, s.Addr, reconnectTimeout, small)
	f, err := fsys.Create("raw")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(make([]byte, 2<<20))
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("writing 2 MiB to a 1 MiB disk: %v, want ENOSPC", err)
	}
	if err := fsys.Remove("raw"); err != nil {
		t.Fatal(err)
	}

	enc, err := fsx.New(fsys.NoFollow(), base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(enc, "kept", []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(enc, "kept", make([]byte, 2<<20), 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("through fsx: %v, want ENOSPC", err)
	}
	if got, err := afero.ReadFile(enc, "kept"); err != nil || string(got) != "kept\n" {
		t.Errorf("after the failed write: %q, %v", got, err)
	}
	if entries, err := os.ReadDir(small); err != nil || len(entries) != 1 {
		t.Errorf("left on the server: %v, %v", entries, err)
	}
}

// TestRefusals checks the errnos of changes the server refuses with a
// plain failure, told apart by its statvfs as a local file system tells
// them: EXDEV for a rename between two file systems (on which mv copies),
// EROFS for every change on a read-only one.
func TestRefusals(t *testing.T) {
	s := remotetest.SSHD(t)
	fsys := dial(t, s)
	other := tmpfs.Mount(t, "1m")
	if err := os.Symlink(other, filepath.Join(s.Root, "other")); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "file", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Rename("file", "other/file"); !errors.Is(err, syscall.EXDEV) {
		t.Errorf("a rename to another file system: %v, want EXDEV", err)
	}

	if err := afero.WriteFile(fsys, "other/kept", []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Mkdir("other/dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-o", "remount,ro", other).CombinedOutput(); err != nil {
		t.Fatalf("remount,ro: %v: %s", err, out)
	}
	for op, err := range map[string]error{
		"create":  func() error { _, err := fsys.Create("other/new"); return err }(),
		"mkdir":   fsys.Mkdir("other/new", 0o755),
		"remove":  fsys.Remove("other/kept"),
		"rmdir":   fsys.Remove("other/dir"),
		"rename":  fsys.Rename("other/kept", "other/moved"),
		"chmod":   fsys.Chmod("other/kept", 0o600),
		"chtimes": fsys.Chtimes("other/kept", time.Now(), time.Now()),
		"symlink": fsys.SymlinkIfPossible("kept", "other/link"),
		"write": func() error {
			f, err := fsys.OpenFile("other/kept", os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write([]byte("y"))
			return err
		}(),
	} {
		if !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s on a read-only file system: %v, want EROFS", op, err)
		}
	}
}

// TestMkdirExisting checks that making a directory over anything that
// exists fails with fs.ErrExist, as mkdir(2) does, not with the server's
// plain failure.
func TestMkdirExisting(t *testing.T) {
	s := remotetest.SSHD(t)
	fsys := dial(t, s)
	if err := fsys.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "file", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fsys.SymlinkIfPossible("nowhere", "link"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dir", "file", "link"} {
		if err := fsys.Mkdir(name, 0o755); !errors.Is(err, fs.ErrExist) {
			t.Errorf("mkdir over %s: %v, want fs.ErrExist", name, err)
		}
	}
}

// TestModesLessUmask checks that files and directories made with a mode
// get it less this process's umask, as os.OpenFile and os.Mkdir give them,
// not the mode as asked (0666 and 0777 from a WebDAV server were made
// writable by all).
func TestModesLessUmask(t *testing.T) {
	s := remotetest.SSHD(t)
	fsys := dial(t, s)
	if err := fsys.Mkdir("d", 0o777); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.OpenFile("d/f", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, perm := range map[string]os.FileMode{"d": 0o777, "d/f": 0o666} {
		fi, err := os.Stat(filepath.Join(s.Root, name))
		if want := umask.Apply(perm); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s made with %v: %v (%v), want %v", name, perm, fi.Mode().Perm(), err, want)
		}
	}
}
