package rpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// remoteCodec is a codec served by a plugin process.
type remoteCodec struct {
	name string
	opts core.Options
	proc *process
}

var (
	_ core.OptionLister = (*remoteCodec)(nil)
	_ core.Suffixer     = (*remoteCodec)(nil)
)

func (c *remoteCodec) Name() string { return c.name }

// WithOptions asks the plugin whether it takes opts, so that a bad option is
// reported when a chain is built, not when data flows.
func (c *remoteCodec) WithOptions(opts core.Options) (core.Codec, error) {
	cc, err := c.proc.codec()
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.proc.host.callContext()
	defer cancel()
	reply, err := cc.Check(ctx, &pb.CheckRequest{Options: wireOptions(opts)})
	if err != nil {
		return nil, c.proc.callError(ctx, c.proc.host.timeout, err)
	}
	if e := reply.GetError(); e != nil {
		return nil, c.fromWire(e, opts, -1)
	}
	return &remoteCodec{name: c.name, opts: opts, proc: c.proc}, nil
}

// Suffix returns the suffix the plugin suggests, or "" when it cannot be
// started.
func (c *remoteCodec) Suffix() string {
	if _, err := c.proc.codec(); err != nil {
		return ""
	}
	return c.proc.suffix
}

// OptionDocs lists the options the plugin's codec takes, as the plugin lists
// them (cleaned), or none when it cannot be started or lists none.
func (c *remoteCodec) OptionDocs() []core.OptionDoc {
	if _, err := c.proc.codec(); err != nil {
		return nil
	}
	docs, _ := c.proc.options()
	return docs
}

func (c *remoteCodec) NewEncodeReader(r io.Reader) io.ReadCloser { return c.pull(r, false) }
func (c *remoteCodec) NewDecodeReader(r io.Reader) io.ReadCloser { return c.pull(r, true) }

func (c *remoteCodec) NewEncodeWriter(w io.Writer) io.WriteCloser { return c.push(w, false) }
func (c *remoteCodec) NewDecodeWriter(w io.Writer) io.WriteCloser { return c.push(w, true) }

// Why the host ends a stream call early (besides a timeout and a source's
// error).
var (
	errClosed    = errors.New("rpc: stream closed")
	errAbandoned = errors.New("rpc: stream abandoned")
	errEnded     = errors.New("rpc: stream ended")
)

// sourceError is the error of a pull stream's source, which ends the call.
type sourceError struct{ err error }

func (e sourceError) Error() string { return e.err.Error() }

// stream is one Stream call on a plugin, watched for stalls. Its data flows
// over conn, if the plugin offers a data connection, or else in frames on
// the call.
type stream struct {
	codec      *remoteCodec
	st         pb.Codec_StreamClient
	conn       *net.UnixConn // the data connection, or nil
	ctx        context.Context
	cancel     context.CancelCauseFunc
	dog        *watchdog
	sent       atomic.Int64 // input bytes sent, or being sent, to the plugin
	closedSend atomic.Bool  // the host has told the plugin the input is complete
}

// open starts a stream call on the plugin, with a data connection if it
// offers one.
func (c *remoteCodec) open(decode bool) (*stream, error) {
	cc, err := c.proc.codec()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &stream{codec: c, ctx: ctx, cancel: cancel}
	limit := c.proc.host.timeout
	s.dog = newWatchdog(limit, 0, func() { cancel(timeoutError{limit}) })
	start := &pb.Start{Decode: decode, Options: wireOptions(c.opts)}
	if addr := c.proc.dataAddress(); addr != "" {
		var tok dataToken
		if s.conn, tok, err = dialData(ctx, addr); err != nil {
			err = s.dataError(err)
			s.end(errEnded)
			return nil, err
		}
		start.DataToken = tok[:]
		context.AfterFunc(ctx, func() { s.conn.Close() }) // the end of the call ends the connection
	}
	st, err := cc.Stream(ctx)
	if err == nil {
		err = st.Send(&pb.Frame{Kind: &pb.Frame_Start{Start: start}})
	}
	if err != nil {
		err = s.callError(err)
		s.end(errEnded)
		return nil, err
	}
	s.st = st
	return s, nil
}

