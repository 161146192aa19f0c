//go:build unix

// Package remotetest starts the servers the remote backends' tests run
// against, on loopback addresses only: an in-process S3 fake (gofakes3), a
// SeaweedFS server with its S3 gateway, and OpenSSH's sshd. A test whose
// server program is missing is skipped with a message saying what to
// install.
package remotetest

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/spf13/afero"
	"golang.org/x/crypto/ssh"
)

// ErrNotInstalled is wrapped by the error of a server that cannot start
// because its program is not there, or cannot run here; tests skip then.
var ErrNotInstalled = errors.New("not installed")

// Bucket is the bucket the S3 servers start with.
const Bucket = "b14fs"

// Access and secret keys the S3 servers are given; tests check that the
// secret never shows in an error.
const (
	AccessKey = "B14FSACCESSKEYEXAMPLE"
	SecretKey = "b14fs-secret-key-that-must-never-be-shown"
)

// FakeS3 starts an in-process S3 fake holding an empty Bucket and returns
// its endpoint (host:port, plain HTTP).
func FakeS3(t testing.TB) string {
	t.Helper()
	srv, err := startFake()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// startFake starts an in-process S3 fake holding an empty Bucket.
func startFake() (*httptest.Server, error) {
	backend := s3mem.New()
	if err := backend.CreateBucket(Bucket); err != nil {
		return nil, err
	}
	return httptest.NewServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()), nil
}

// Counter is an http.RoundTripper that counts the requests it carries, by
// method.
type Counter struct {
	Next http.RoundTripper
	gets atomic.Int64
	all  atomic.Int64
}

// RoundTrip counts req and carries it.
func (c *Counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.all.Add(1)
	if req.Method == http.MethodGet && req.Header.Get("Range") != "" {
		c.gets.Add(1)
	}
	return c.Next.RoundTrip(req)
}

// RangeGets returns how many ranged GETs it carried.
func (c *Counter) RangeGets() int64 { return c.gets.Load() }

// Requests returns how many requests it carried.
func (c *Counter) Requests() int64 { return c.all.Load() }

// freePorts returns n distinct TCP ports on 127.0.0.1 that were free a
// moment ago. It holds every port until it has them all: a port closed at
// once may come back from the next request.
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// WeedBinary returns the path of SeaweedFS's weed program: $B14FS_WEED
// (when set, and only if it exists), else /var/cache/b14fs/weed (where
// .ci/weed builds it) or weed on $PATH; "" when there is none.
func WeedBinary() string {
	if p := os.Getenv("B14FS_WEED"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		return p
	}
	if _, err := os.Stat("/var/cache/b14fs/weed"); err == nil {
		return "/var/cache/b14fs/weed"
	}
	p, _ := exec.LookPath("weed")
	return p
}

// A Server is a server process a test started.
type Server struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  *bytes.Buffer
}

// Kill kills the server and the processes it started (sshd's per-connection
// ones) at once, as a crash would.
func (s *Server) Kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}

// stopAtEnd kills srv when the test ends, showing its output if the test
// failed.
func stopAtEnd(t testing.TB, name string, srv *Server) {
	t.Cleanup(func() {
		srv.Kill()
		if t.Failed() {
			t.Logf("%s's output:\n%s", name, srv.log)
		}
	})
}

// OpenFiles returns how many files the server's processes have open, its
// own and those of the processes it started (sshd's for each connection,
// which hold its SFTP files), or 0 where /proc does not tell.
func (s *Server) OpenFiles() int {
	procs, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 {
			parent[pid], _ = strconv.Atoi(fields[1])
		}
	}
	n := 0
	for pid := range parent {
		for p := pid; p > 1; p = parent[p] {
			if p == s.cmd.Process.Pid {
				fds, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
				n += len(fds)
				break
			}
		}
	}
	return n
}

func startServer(cmd *exec.Cmd) (*Server, error) {
	s := &Server{cmd: cmd, done: make(chan struct{}), log: new(bytes.Buffer)}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(s.done) }()
	return s, nil
}

