package sftpfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Backoff between reconnections that fail: the first waits firstBackoff,
// each next one twice as long, up to maxBackoff.
const (
	firstBackoff = 250 * time.Millisecond
	maxBackoff   = 8 * time.Second
)

// A session is one SSH connection and the SFTP client over it.
type session struct {
	conn   *ssh.Client
	client *sftp.Client
	done   chan struct{} // closed once the connection is gone
	once   sync.Once
}

// startSFTP starts the SFTP subsystem on s.conn, as sftp.NewClient does,
// over a stream whose failed writes mark s gone at once: a request that
// could not be sent was lost with the connection, whether or not the
// connection has noticed yet.
func (s *session) startSFTP() error {
	ss, err := s.conn.NewSession()
	if err != nil {
		return err
	}
	w, err := ss.StdinPipe()
	if err != nil {
		return err
	}
	r, err := ss.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := ss.StderrPipe()
	if err != nil {
		return err
	}
	if err := ss.RequestSubsystem("sftp"); err != nil {
		return err
	}
	go io.Copy(io.Discard, stderr) // until the connection closes
	s.client, err = sftp.NewClientPipe(r, &stream{WriteCloser: w, s: s})
	return err
}

// stream is the writing side of an SFTP session.
type stream struct {
	io.WriteCloser
	s *session
}

func (w *stream) Write(p []byte) (int, error) {
	n, err := w.WriteCloser.Write(p)
	if err != nil {
		w.s.kill()
	}
	return n, err
}

// kill closes the connection, and marks it gone. (The SFTP client ends
// with it; its Close, which waits for the server, is not needed, and
// would wait for the lock of the write that may be calling kill.)
func (s *session) kill() {
	s.once.Do(func() {
		close(s.done)
		s.conn.Close()
	})
}

// dead reports whether the connection is gone.
func (s *session) dead() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// lost reports whether err, of a call on s, says the connection is gone
// (and then marks it so, for the next call to make a new one).
func (s *session) lost(err error) bool {
	if errors.Is(err, sftp.ErrSSHFxConnectionLost) {
		s.kill()
		return true
	}
	return err != nil && s.dead()
}

// A redial is a reconnection under way, which the calls that need the
// connection meanwhile wait for.
type redial struct {
	done chan struct{}
	s    *session
	err  error
}

// errorf returns an error about the server: "sftp: user@host:port: ...".
func (f *Fs) errorf(format string, args ...any) error {
	return fmt.Errorf("sftp: %s@%s: "+format, append([]any{f.cfg.User, f.cfg.Addr}, args...)...)
}

// dial connects to the server, logs in, starts SFTP and checks the root,
// all within the timeout; Close cuts it short.
func (f *Fs) dial() (*session, error) {
	d := net.Dialer{Timeout: f.cfg.Timeout}
	nc, err := d.DialContext(f.ctx, "tcp", f.cfg.Addr)
	if err != nil {
		return nil, f.errorf("%w", err)
	}
	nc.SetDeadline(time.Now().Add(f.cfg.Timeout))
	stop := context.AfterFunc(f.ctx, func() { nc.Close() })
	fail := func(err error) (*session, error) {
		stop()
		nc.Close()
		return nil, err
	}
	login := *f.login
	auth, loggedIn, err := f.keys.login(f.cfg.Timeout)
	if err != nil {
		return fail(err)
	}
	login.Auth = auth
	c, chans, reqs, err := ssh.NewClientConn(nc, f.cfg.Addr, &login)
	loggedIn()
	if err != nil {
		return fail(f.errorf("%w", explainHostKey(err)))
	}
	s := &session{conn: ssh.NewClient(c, chans, reqs), done: make(chan struct{})}
	if err := s.startSFTP(); err != nil {
		return fail(f.errorf("starting SFTP: %w", err))
	}
	info, err := s.client.Stat(f.root)
	if err == nil && !info.IsDir() {
		err = syscall.ENOTDIR
	}
	if err != nil {
		s.kill()
		return fail(f.errorf("%s: %w", f.root, err))
	}
	nc.SetDeadline(time.Time{})
	if !stop() {
		s.kill()
		return nil, f.errorf("%w", fs.ErrClosed)
	}
	return s, nil
}

// adopt makes s the connection, and starts what watches it; f.mu is held.
func (f *Fs) adopt(s *session) error {
	if f.closed {
		s.kill()
		return f.errorf("%w", fs.ErrClosed)
	}
	f.cur = s
	f.wg.Add(2)
	go func() {
		defer f.wg.Done()
		s.client.Wait()
		s.kill()
	}()
	go func() {
		defer f.wg.Done()
		f.keepAlive(s)
	}()
	return nil
}

// keepAlive closes s when the server leaves a keep-alive unanswered for
// the timeout, so that calls waiting on it fail (and the next call
// reconnects).
func (f *Fs) keepAlive(s *session) {
	tick := time.NewTicker(f.cfg.Timeout / 3)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
		answered := make(chan struct{})
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			s.conn.SendRequest("keepalive@openssh.com", true, nil)
			close(answered)
		}()
		timer := time.NewTimer(f.cfg.Timeout)
		select {
		case <-answered:
		case <-timer.C:
			s.kill()
		case <-s.done:
		}
		timer.Stop()
	}
}

// session returns the connection to make a call on: the current one, or a
// new one when that is gone. One reconnection runs at a time, and the calls
// that need the connection meanwhile wait for it (the timeout bounds it);
// after one failed, calls fail at once with its error until the backoff
// has passed, so that a server that is down is not hammered.
func (f *Fs) session() (*session, error) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, f.errorf("%w", fs.ErrClosed)
	}
	if s := f.cur; !s.dead() {
		f.mu.Unlock()
		return s, nil
	}
	if r := f.redial; r != nil {
		f.mu.Unlock()
		<-r.done
		return r.s, r.err
	}
	if wait := time.Until(f.retryAt); wait > 0 {
		err := f.lastErr
		f.mu.Unlock()
		return nil, fmt.Errorf("connection lost, and reconnecting failed (next attempt in %v): %w", wait.Round(time.Millisecond), err)
	}
	r := &redial{done: make(chan struct{})}
	f.redial = r
	f.mu.Unlock()

	s, err := f.dial()
	f.mu.Lock()
	f.redial = nil
	if err == nil {
		err = f.adopt(s)
	}
	if err != nil {
		s = nil
		f.failures++
		f.retryAt = time.Now().Add(min(firstBackoff<<min(f.failures-1, 16), maxBackoff))
		f.lastErr = err
	} else {
		f.failures = 0
	}
	f.mu.Unlock()
	r.s, r.err = s, err
	close(r.done)
	return s, err
}

// call runs op on the connection. An op that only reads (idempotent)
// runs once more, on a new connection, when the connection was lost under
// it; others return the error.
func (f *Fs) call(idempotent bool, op func(*session) error) error {
	s, err := f.session()
	if err != nil {
		return err
	}
	err = op(s)
	if !idempotent || !s.lost(err) {
		return err
	}
	if s, err = f.session(); err != nil {
		return err
	}
	return op(s)
}
