package sftpfs_test

import (
	"bytes"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"
	"go.uber.org/goleak"
	"golang.org/x/crypto/ssh"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/remote/sftpfs"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

const reconnectTimeout = 5 * time.Second

// dialAt dials s through addr (a proxy's), which known_hosts gives s's key,
// with the timeout reconnectTimeout.
func dialAt(t testing.TB, s *remotetest.SSH, addr string) *sftpfs.Fs {
	return dialTimeout(t, s, addr, reconnectTimeout)
}

// dialTimeout is dialAt with another timeout.
func dialTimeout(t testing.TB, s *remotetest.SSH, addr string, timeout time.Duration) *sftpfs.Fs {
	return dialRoot(t, s, addr, timeout, s.Root)
}

// dialRoot is dialTimeout with another root than s.Root.
func dialRoot(t testing.TB, s *remotetest.SSH, addr string, timeout time.Duration, root string) *sftpfs.Fs {
	t.Helper()
	t.Setenv("SSH_AUTH_SOCK", "")
	known := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(known, []byte(remotetest.KnownHostsLine(addr, s.HostKeys[0])), 0o600); err != nil {
		t.Fatal(err)
	}
	fsys, err := sftpfs.Dial(sftpfs.Config{
		Addr: addr, User: s.User, KeyFiles: []string{s.KeyFile}, KnownHosts: []string{known},
		Timeout: timeout,
	}, root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// ignoreServers leaves out of goleak's count what the servers a test
// starts run in the test's process.
var ignoreServers = []goleak.Option{
	goleak.IgnoreAnyFunction("github.com/b14fs/b14fs/internal/testing/remotetest.startServer.func1"),
	goleak.IgnoreAnyFunction("os/exec.(*Cmd).Start.func2"),
	goleak.IgnoreAnyFunction("github.com/b14fs/b14fs/internal/testing/remotetest.(*Proxy).pipe"),
	goleak.IgnoreAnyFunction("github.com/b14fs/b14fs/internal/testing/remotetest.(*Proxy).pipe.func1"),
}

// TestReconnect loses the connection, by a cut network and by a server
// that goes down and comes back on the same port, and checks that calls
// during the outage fail within the timeout, all at once, without a dial
// each; that files being written fail and leave the old content; that
// later calls work again, and files open for reading read on; and that
// nothing is left running after Close.
func TestReconnect(t *testing.T) {
	tests := []struct {
		name string
		// outage returns the address to dial, and what takes the
		// server away and brings it back.
		outage func(t *testing.T, s *remotetest.SSH) (addr string, down, up func())
	}{
		{"network cut", func(t *testing.T, s *remotetest.SSH) (string, func(), func()) {
			p := remotetest.NewProxy(t, s.Addr)
			return p.Addr, p.Cut, p.Heal
		}},
		{"server restarted", func(t *testing.T, s *remotetest.SSH) (string, func(), func()) {
			return s.Addr, s.Crash, func() { s.Restart(t) }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := remotetest.SSHD(t)
			addr, down, up := tt.outage(t, s)
			before := goleak.IgnoreCurrent()
			fsys := dialAt(t, s, addr)
			enc, err := fsx.New(fsys, base16384.NewCodec())
			if err != nil {
				t.Fatal(err)
			}
			content := remotetest.RandomBytes(1<<20, 5)
			if err := afero.WriteFile(fsys, "plain", content, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := afero.WriteFile(enc, "kept", []byte("old content"), 0o644); err != nil {
				t.Fatal(err)
			}
			reading, err := fsys.Open("plain")
			if err != nil {
				t.Fatal(err)
			}
			defer reading.Close()
			p := make([]byte, 1000)
			if _, err := io.ReadFull(reading, p); err != nil || !bytes.Equal(p, content[:1000]) {
				t.Fatalf("first read: %v", err)
			}
			writing, err := fsys.Create("writing")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := writing.Write([]byte("before")); err != nil {
				t.Fatal(err)
			}
			replacing, err := enc.Create("kept")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := replacing.Write(remotetest.RandomBytes(1<<20, 6)); err != nil {
				t.Fatal(err)
			}

			down()
			// Calls during the outage, many at once: each fails, within
			// the timeout.
			start := time.Now()
			errs := make(chan error, 24)
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() { _, err := fsys.Stat("plain"); errs <- err })
				wg.Go(func() { _, err := afero.ReadDir(fsys, "."); errs <- err })
				wg.Go(func() { errs <- fsys.Mkdir("dir"+string(rune('a'+i)), 0o755) })
			}
			wg.Wait()
			close(errs)
			if d := time.Since(start); d > reconnectTimeout+time.Second {
				t.Errorf("calls during the outage took %v, beyond the timeout of %v", d, reconnectTimeout)
			}
			for err := range errs {
				var pe *fs.PathError
				if !errors.As(err, &pe) {
					t.Errorf("a call during the outage: %v, want a *fs.PathError", err)
				}
			}
			// The file being written fails, and says why.
			if _, err := writing.Write([]byte("after")); !errors.Is(err, sftpfs.ErrConnectionLost) {
				t.Errorf("Write after the connection was lost: %v, want ErrConnectionLost", err)
			}
			if err := writing.Close(); !errors.Is(err, sftpfs.ErrConnectionLost) {
				t.Errorf("Close after the connection was lost: %v, want ErrConnectionLost", err)
			}
			if err := replacing.Close(); err == nil {
				t.Error("fsx's Close of a file being replaced when the connection was lost succeeded")
			}
			if err := afero.WriteFile(enc, "new", []byte("x"), 0o644); err == nil {
				t.Error("a write during the outage succeeded")
			}

			up()
			deadline := time.Now().Add(30 * time.Second)
			for {
				_, err := fsys.Stat("plain")
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no reconnection within 30 s: %v", err)
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Logf("reconnected %v after the outage began", time.Since(start))
			// The file open for reading reads on, where it was and at
			// offsets.
			if _, err := io.ReadFull(reading, p); err != nil || !bytes.Equal(p, content[1000:2000]) {
				t.Errorf("Read after reconnecting: %v", err)
			}
			if _, err := reading.ReadAt(p, 500000); err != nil || !bytes.Equal(p, content[500000:501000]) {
				t.Errorf("ReadAt after reconnecting: %v", err)
			}
			// The file being replaced keeps its old content.
			if got, err := afero.ReadFile(enc, "kept"); err != nil || string(got) != "old content" {
				t.Errorf("the file being replaced when the connection was lost reads %.20q, %v", got, err)
			}
			if err := afero.WriteFile(enc, "new", []byte("new content"), 0o644); err != nil {
				t.Error(err)
			}
			if got, err := afero.ReadFile(enc, "new"); err != nil || string(got) != "new content" {
				t.Errorf("a file written after reconnecting reads %q, %v", got, err)
			}
			reading.Close()
			fsys.Close()
			goleak.VerifyNone(t, append(ignoreServers, before)...)
		})
	}
}

// TestReconnectBackoff checks that calls during an outage do not each
// dial the server: one reconnection runs at a time, and after a failed one
// the calls fail at once until the backoff has passed.
func TestReconnectBackoff(t *testing.T) {
	s := remotetest.SSHD(t)
	p := remotetest.NewProxy(t, s.Addr)
	before := goleak.IgnoreCurrent()
	fsys := dialAt(t, s, p.Addr)
	p.Cut()
	dialed := p.Accepted()
	var wg sync.WaitGroup
	var calls int64
	var mu sync.Mutex
	for range 8 {
		wg.Go(func() {
			for end := time.Now().Add(time.Second); time.Now().Before(end); {
				_, err := fsys.Stat(".")
				if err == nil {
					t.Error("Stat succeeded through a cut network")
					return
				}
				mu.Lock()
				calls++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// 250 ms, then 500 ms of backoff: a dial at 0, 0.25 and 0.75 s.
	if n := p.Accepted() - dialed; n < 1 || n > 4 {
		t.Errorf("%d calls in a second of outage dialed %d times, want 1 to 4", calls, n)
	}
	_, err := fsys.Stat(".")
	if err == nil || !strings.Contains(err.Error(), "reconnecting failed") {
		t.Errorf("Stat during the backoff: %v, want an error saying reconnecting failed", err)
	}
	fsys.Close()
	goleak.VerifyNone(t, append(ignoreServers, before)...)
}

// TestReconnectChanged checks that a file open for reading, which changed
// on the server while the connection was lost, fails to read on rather
// than mixing the two contents.
func TestReconnectChanged(t *testing.T) {
	s := remotetest.SSHD(t)
	p := remotetest.NewProxy(t, s.Addr)
	fsys := dialAt(t, s, p.Addr)
	if err := afero.WriteFile(fsys, "f", []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 3)
	if _, err := f.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	p.Cut()
	if err := os.WriteFile(filepath.Join(s.Root, "f"), []byte("new, longer content"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Heal()
	if _, err := f.ReadAt(buf, 4); !errors.Is(err, sftpfs.ErrChanged) {
		t.Errorf("ReadAt of a file changed during the outage: %q, %v, want ErrChanged", buf, err)
	}
}

// TestDialSilentServer checks that a server that takes the TCP connection
// but never answers fails Dial within the timeout: the key exchange and
// the login are bounded too, not the TCP connection alone.
func TestDialSilentServer(t *testing.T) {
	addr := remotetest.SilentServer(t)
	before := goleak.IgnoreCurrent()
	t.Setenv("SSH_AUTH_SOCK", "")
	key := filepath.Join(t.TempDir(), "key")
	block, err := ssh.MarshalPrivateKey(remotetest.NewKey(t, "ed25519"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = sftpfs.Dial(sftpfs.Config{
		Addr: addr, User: "nobody", KeyFiles: []string{key},
		InsecureIgnoreHostKey: true, Timeout: time.Second,
	}, ".")
	if err == nil {
		t.Fatal("Dial of a server that says nothing succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Dial of a server that says nothing failed after %v, beyond the timeout of 1 s", d)
	}
	goleak.VerifyNone(t, before)
}

// TestReconnectHungServer checks that a connection whose server stops
// answering is closed after the timeout of unanswered keep-alives, and
// that the calls waiting on it, and files open for reading, go on over a
// new connection.
func TestReconnectHungServer(t *testing.T) {
	s := remotetest.SSHD(t)
	const timeout = time.Second
	fsys := dialTimeout(t, s, s.Addr, timeout)
	content := remotetest.RandomBytes(100000, 7)
	if err := afero.WriteFile(fsys, "f", content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s.HangConnections(t)
	start := time.Now()
	if _, err := fsys.Stat("f"); err != nil {
		t.Errorf("Stat when the connection hung: %v, want it made again on a new connection", err)
	}
	// Keep-alives every third of the timeout, the last unanswered for
	// the timeout, then a new connection.
	if d := time.Since(start); d > 3*timeout {
		t.Errorf("Stat when the connection hung took %v, with a timeout of %v", d, timeout)
	}
	p := make([]byte, 1000)
	if _, err := f.ReadAt(p, 50000); err != nil || !bytes.Equal(p, content[50000:51000]) {
		t.Errorf("ReadAt after a new connection: %v", err)
	}
}

// TestReconnectReadAhead cuts the link while an fsx file over SFTP is read
// with two chunks in flight: the read fails with an error, never with other
// bytes; once the link is back, the same file reads on from where it
// failed, and reads whole again.
func TestReconnectReadAhead(t *testing.T) {
	s := remotetest.SSHD(t)
	proxy := remotetest.NewProxy(t, s.Addr)
	before := goleak.IgnoreCurrent()
	fsys := dialAt(t, s, proxy.Addr)
	enc, err := fsx.New(fsys, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	content := remotetest.RandomBytes(24<<20, 8)
	if err := afero.WriteFile(enc, "big", content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := enc.Open("big")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 0, len(content))
	p := make([]byte, 128<<10)
	read := func() error {
		for len(got) < len(content) {
			n, err := f.Read(p)
			got = append(got, p[:n]...)
			if !bytes.Equal(got, content[:len(got)]) {
				t.Fatalf("read %d bytes, other than written", len(got))
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	// Far enough for chunks of 4 MiB, read ahead two at a time.
	for len(got) < 9<<20 {
		n, err := f.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p[:n]...)
	}
	proxy.Cut()
	err = read()
	if err == nil {
		t.Fatal("the whole file read over a cut link")
	}
	t.Logf("over the cut link, after %d bytes: %v", len(got), err)
	proxy.Heal()
	var last error
	for deadline := time.Now().Add(30 * time.Second); len(got) < len(content) && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		// The same file reads on from where it failed.
		if _, err := f.Seek(int64(len(got)), io.SeekStart); err != nil {
			t.Fatal(err)
		}
		last = read()
	}
	if len(got) < len(content) {
		t.Fatalf("after the link is back, stuck at %d bytes: %v", len(got), last)
	}
	f.Close()
	if all, err := afero.ReadFile(enc, "big"); err != nil || !bytes.Equal(all, content) {
		t.Errorf("read whole after the link is back: %d bytes, %v", len(all), err)
	}
	fsys.Close()
	goleak.VerifyNone(t, append(ignoreServers, before)...)
}
