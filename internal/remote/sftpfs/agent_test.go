package sftpfs_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/b14fs/b14fs/internal/remote/sftpfs"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
)

// testAgent is an ssh-agent serving a keyring on a unix socket.
type testAgent struct {
	l     net.Listener
	mu    sync.Mutex
	conns map[net.Conn]bool // open connections
}

// startAgent serves an agent holding the private key in keyFile at sock
// until stop or the test's end.
func startAgent(t *testing.T, sock, keyFile string) *testAgent {
	t.Helper()
	pem, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ssh.ParseRawPrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: key}); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	a := &testAgent{l: l, conns: map[net.Conn]bool{}}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			a.mu.Lock()
			a.conns[c] = true
			a.mu.Unlock()
			go func() {
				agent.ServeAgent(keyring, c)
				c.Close()
				a.mu.Lock()
				delete(a.conns, c)
				a.mu.Unlock()
			}()
		}
	}()
	t.Cleanup(a.stop)
	return a
}

// open returns how many connections to the agent are open.
func (a *testAgent) open() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.conns)
}

// stop ends the agent, as a restart of ssh-agent does: it stops listening
// and closes its connections.
func (a *testAgent) stop() {
	a.l.Close()
	a.mu.Lock()
	defer a.mu.Unlock()
	for c := range a.conns {
		c.Close()
	}
}

// TestAgent logs in with the keys of an ssh-agent only, and checks that a
// reconnection asks the agent running then: one restarted since the last
// login gives its keys, and none gives a clear error. No connection to the
// agent stays open after a login.
func TestAgent(t *testing.T) {
	s := remotetest.SSHD(t)
	proxy := remotetest.NewProxy(t, s.Addr)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	t.Setenv("SSH_AUTH_SOCK", sock)
	t.Setenv("HOME", t.TempDir()) // no key files of the machine's user
	known := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(known, []byte(remotetest.KnownHostsLine(proxy.Addr, s.HostKeys[0])), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := sftpfs.Config{Addr: proxy.Addr, User: s.User, KnownHosts: []string{known}, Timeout: reconnectTimeout}

	if _, err := sftpfs.Dial(cfg, s.Root); err == nil || !strings.Contains(err.Error(), "no key to log in with") {
		t.Fatalf("Dial with no agent running: %v, want no key to log in with", err)
	}

	first := startAgent(t, sock, s.KeyFile)
	fsys, err := sftpfs.Dial(cfg, s.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if n := first.open(); n != 0 {
		t.Errorf("%d connections to the agent left open after the login", n)
	}

	// The agent restarts; the connection is lost.
	first.stop()
	os.Remove(sock)
	second := startAgent(t, sock, s.KeyFile)
	proxy.Cut()
	proxy.Heal()
	if _, err := fsys.Stat("."); err != nil {
		t.Fatalf("after the agent restarted and the connection was lost: %v", err)
	}
	if n := second.open(); n != 0 {
		t.Errorf("%d connections to the agent left open after logging in again", n)
	}

	// The agent is gone, and so is the connection.
	second.stop()
	os.Remove(sock)
	proxy.Cut()
	proxy.Heal()
	if _, err := fsys.Stat("."); err == nil || !strings.Contains(err.Error(), "no key to log in with") {
		t.Fatalf("after the agent stopped: %v, want no key to log in with", err)
	}
}