// end ends the call and its watch.
func (s *stream) end(cause error) {
	s.dog.stop()
	s.cancel(cause)
}

// callError turns an error of the call into the error to report: what ended
// the call, if the host did, or else the error naming the plugin.
func (s *stream) callError(err error) error {
	var se sourceError
	switch cause := context.Cause(s.ctx); {
	case cause == nil:
	case errors.As(cause, &se):
		return se.err
	case errors.As(cause, new(timeoutError)):
		return &pluginError{s.codec.proc.path, cause}
	case cause != context.Canceled:
		return cause
	}
	return s.codec.proc.wrap(err)
}

// dataError is callError for an error of the data connection: when the
// plugin's process has ended, the error says how.
func (s *stream) dataError(err error) error {
	if context.Cause(s.ctx) == nil {
		if exit := s.codec.proc.exit(exitWait); exit != nil {
			err = exit
		}
	}
	return s.callError(&pluginError{s.codec.proc.path, err})
}

// frame interprets a frame from the plugin: its data, or the error that
// ends the stream. Data comes in frames only on a stream without a data
// connection.
func (s *stream) frame(f *pb.Frame) ([]byte, error) {
	switch k := f.GetKind().(type) {
	case *pb.Frame_Data:
		if s.conn != nil {
			return nil, &pluginError{s.codec.proc.path, errors.New("sent a data frame on a stream with a data connection")}
		}
		if len(k.Data) > 0 {
			s.dog.progress()
		}
		return k.Data, nil
	case *pb.Frame_Error:
		return nil, s.codec.fromWire(k.Error, s.codec.opts, s.sent.Load())
	}
	return nil, &pluginError{s.codec.proc.path, errors.New("sent a frame that is neither data nor an error")}
}

// eof checks the end of the plugin's output: the plugin may end only once
// the host has ended the input.
func (s *stream) eof() error {
	if !s.closedSend.Load() {
		return &pluginError{s.codec.proc.path, errors.New("ended the stream before the end of its input")}
	}
	return io.EOF
}

// next returns the next piece of the plugin's output, read into buf over a
// data connection, or the data of the next frame; at the end of the output
// it returns io.EOF, or the error that ended the stream. A piece may be
// empty.
func (s *stream) next(buf []byte) ([]byte, error) {
	if s.conn == nil {
		return s.recv()
	}
	n, err := s.conn.Read(buf)
	if n > 0 {
		s.dog.progress()
		return buf[:n], nil
	}
	if err == nil {
		return nil, nil
	}
	if context.Cause(s.ctx) != nil {
		return nil, s.callError(err) // the host ended the call
	}
	// The output is over: the call tells why (with a data connection, any
	// frame ends the stream).
	_, err = s.recv()
	return nil, err
}

// recv receives a frame and returns its data, or the end of the call.
func (s *stream) recv() ([]byte, error) {
	f, err := s.st.Recv()
	switch {
	case err == io.EOF:
		return nil, s.eof()
	case err != nil:
		return nil, s.callError(err)
	}
	return s.frame(f)
}

// send sends input to the plugin, in frames of at most frameSize bytes or
// over the data connection in pieces of at most pieceSize, each a sign of
// progress.
func (s *stream) send(data []byte) error {
	s.sent.Add(int64(len(data)))
	limit := frameSize
	if s.conn != nil {
		limit = pieceSize
	}
	for len(data) > 0 {
		piece := data[:min(len(data), limit)]
		var err error
		if s.conn != nil {
			_, err = s.conn.Write(piece)
		} else {
			err = s.st.Send(&pb.Frame{Kind: &pb.Frame_Data{Data: piece}})
		}
		if err != nil {
			return err
		}
		s.dog.progress()
		data = data[len(piece):]
	}
	return nil
}