// Weed starts a SeaweedFS server (master, volume, filer and S3 gateway in
// one process, all on 127.0.0.1) in a temporary directory, creates Bucket,
// and returns the S3 endpoint and the server. It skips the test when weed
// is not there (.ci/weed builds it).
func Weed(t testing.TB) (endpoint string, srv *Server) {
	t.Helper()
	endpoint, srv, err := StartWeed(t.TempDir())
	if errors.Is(err, ErrNotInstalled) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, "weed", srv)
	return endpoint, srv
}

// StartWeed is Weed for a caller without a test, such as Shared: it keeps
// its data in dir, and the caller kills it. Its error wraps ErrNotInstalled
// when weed is not there.
func StartWeed(dir string) (endpoint string, srv *Server, err error) {
	bin := WeedBinary()
	if bin == "" {
		return "", nil, fmt.Errorf("SeaweedFS's weed %w: run .ci/weed, or set B14FS_WEED", ErrNotInstalled)
	}
	for try := range 3 {
		// Another process may take a port between freePorts and weed's
		// bind: new ports then, and a fresh directory for weed's state.
		tryDir := filepath.Join(dir, strconv.Itoa(try))
		if err := os.Mkdir(tryDir, 0o700); err != nil {
			return "", nil, err
		}
		endpoint, srv, err = startWeed(bin, tryDir)
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return endpoint, srv, err
}

// startWeed is one try of StartWeed, on ports free a moment ago.
func startWeed(bin, dir string) (endpoint string, srv *Server, err error) {
	free, err := freePorts(8)
	if err != nil {
		return "", nil, err
	}
	ports := make([]string, len(free))
	for i, port := range free {
		ports[i] = strconv.Itoa(port)
	}
	srv, err = startServer(exec.Command(bin, "server",
		"-dir", dir, "-ip", "127.0.0.1", "-ip.bind", "127.0.0.1",
		"-master.port", ports[0], "-master.port.grpc", ports[1],
		"-volume.port", ports[2], "-volume.port.grpc", ports[3],
		"-volume.max", "8", "-master.volumeSizeLimitMB", "256",
		"-filer", "-filer.port", ports[4], "-filer.port.grpc", ports[5],
		"-s3", "-s3.port", ports[6], "-s3.port.grpc", ports[7],
		"-s3.port.iceberg", "0", "-s3.port.lance", "0",
		// No usage reports: the tests reach loopback addresses only.
		"-master.telemetry=false", "-master.telemetry.url", "http://127.0.0.1:1/",
	))
	if err != nil {
		return "", nil, fmt.Errorf("starting weed: %w", err)
	}
	endpoint = "127.0.0.1:" + ports[6]
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodPut, "http://"+endpoint+"/"+Bucket, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict {
				return endpoint, srv, nil
			}
		}
		select {
		case <-srv.done:
			return "", nil, fmt.Errorf("weed exited:\n%s", srv.log)
		default:
		}
		if time.Now().After(deadline) {
			srv.Kill()
			return "", nil, fmt.Errorf("weed's S3 gateway did not answer within a minute (last: %v)", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// SSH is an sshd a test started, and what a client needs to reach it.
type SSH struct {
	*Server
	Addr       string // 127.0.0.1:port
	User       string
	KeyFile    string // the user's private key, OpenSSH format
	KnownHosts string // a known_hosts file holding the server's keys
	Root       string // a directory the user may write
	// HostKeys are the server's public host keys, in the order of
	// SSHOptions.HostKeyTypes.
	HostKeys []ssh.PublicKey
	// HostCA is the key of the certificate authority that signed the
	// server's host certificate (SSHOptions.HostCertificate), else nil.
	HostCA ssh.PublicKey

	bin, config string
}

// SSHOptions say how SSHDWith sets up its sshd.
type SSHOptions struct {
	// HostKeyTypes are the types of the server's host keys: "ed25519",
	// "ecdsa" (P-256) or "rsa" (2048 bits); empty means one ed25519 key.
	HostKeyTypes []string
	// HostCertificate gives the server a certificate for its first host
	// key, valid for 127.0.0.1 and signed by a certificate authority of
	// its own (SSH.HostCA).
	HostCertificate bool
}

// SSHD starts OpenSSH's sshd on a random loopback port, with a throwaway
// ed25519 host key and a user key of its own, serving SFTP. It skips the
// test when sshd is not installed, or when it cannot run as the user the
// tests run as (it needs root).
func SSHD(t testing.TB) *SSH { return SSHDWith(t, SSHOptions{}) }

// SSHDWith is SSHD with the host keys opts asks for.
func SSHDWith(t testing.TB, opts SSHOptions) *SSH {
	t.Helper()
	s, err := StartSSHDWith(t.TempDir(), opts)
	if errors.Is(err, ErrNotInstalled) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, "sshd", s.Server)
	return s
}

// StartSSHD is SSHD for a caller without a test, such as SharedSSHD: it
// keeps its keys, configuration and served directory (SSH.Root) in dir,
// and the caller kills it. Its error wraps ErrNotInstalled when sshd is not
// there or cannot log users in.
func StartSSHD(dir string) (*SSH, error) { return StartSSHDWith(dir, SSHOptions{}) }

// StartSSHDWith is StartSSHD with the host keys opts asks for.
func StartSSHDWith(dir string, opts SSHOptions) (*SSH, error) {
	bin, err := exec.LookPath("sshd")
	if err != nil {
		for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
			if _, err := os.Stat(p); err == nil {
				bin = p
			}
		}
	}
	if bin == "" {
		return nil, fmt.Errorf("sshd %w: install openssh-server", ErrNotInstalled)
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("sshd needs root to log users in: %w for this user", ErrNotInstalled)
	}
	// sshd checks that its privilege separation directory exists.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return nil, fmt.Errorf("sshd's /run/sshd: %w", err)
	}
	types := opts.HostKeyTypes
	if len(types) == 0 {
		types = []string{"ed25519"}
	}
	var hostKeys []ssh.PublicKey
	var hostKeyLines string
	for i, typ := range types {
		file := filepath.Join(dir, "host_key")
		if i > 0 {
			file = filepath.Join(dir, fmt.Sprintf("host_key_%d_%s", i, typ))
		}
		key, err := writeKey(file, typ)
		if err != nil {
			return nil, err
		}
		hostKeys = append(hostKeys, key)
		hostKeyLines += "HostKey " + file + "\n"
	}
	var hostCA ssh.PublicKey
	if opts.HostCertificate {
		cert := filepath.Join(dir, "host_key-cert.pub")
		if hostCA, err = writeHostCertificate(hostKeys[0], cert); err != nil {
			return nil, err
		}
		hostKeyLines += "HostCertificate " + cert + "\n"
	}
	userKey, err := writeKey(filepath.Join(dir, "user_key"), "ed25519")
	if err != nil {
		return nil, err
	}
	auth := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(auth, ssh.MarshalAuthorizedKey(userKey), 0o600); err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "files")
	if err := os.Mkdir(root, 0o755); err != nil {
		return nil, err
	}
	user := os.Getenv("USER")
	if user == "" {
		user = "root"
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	port := ports[0]
	config := filepath.Join(dir, "sshd_config")
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
%sAuthorizedKeysFile %s
PidFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowTcpForwarding no
X11Forwarding no
Subsystem sftp internal-sftp
LogLevel ERROR
`, port, hostKeyLines, auth, filepath.Join(dir, "sshd.pid"))
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	s := &SSH{
		Addr: fmt.Sprintf("127.0.0.1:%d", port), User: user, KeyFile: filepath.Join(dir, "user_key"),
		KnownHosts: filepath.Join(dir, "known_hosts"), Root: root, HostKeys: hostKeys, HostCA: hostCA,
		bin: bin, config: config,
	}
	var known string
	for _, key := range hostKeys {
		known += KnownHostsLine(s.Addr, key)
	}
	if err := os.WriteFile(s.KnownHosts, []byte(known), 0o600); err != nil {
		return nil, err
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// KnownHostsLine returns the known_hosts line that gives key as the key
// of the server at addr (127.0.0.1:port).
func KnownHostsLine(addr string, key ssh.PublicKey) string {
	_, port, _ := net.SplitHostPort(addr)
	return fmt.Sprintf("[127.0.0.1]:%s %s", port, ssh.MarshalAuthorizedKey(key))
}

// Restart starts the server again, on the same port with the same keys,
// after Kill, stopping it when the test ends. It waits until the server
// listens.
func (s *SSH) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, "sshd", s.Server)
}

// start starts the server and waits until it listens.
func (s *SSH) start() error {
	srv, err := startServer(exec.Command(s.bin, "-D", "-e", "-f", s.config))
	if err != nil {
		return fmt.Errorf("starting sshd: %w", err)
	}
	s.Server = srv
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", s.Addr)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-srv.done:
			return fmt.Errorf("sshd exited:\n%s", srv.log)
		default:
		}
		if time.Now().After(deadline) {
			srv.Kill()
			return fmt.Errorf("sshd did not listen on %s: %v\n%s", s.Addr, err, srv.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Crash kills the server and the processes serving its connections at
// once, as the machine going down would: sshd's per-connection processes
// run in sessions of their own, which Kill leaves running. Restart starts
// the server again.
func (s *SSH) Crash() {
	for _, pid := range descendants(s.cmd.Process.Pid) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	s.Kill()
}

// HangConnections stops the processes serving the server's connections
// (SIGSTOP), as a server that stops answering or a network that drops
// every packet would, while the server still takes new connections. They
// are killed when the test ends.
func (s *SSH) HangConnections(t testing.TB) {
	pids := descendants(s.cmd.Process.Pid)
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
}

// descendants returns the processes below pid, from /proc.
func descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil {
			children[ppid] = append(children[ppid], child)
		}
	}
	var all []int
	for todo := children[pid]; len(todo) > 0; {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		all = append(all, p)
	}
	return all
}

// writeHostCertificate writes to path a host certificate for key, valid
// for 127.0.0.1, and returns the key of the new authority that signed it.
func writeHostCertificate(key ssh.PublicKey, path string) (ssh.PublicKey, error) {
	_, caKey, err := ed25519.GenerateKey(crand.Reader)
	if err != nil {
		return nil, err
	}
	ca, err := ssh.NewSignerFromKey(caKey)
	if err != nil {
		return nil, err
	}
	cert := &ssh.Certificate{
		Key: key, Serial: 1, CertType: ssh.HostCert, KeyId: "b14fs test host",
		ValidPrincipals: []string{"127.0.0.1"}, ValidBefore: ssh.CertTimeInfinity,
	}
	if err := cert.SignCert(crand.Reader, ca); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, ssh.MarshalAuthorizedKey(cert), 0o600); err != nil {
		return nil, err
	}
	return ca.PublicKey(), nil
}

// writeKey writes a new private key of type typ ("ed25519", "ecdsa",
// "rsa") to path and returns its public key.
func writeKey(path, typ string) (ssh.PublicKey, error) {
	priv, err := newKey(typ)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, err
	}
	return ssh.NewPublicKey(priv.Public())
}

// RandomBytes returns n bytes that are the same for the same seed, and
// others for another.
func RandomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 15))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// Race runs try(0) to try(n-1) at once and returns, in no order, the i
// whose try reported success: the winners of a race such as creating one
// name exclusively.
func Race(n int, try func(i int) bool) []int {
	won := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if try(i) {
				won <- i
			}
		})
	}
	wg.Wait()
	close(won)
	var winners []int
	for i := range won {
		winners = append(winners, i)
	}
	return winners
}

// NewKey returns a new private key of type typ: "ed25519", "ecdsa" (P-256)
// or "rsa" (2048 bits).
func NewKey(t testing.TB, typ string) crypto.Signer {
	t.Helper()
	priv, err := newKey(typ)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

func newKey(typ string) (crypto.Signer, error) {
	switch typ {
	case "ed25519":
		_, priv, err := ed25519.GenerateKey(crand.Reader)
		return priv, err
	case "ecdsa":
		return ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	case "rsa":
		return rsa.GenerateKey(crand.Reader, 2048)
	}
	return nil, fmt.Errorf("unknown key type %q", typ)
}

// Tree is the files the backends' fstest.TestFS runs write: path to
// content, in directories several levels deep, one file empty.
var Tree = map[string]string{
	"a.txt":             "hello, world\n",
	"empty":             "",
	"dir/b.bin":         strings.Repeat("0123456789", 100),
	"dir/sub/c":         "x",
	"dir/sub/deeper/d7": "1234567",
}

// WriteTree writes Tree into fsys and returns its file names.
func WriteTree(t testing.TB, fsys afero.Fs) []string {
	t.Helper()
	var names []string
	for name, content := range Tree {
		if err := fsys.MkdirAll(path.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := afero.WriteFile(fsys, name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}
