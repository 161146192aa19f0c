//go:build unix

package remotetest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A Proxy forwards TCP connections on a loopback port to a server, and can
// slow them down or cut them, as a failing network or a dying server
// would.
type Proxy struct {
	Addr   string // where it listens, 127.0.0.1:port
	target string
	l      net.Listener

	accepted atomic.Int64

	mu      sync.Mutex
	conns   []net.Conn
	cut     bool
	delay   time.Duration
	flights int64 // runs of data from clients, each after data from a server
	lastUp  bool  // the last data came from a client
}

// NewProxy starts a proxy to target, stopped when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: l.Addr().String(), target: target, l: l}
	t.Cleanup(func() { l.Close(); p.Cut() })
	go p.serve()
	return p
}

func (p *Proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go p.pipe(s, c, true)
		go p.pipe(c, s, false)
	}
}

// pipe copies from src to dst, each chunk the proxy's delay after it
// arrived: a link with that latency, whose bytes in flight (up to 8 MiB
// each way) do not wait for one another. up tells that src is the client.
func (p *Proxy) pipe(dst, src net.Conn, up bool) {
	type chunk struct {
		due  time.Time
		data []byte
	}
	chunks := make(chan chunk, 256)
	broken := make(chan struct{})  // closed when src fails: drop what is queued
	written := make(chan struct{}) // closed when the writer stops
	go func() {
		defer close(written)
		defer dst.Close()
		for c := range chunks {
			wait := time.NewTimer(time.Until(c.due))
			select {
			case <-wait.C:
			case <-broken:
				wait.Stop()
				return
			}
			if _, err := dst.Write(c.data); err != nil {
				src.Close()
				return
			}
		}
	}()
	defer func() { <-written }()
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			d := p.delay
			if up && !p.lastUp {
				p.flights++
			}
			p.lastUp = up
			p.mu.Unlock()
			select {
			case chunks <- chunk{time.Now().Add(d), buf[:n]}:
			case <-written:
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				src.Close()
				close(broken)
			}
			close(chunks)
			return
		}
	}
}

// SetDelay makes each chunk of data arrive d after it was sent, from now
// on (latency; a delay longer than a client's timeout stalls the link).
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// Cut closes every connection and refuses new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Heal lets new connections through again.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// Flights returns how many times data went from a client to the server
// after data came back from it: each round trip that a client waits for
// before it sends more counts once, however many requests it sends
// together. It counts over every connection, so a test counts the
// flights of one call by calling it before and after, on one connection,
// with a delay (SetDelay) that keeps the requests sent together apart from
// the answers.
func (p *Proxy) Flights() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.flights
}

// Accepted returns how many connections the proxy accepted, those it
// refused while cut included.
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// SilentServer listens on a loopback port, takes every connection and
// never answers, as a hung server would; it returns the address. It stops
// when the test ends.
func SilentServer(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open until the listener closes
		}
	}()
	return l.Addr().String()
}