// closeSend tells the plugin the input is complete.
func (s *stream) closeSend() {
	s.closedSend.Store(true)
	if s.conn != nil {
		s.conn.CloseWrite()
		return
	}
	s.st.CloseSend()
}

// pull returns a reader of r's bytes run through the plugin. A goroutine
// feeds r to the plugin while Read takes what comes back. Close ends the call
// early (the reader is an io.ReadCloser for that) and returns once the
// goroutine has let go of r; dropping the reader ends the call too.
func (c *remoteCodec) pull(r io.Reader, decode bool) io.ReadCloser {
	s, err := c.open(decode)
	if err != nil {
		return &pullStream{err: err, fed: closed()}
	}
	p := &pullStream{stream: s, fed: make(chan struct{})}
	p.dog.enter() // the caller, until it calls Read
	go p.feed(r)
	h := &pullHandle{p}
	runtime.AddCleanup(h, (*pullStream).abandon, p)
	return h
}

// pullHandle is what the caller of pull holds: when it is dropped, the call
// ends, and the goroutine feeding it with it (once its source returns).
type pullHandle struct{ p *pullStream }

func (h *pullHandle) Read(b []byte) (int, error) {
	n, err := h.p.Read(b)
	runtime.KeepAlive(h)
	return n, err
}

func (h *pullHandle) Close() error {
	err := h.p.Close()
	runtime.KeepAlive(h)
	return err
}

// WriteTo writes the stream's output to w as it comes, sparing io.Copy's
// buffer and a copy into it.
func (h *pullHandle) WriteTo(w io.Writer) (int64, error) {
	n, err := h.p.writeTo(w)
	runtime.KeepAlive(h)
	return n, err
}

// pullStream reads a plugin's output while a goroutine feeds it input.
type pullStream struct {
	*stream
	fed     chan struct{}    // closed when feed returns: it touches its source no more
	srcErr  error            // the source's error, set by feed before it returns
	pending []byte           // output received and not yet read
	buf     *[pieceSize]byte // what a data connection is read into for small reads, from pieces
	err     error
}

// feed sends r's bytes to the plugin until r ends or fails, or the call
// ends, and then closes p.fed.
func (p *pullStream) feed(r io.Reader) {
	defer close(p.fed)
	if m, ok := r.(inMemory); ok {
		p.feedFrom(m)
		return
	}
	buf := make([]byte, frameSize)
	for {
		p.dog.enter()
		n, err := r.Read(buf)
		p.dog.leave()
		if n > 0 && p.send(buf[:n]) != nil {
			return // the call ended; Read tells why
		}
		if err == io.EOF {
			p.closeSend()
			return
		}
		if err != nil {
			p.srcErr = err
			p.cancel(sourceError{err})
			return
		}
	}
}

// inMemory is a source that holds its bytes in memory, such as a
// *bytes.Reader, *strings.Reader or *bytes.Buffer: its WriteTo hands them
// over without a copy.
type inMemory interface {
	io.WriterTo
	Len() int
}

// feedFrom feeds the bytes of m to the plugin straight from m's memory.
func (p *pullStream) feedFrom(m inMemory) {
	var sendErr error
	p.dog.enter()
	_, err := m.WriteTo(writerFunc(func(b []byte) error {
		p.dog.leave()
		defer p.dog.enter()
		sendErr = p.send(b)
		return sendErr
	}))
	p.dog.leave()
	switch {
	case sendErr != nil:
		// The call ended; Read tells why.
	case err != nil:
		p.srcErr = err
		p.cancel(sourceError{err})
	default:
		p.closeSend()
	}
}

