package serve

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ShutdownTimeout is how long Run lets the requests in flight finish once
// its context is done.
const ShutdownTimeout = 30 * time.Second

// Server settings for Run.
type Server struct {
	Addr            string // HOST:PORT to listen on
	TLSCert, TLSKey string // PEM files; HTTPS when set
	Handler         http.Handler
	ShutdownTimeout time.Duration    // 0: ShutdownTimeout
	Ready           func(url string) // called once listening, with the server's URL
	// LoopbackOnly makes Run refuse to serve when the address it bound is
	// not a loopback address (a check after the name in Addr is resolved).
	LoopbackOnly bool
}

// Run listens on s.Addr and serves s.Handler until ctx is done, then stops
// accepting connections and waits for the requests in flight to finish
// (up to s.ShutdownTimeout). A certificate that cannot be loaded is an
// error before anything listens.
func (s Server) Run(ctx context.Context) error {
	srv := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
	scheme := "http"
	if s.TLSCert != "" || s.TLSKey != "" {
		cert, err := tls.LoadX509KeyPair(s.TLSCert, s.TLSKey)
		if err != nil {
			return fmt.Errorf("TLS: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return err
	}
	if s.LoopbackOnly {
		if err := checkLoopback(ln.Addr()); err != nil {
			ln.Close()
			return fmt.Errorf("%s: %w", s.Addr, err)
		}
	}
	done := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			done <- srv.ServeTLS(ln, "", "")
		} else {
			done <- srv.Serve(ln)
		}
	}()
	if s.Ready != nil {
		s.Ready(fmt.Sprintf("%s://%s/", scheme, ln.Addr()))
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	timeout := s.ShutdownTimeout
	if timeout == 0 {
		timeout = ShutdownTimeout
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	<-done
	return err
}

// checkLoopback returns an error unless a is a loopback TCP address.
func checkLoopback(a net.Addr) error {
	if t, ok := a.(*net.TCPAddr); ok && t.IP.IsLoopback() {
		return nil
	}
	return fmt.Errorf("bound %s, which is not a loopback address", a)
}
