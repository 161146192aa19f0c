//go:build linux

package mount

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/internal/remote/s3fs"
	"github.com/b14fs/b14fs/internal/remote/sftpfs"
	"github.com/b14fs/b14fs/internal/testing/difftest"
	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// mountNoIdentity mounts, writable, an fsx over a base that tells no file
// identities (a MemMapFs, as SFTP and S3 tell none), and returns the mount
// and the base.
func mountNoIdentity(t *testing.T) (*testMount, afero.Fs) {
	base := afero.NewBasePathFs(afero.NewMemMapFs(), "/base")
	if err := base.MkdirAll("/", 0o755); err != nil {
		t.Fatal(err)
	}
	fuseAvailable(t)
	return mountView(t, t.TempDir(), mustFsx(t, base, base16384.NewCodec()), Options{Writable: true}), base
}

// lookUpAgain has the kernel look name up again at once, as it does when
// an entry's timeout ran out: an exclusive create of a name it knows
// revalidates it. The create fails, the name existing.
func lookUpAgain(t *testing.T, p string) {
	t.Helper()
	if f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644); !errors.Is(err, os.ErrExist) {
		if err == nil {
			f.Close()
		}
		t.Fatalf("exclusive create of an existing file: %v", err)
	}
}

func inoOf(t *testing.T, p string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// TestNoIdentityOneInode checks, over a base without file identities, that
// a file keeps its inode number, and the kernel its one inode, from one
// lookup to the next: so that a write through one descriptor shows in the
// size another sees, and in a stat by name. Before, each lookup gave the
// file a new node (and number), with the size the kernel held for it at
// that lookup. A file made again after its removal, and one replaced
// underneath while open, are other files.
func TestNoIdentityOneInode(t *testing.T) {
	tm, base := mountNoIdentity(t)
	p := tm.at("f")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	ino := inoOf(t, p)
	lookUpAgain(t, p)
	if got := inoOf(t, p); got != ino {
		t.Errorf("a file looked up again: inode number %d, %d before", got, ino)
	}

	w, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	lookUpAgain(t, p)
	r, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.Write([]byte(", world")); err != nil {
		t.Fatal(err)
	}
	if end, err := r.Seek(-5, io.SeekEnd); end != 7 || err != nil {
		t.Errorf("another descriptor seeks 5 bytes before the end to %d, %v; want 7", end, err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != 12 {
		t.Errorf("stat by name after the write: %v, %v; want size 12", fi, err)
	}
	w.Close()
	r.Close()

	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("again"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := inoOf(t, p)
	if again == ino {
		t.Errorf("a file made again after its removal has the old one's inode number %d", ino)
	}

	// Replaced underneath (another fsx over the same base) while open: the
	// open file reads on what it opened, and the name shows the new file,
	// under a number of its own.
	o, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if err := afero.WriteFile(mustFsx(t, base, base16384.NewCodec()), "f", []byte("replaced underneath"), 0o644); err != nil {
		t.Fatal(err)
	}
	lookUpAgain(t, p)
	if got := inoOf(t, p); got == again {
		t.Errorf("a file replaced underneath while open keeps the open one's inode number %d", got)
	}
	if got, err := io.ReadAll(o); err != nil || string(got) != "again" {
		t.Errorf("the open file reads %q, %v; want what it opened", got, err)
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != "replaced underneath" {
		t.Errorf("the name reads %q, %v", got, err)
	}
}

// TestDifferentialNoIdentity is TestDifferential over a base without file
// identities (without hard links, which such bases have not).
func TestDifferentialNoIdentity(t *testing.T) {
	tm, _ := mountNoIdentity(t)
	for seed := range int64(3) {
		t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
			mnt := tm.at(strconv.FormatInt(seed, 10))
			if err := os.Mkdir(mnt, 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := difftest.Config{Seed: seed, Ops: difftest.DefaultOps()}
			if err := difftest.Run(cfg, difftest.Dir(t.TempDir()), difftest.Dir(mnt)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// mountSFTP mounts with opts an fsx, with base16384, over the directory
// of an sshd of the test's own.
func mountSFTP(t *testing.T, opts Options) *testMount {
	tm, _ := mountSFTPProxy(t, opts)
	return tm
}

// mountSFTPProxy is mountSFTP, over a connection through a proxy, which it
// returns too: a test can count the round trips of what it does.
func mountSFTPProxy(t *testing.T, opts Options) (*testMount, *remotetest.Proxy) {
	t.Helper()
	ssh := remotetest.SSHD(t)
	proxy := remotetest.NewProxy(t, ssh.Addr)
	known := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(known, []byte(remotetest.KnownHostsLine(proxy.Addr, ssh.HostKeys[0])), 0o600); err != nil {
		t.Fatal(err)
	}
	base, err := sftpfs.Dial(sftpfs.Config{Addr: proxy.Addr, User: ssh.User, KeyFiles: []string{ssh.KeyFile},
		KnownHosts: []string{known}}, ssh.Root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { base.Close() })
	return mountView(t, ssh.Root, mustFsx(t, base.NoFollow(), base16384.NewCodec()), opts), proxy
}

// TestDifferentialRemote is TestDifferential through mounts over the
// remote bases: a directory of an sshd, and a bucket of SeaweedFS (of the
// in-process fake where weed is not built) without renames, which S3 has
// not. It found the stale sizes TestNoIdentityOneInode checks, and open
// files that failed to read once removed over S3.
func TestDifferentialRemote(t *testing.T) {
	longtest.Skip(t, "starts sshd and SeaweedFS")
	fuseAvailable(t)
	run := func(t *testing.T, mnt string, noRename bool) {
		for seed := range int64(3) {
			t.Run(strconv.FormatInt(seed, 10), func(t *testing.T) {
				dir := mnt + "/" + strconv.FormatInt(seed, 10)
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				cfg := difftest.Config{Seed: seed, Ops: difftest.DefaultOps() / 4, NoRename: noRename}
				if err := difftest.Run(cfg, difftest.Dir(t.TempDir()), difftest.Dir(dir)); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	t.Run("sftp", func(t *testing.T) {
		t.Parallel()
		run(t, mountSFTP(t, Options{Writable: true}).mnt, false)
	})
	t.Run("s3", func(t *testing.T) {
		t.Parallel()
		var endpoint string
		fake := remotetest.WeedBinary() == ""
		if fake {
			endpoint = remotetest.FakeS3(t)
		} else {
			endpoint, _ = remotetest.Weed(t)
		}
		base, err := s3fs.New(remotetest.Bucket, "differential", s3fs.Config{
			Endpoint: endpoint, Insecure: true, Region: "us-east-1", UnsignedPayload: fake,
			Credentials: credentials.NewStaticV4(remotetest.AccessKey, remotetest.SecretKey, ""),
			Timeout:     10 * time.Second, SpoolDir: t.TempDir(),
		})
		if err != nil {
			t.Fatal(err)
		}
		tm := mountView(t, t.TempDir(), mustFsx(t, base, base16384.NewCodec()), Options{Writable: true})
		run(t, tm.mnt, true)
	})
}

// TestNoIdentityReplacedSameSizeAndTime replaces a file underneath, over a
// base without file identities, by one of the same size and time (as
// within one second on SFTP or S3): the next open reads the new content,
// not the pages the kernel cached of the old one.
func TestNoIdentityReplacedSameSizeAndTime(t *testing.T) {
	tm, base := mountNoIdentity(t)
	const name = "same"
	releases := countReleases(t, name)
	old := bytes.Repeat([]byte("old content "), 10000)
	if err := os.WriteFile(tm.at(name), old, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got, err := os.ReadFile(tm.at(name)); err != nil || !bytes.Equal(got, old) {
			t.Fatalf("read %d bytes, %v", len(got), err)
		}
	}
	waitReleased(t, releases, 3)
	stored := name + ".b14"
	before, err := base.Stat(stored)
	if err != nil {
		t.Fatal(err)
	}
	replaced := bytes.Repeat([]byte("NEW CONTENT "), 10000)
	if err := afero.WriteFile(mustFsx(t, base, base16384.NewCodec()), name, replaced, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := base.Chtimes(stored, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(tm.at(name)); err != nil || !bytes.Equal(got, replaced) {
		t.Errorf("after a replacement of the same size and time: read %.12q (%d bytes), %v; want the new content", got, len(got), err)
	}
}
