package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// start runs s on a random loopback port and returns its URL and the
// channel Run's error comes on.
func start(t *testing.T, ctx context.Context, s Server) (string, chan error) {
	t.Helper()
	s.Addr = "127.0.0.1:0"
	ready := make(chan string, 1)
	s.Ready = func(url string) { ready <- url }
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	select {
	case url := <-ready:
		return url, done
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return "", nil
}

// TestGracefulShutdown checks that a request in flight when the context
// ends still gets its whole response.
func TestGracefulShutdown(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release // until the server has stopped listening
		io.WriteString(w, "finished")
	})
	ctx, cancel := context.WithCancel(context.Background())
	url, done := start(t, ctx, Server{Handler: h})
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		got <- string(data)
	}()
	<-started
	cancel()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		runtime.Gosched()
	}
	close(release)
	if s := <-got; s != "finished" {
		t.Errorf("the request in flight got %q", s)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)

	if err := (Server{Addr: "127.0.0.1:0", TLSCert: certFile, TLSKey: certFile}).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "TLS") {
		t.Errorf("Run with a bad key: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "over TLS") })
	url, done := start(t, ctx, Server{Handler: h, TLSCert: certFile, TLSKey: keyFile})
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("URL %s", url)
	}
	pool := x509.NewCertPool()
	cert, _ := x509.ParseCertificate(der)
	pool.AddCert(cert)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(data) != "over TLS" {
		t.Errorf("got %q", data)
	}
	client.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestHeaderLimit checks that headers beyond MaxHeaderBytes are refused.
func TestHeaderLimit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	url, done := start(t, ctx, Server{Handler: h})
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("X-Big", strings.Repeat("x", 2*MaxHeaderBytes))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("%d KiB of headers: %s, want 431", 2*MaxHeaderBytes>>10, resp.Status)
	}
	http.DefaultClient.CloseIdleConnections()
	cancel()
	<-done
}

// TestLoopbackOnly checks the test Run makes of the address it bound
// (tests bind nothing but 127.0.0.1, so it is checked on addresses made
// up).
func TestLoopbackOnly(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		ok   bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 1}, true},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 1}, false},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 1}, false},
		{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1}, false},
		{&net.UnixAddr{Name: "x", Net: "unix"}, false},
	} {
		if err := checkLoopback(c.addr); (err == nil) != c.ok {
			t.Errorf("checkLoopback(%v) = %v", c.addr, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, done := start(t, ctx, Server{Handler: http.NotFoundHandler(), LoopbackOnly: true})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run on 127.0.0.1 with LoopbackOnly: %v", err)
	}
}
