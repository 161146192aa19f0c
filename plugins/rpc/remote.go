package rpc

import (
	"context"
	"errors"
	"io"
	"sync"

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
	_ core.Configurable = (*remoteCodec)(nil)
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
	reply, err := cc.Check(context.Background(), &pb.CheckRequest{Options: wireOptions(opts)})
	if err != nil {
		return nil, c.proc.wrap(err)
	}
	if e := reply.GetError(); e != nil {
		return nil, fromWire(e, c.proc.path)
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

func (c *remoteCodec) NewEncodeReader(r io.Reader) io.Reader { return c.pull(r, false) }
func (c *remoteCodec) NewDecodeReader(r io.Reader) io.Reader { return c.pull(r, true) }

func (c *remoteCodec) NewEncodeWriter(w io.Writer) io.WriteCloser { return c.push(w, false) }
func (c *remoteCodec) NewDecodeWriter(w io.Writer) io.WriteCloser { return c.push(w, true) }

// open starts a stream call on the plugin.
func (c *remoteCodec) open(decode bool) (pb.Codec_StreamClient, context.CancelFunc, error) {
	cc, err := c.proc.codec()
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, err := cc.Stream(ctx)
	if err == nil {
		err = st.Send(&pb.Frame{Kind: &pb.Frame_Start{Start: &pb.Start{Decode: decode, Options: wireOptions(c.opts)}}})
	}
	if err != nil {
		cancel()
		return nil, nil, c.proc.wrap(err)
	}
	return st, cancel, nil
}

// pull returns a reader of r's bytes run through the plugin. A goroutine
// feeds r to the plugin while Read takes what comes back; Close ends the call
// early (the reader is an io.ReadCloser for that).
func (c *remoteCodec) pull(r io.Reader, decode bool) io.ReadCloser {
	st, cancel, err := c.open(decode)
	if err != nil {
		return &pullStream{err: err}
	}
	p := &pullStream{st: st, cancel: cancel, proc: c.proc}
	go p.feed(r)
	return p
}

// pullStream reads a plugin's output while a goroutine feeds it input.
type pullStream struct {
	st      pb.Codec_StreamClient
	cancel  context.CancelFunc
	proc    *process
	pending []byte
	err     error

	mu     sync.Mutex
	srcErr error // the source's error, set before the call is cancelled
}

func (p *pullStream) feed(r io.Reader) {
	buf := make([]byte, frameSize)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if p.st.Send(&pb.Frame{Kind: &pb.Frame_Data{Data: buf[:n]}}) != nil {
				return // the call ended; Recv tells why
			}
		}
		if err == io.EOF {
			p.st.CloseSend()
			return
		}
		if err != nil {
			p.mu.Lock()
			p.srcErr = err
			p.mu.Unlock()
			p.cancel()
			return
		}
	}
}

func (p *pullStream) Read(b []byte) (int, error) {
	for len(p.pending) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		f, err := p.st.Recv()
		switch {
		case err == nil && f.GetError() != nil:
			p.fail(fromWire(f.GetError(), p.proc.path))
		case err == nil:
			p.pending = f.GetData()
		case err == io.EOF:
			p.fail(io.EOF)
		default:
			p.mu.Lock()
			srcErr := p.srcErr
			p.mu.Unlock()
			if srcErr == nil {
				srcErr = p.proc.wrap(err)
			}
			p.fail(srcErr)
		}
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}

// fail ends the stream with err, which Read returns from then on.
func (p *pullStream) fail(err error) {
	p.err = err
	if p.cancel != nil {
		p.cancel()
	}
}

// Close ends the call. The feeding goroutine ends when its pending read of
// the source returns.
func (p *pullStream) Close() error {
	if p.err == nil {
		p.fail(errors.New("rpc: read from a closed stream"))
	}
	return nil
}

// push returns a writer that sends what is written to the plugin, while a
// goroutine writes what comes back into w.
func (c *remoteCodec) push(w io.Writer, decode bool) io.WriteCloser {
	st, cancel, err := c.open(decode)
	if err != nil {
		return &pushStream{err: err, done: closed()}
	}
	p := &pushStream{st: st, cancel: cancel, proc: c.proc, done: make(chan struct{})}
	p.frames.send = p.send
	go p.drain(w)
	return p
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// pushStream sends writes to a plugin while a goroutine drains its output.
type pushStream struct {
	st     pb.Codec_StreamClient
	cancel context.CancelFunc
	proc   *process
	done   chan struct{} // closed when drain returns, after setting err
	frames frameWriter   // gathers writes into frames
	once   sync.Once
	err    error
}

func (p *pushStream) drain(w io.Writer) {
	defer close(p.done)
	for {
		f, err := p.st.Recv()
		switch {
		case err == io.EOF:
			return
		case err != nil:
			p.err = p.proc.wrap(err)
		case f.GetError() != nil:
			p.err = fromWire(f.GetError(), p.proc.path)
		default:
			if _, werr := w.Write(f.GetData()); werr == nil {
				continue
			} else {
				p.err = werr
			}
		}
		p.cancel()
		return
	}
}

// Write queues b for the plugin, sending it in frames of frameSize bytes:
// small writes are gathered, and the last partial frame goes out on Close.
func (p *pushStream) Write(b []byte) (int, error) {
	select {
	case <-p.done:
		return 0, p.result()
	default:
	}
	return p.frames.Write(b)
}

// send sends one frame; once the call has ended, it returns its outcome.
func (p *pushStream) send(f *pb.Frame) error {
	if err := p.st.Send(f); err != nil {
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
// output and returns the stream's error, if any. It does not close the
// underlying writer.
func (p *pushStream) Close() error {
	p.once.Do(func() {
		if p.st != nil && p.frames.flush() == nil {
			p.st.CloseSend()
		}
	})
	<-p.done
	if p.cancel != nil {
		p.cancel()
	}
	return p.err
}