func (p *pullStream) Read(b []byte) (int, error) {
	if len(p.pending) == 0 && p.err == nil {
		p.dog.leave() // the caller waits on the plugin
		n := p.receive(b)
		p.dog.enter()
		if n > 0 {
			return n, nil
		}
	}
	if len(p.pending) == 0 {
		return 0, p.err
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}

// writeTo writes the output to w as Read would return it, until its end.
func (p *pullStream) writeTo(w io.Writer) (int64, error) {
	var n int64
	for {
		if len(p.pending) == 0 && p.err == nil {
			p.dog.leave() // the caller waits on the plugin
			p.receive(nil)
			p.dog.enter()
		}
		if len(p.pending) == 0 {
			if p.err == io.EOF {
				return n, nil
			}
			return n, p.err
		}
		m, err := w.Write(p.pending)
		n += int64(m)
		p.pending = p.pending[m:]
		if err != nil {
			return n, err
		}
	}
}

// receive waits for output or the end of the stream: it reads output over a
// data connection straight into b, returning how much, if b is large, and
// else into p.pending, as it does frames.
func (p *pullStream) receive(b []byte) int {
	direct := p.conn != nil && len(b) >= minDirectRead
	if p.conn != nil && !direct && p.buf == nil {
		p.buf = pieces.Get().(*[pieceSize]byte)
	}
	for len(p.pending) == 0 && p.err == nil {
		var buf []byte
		if p.buf != nil {
			buf = p.buf[:]
		}
		if direct {
			buf = b
		}
		data, err := p.next(buf)
		switch {
		case err != nil:
			p.fail(err)
		case direct:
			return len(data)
		default:
			p.pending = data
		}
	}
	return 0
}

// minDirectRead is the smallest read that a pull stream's data connection
// reads straight into; smaller ones (such as io.Copy's) go through a buffer
// of pieceSize, to spare system calls.
const minDirectRead = 64 << 10

// fail ends the stream with err, which Read returns from then on.
//
// An error of the data, from the plugin, gives way to an error of the
// source that the feeding goroutine meets before it stops: what the plugin
// made of the bytes before a bad one is no surer than the bad one (a
// chain's outer stage found it), and the source's error is what a stage in
// the process reports too, whichever of the two reaches the host first.
// So it waits for that goroutine, which ends with the call but for a Read
// of the source in progress.
func (p *pullStream) fail(err error) {
	if p.stream != nil {
		p.end(errEnded)
		if errors.Is(err, core.ErrInvalidData) {
			<-p.fed
			if p.srcErr != nil {
				err = p.srcErr
			}
		}
	}
	p.err = err
	if p.buf != nil && len(p.pending) == 0 {
		pieces.Put(p.buf)
		p.buf = nil
	}
}

// Close ends the call, and so any wait of the feeding goroutine on the
// plugin, and returns once that goroutine touches the source no more: the
// caller may then close or reuse the source. Like any reader that wraps
// another, it cannot cut short a Read of the source in progress, and waits
// for it to return. Read fails with core.ErrClosed from then on.
func (p *pullStream) Close() error {
	p.pending = nil
	p.fail(core.ErrClosed)
	<-p.fed
	return nil
}

// abandon ends the call of a stream its caller dropped. Being a cleanup, it
// must not block: the feeding goroutine ends on its own, once its pending
// read of the source returns.
func (p *pullStream) abandon() { p.end(errAbandoned) }

// push returns a writer that sends what is written to the plugin, while a
// goroutine writes what comes back into w. Dropping the writer without
// closing it ends the call.
func (c *remoteCodec) push(w io.Writer, decode bool) io.WriteCloser {
	s, err := c.open(decode)
	if err != nil {
		return &pushStream{err: err, done: closed()}
	}
	p := &pushStream{stream: s, done: make(chan struct{})}
	p.dog.enter() // the caller, until it calls Write or Close
	if p.conn != nil {
		input := writers.Get().(*bufio.Writer)
		input.Reset(writerFunc(p.sendInput))
		p.input = input
	} else {
		p.input = &frameWriter{send: p.sendInput}
	}
	go p.drain(w)
	h := &pushHandle{p}
	runtime.AddCleanup(h, (*pushStream).abandon, p)
	return h
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// pushHandle is what the caller of push holds: when it is dropped, the call
// ends, and with it the goroutine draining it.
type pushHandle struct{ p *pushStream }

func (h *pushHandle) Write(b []byte) (int, error) {
	n, err := h.p.Write(b)
	runtime.KeepAlive(h)
	return n, err
}

func (h *pushHandle) Close() error {
	err := h.p.Close()
	runtime.KeepAlive(h)
	return err
}

// pushStream sends writes to a plugin while a goroutine drains its output.
type pushStream struct {
	*stream
	done   chan struct{} // closed when drain returns, after setting err
	input  flushWriter   // gathers small writes
	once   sync.Once
	closed bool // Close was called: Write fails with core.ErrClosed
	err    error
}

func (p *pushStream) drain(w io.Writer) {
	defer close(p.done)
	var buf []byte
	if p.conn != nil {
		piece := pieces.Get().(*[pieceSize]byte)
		defer pieces.Put(piece)
		buf = piece[:]
	}
	for {
		data, err := p.next(buf)
		if err == nil && len(data) > 0 {
			p.dog.enter()
			_, err = w.Write(data)
			p.dog.leave()
		}
		if err != nil {
			if err != io.EOF {
				p.err = err
			}
			p.end(errEnded)
			return
		}
	}
}

// Write queues b for the plugin, sending it in pieces of frameSize bytes:
// small writes are gathered, and the last partial piece goes out on Close.
func (p *pushStream) Write(b []byte) (int, error) {
	if p.closed {
		return 0, core.ErrClosed
	}
	select {
	case <-p.done:
		return 0, p.result()
	default:
	}
	p.dog.leave() // the caller waits on the plugin
	defer p.dog.enter()
	return p.input.Write(b)
}

// flushWriter is a writer that gathers writes until Flush.
type flushWriter interface {
	io.Writer
	Flush() error
}

// writerFunc is a writer that writes all of each piece with a function.
type writerFunc func([]byte) error

func (f writerFunc) Write(b []byte) (int, error) {
	if err := f(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// sendInput sends a piece of input; once the call has ended, it returns its
// outcome.
func (p *pushStream) sendInput(b []byte) error {
	if err := p.send(b); err != nil {
		<-p.done
		return p.result()
	}
	return nil
}

// result is the stream's outcome once drain has returned.
func (p *pushStream) result() error {
	if p.err != nil {
		return p.err
	}
	return io.ErrClosedPipe
}

// Close tells the plugin the input is complete, waits for the rest of its
// output and returns the stream's error, if any. It returns once the
// goroutine writing into the underlying writer has ended, and does not close
// that writer.
func (p *pushStream) Close() error {
	p.closed = true
	p.once.Do(func() {
		if p.stream == nil {
			return
		}
		p.dog.leave() // the caller waits on the plugin from now on
		if p.input.Flush() == nil {
			p.closeSend()
		}
	})
	<-p.done
	if p.stream != nil {
		p.end(errClosed)
	}
	if w, ok := p.input.(*bufio.Writer); ok {
		w.Reset(nil)
		writers.Put(w)
		p.input = nil
	}
	return p.err
}

// abandon ends the call of a stream its caller dropped.
func (p *pushStream) abandon() { p.end(errAbandoned) }

// Start starts the plugin that serves c, a codec of a Host, if it is not
// running, and returns why it cannot be used (it does not start, or ended and does not
// start again); nil for a codec of no plugin. A program that will serve
// files through c for long (a mount, a server) calls it first, to fail at
// once rather than at every file.
func Start(c core.Codec) error {
	rc, ok := c.(*remoteCodec)
	if !ok {
		return nil
	}
	_, err := rc.proc.codec()
	return err
}
