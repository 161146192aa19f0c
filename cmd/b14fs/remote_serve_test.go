//go:build linux

package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
)

// TestRemoteServeLink serves S3 (SeaweedFS) and SFTP (sshd) through a
// proxy, and cuts the link: while it is down, requests get 503 Service
// Unavailable, never a 404 that would tell a client its file is gone;
// once it is back, they are answered again.
func TestRemoteServeLink(t *testing.T) {
	longtest.Skip(t, "starts SeaweedFS, sshd and b14fs serve")
	t.Run("s3", func(t *testing.T) {
		proxy, args := proxiedS3(t, "servelink")
		checkServeLink(t, proxy, args)
	})
	t.Run("sftp", func(t *testing.T) {
		proxy, args := proxiedSFTP(t)
		checkServeLink(t, proxy, args)
	})
}

// checkServeLink runs b14fs serve -w on the location args name, stores a
// file through it, and reads it while proxy cuts the link and heals it.
func checkServeLink(t *testing.T, proxy *remotetest.Proxy, args []string) {
	dir := t.TempDir()
	urlFile := filepath.Join(dir, "url")
	var stderr bytes.Buffer
	cmd := exec.Command("b14fs", append([]string{"serve", "-w", "-q", "--addr", "127.0.0.1:0", "--url-file", urlFile}, args...)...)
	cmd.Env = remoteEnv(t)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-ended:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Error("b14fs serve did not end on SIGINT")
		}
		if t.Failed() {
			t.Logf("b14fs serve:\n%s", stderr.String())
		}
	}()
	var base string
	for deadline := time.Now().Add(20 * time.Second); base == ""; time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(urlFile); err == nil && bytes.HasSuffix(data, []byte("\n")) {
			base = strings.TrimSpace(string(data))
		}
		if time.Now().After(deadline) {
			t.Fatalf("b14fs serve: no URL within 20 s\n%s", stderr.String())
		}
	}
	request := func(method, name string, body []byte) (int, []byte) {
		req, err := http.NewRequest(method, strings.TrimSuffix(base, "/")+"/"+name, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Depth", "0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, name, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	content := remotetest.RandomBytes(100_000, 3)
	if code, body := request("PUT", "f.bin", content); code != http.StatusCreated && code != http.StatusNoContent {
		t.Fatalf("PUT = %d %q", code, body)
	}
	if code, body := request("GET", "f.bin", nil); code != http.StatusOK || !bytes.Equal(body, content) {
		t.Fatalf("GET = %d, %d bytes", code, len(body))
	}

	proxy.Cut()
	for _, method := range []string{"GET", "PROPFIND"} {
		start := time.Now()
		code, body := request(method, "f.bin", nil)
		if code != http.StatusServiceUnavailable {
			t.Errorf("%s over a cut link = %d %q, want 503", method, code, body)
		}
		if took := time.Since(start); took > 3*linkTimeout {
			t.Errorf("%s over a cut link took %v", method, took)
		}
	}

	proxy.Heal()
	var code int
	var body []byte
	for deadline := time.Now().Add(2*linkTimeout + 5*time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, body = request("GET", "f.bin", nil); code == http.StatusOK {
			break
		}
	}
	if code != http.StatusOK || !bytes.Equal(body, content) {
		t.Errorf("GET after the link is back = %d, %d bytes", code, len(body))
	}
}
