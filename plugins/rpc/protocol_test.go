package rpc

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// fakePlugin serves Stream with a function, in process: it breaks the
// protocol in ways no plugin built on Serve can.
type fakePlugin struct {
	pb.UnimplementedCodecServer
	stream func(pb.Codec_StreamServer) error
}

func (f *fakePlugin) Stream(st pb.Codec_StreamServer) error { return f.stream(st) }

// fakeCodec returns a codec served by stream, with a time limit.
func fakeCodec(t *testing.T, limit time.Duration, stream func(pb.Codec_StreamServer) error) core.Codec {
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	pb.RegisterCodecServer(srv, &fakePlugin{stream: stream})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///fake",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	h := &Host{logger: hclog.NewNullLogger(), timeout: limit}
	p := &process{host: h, path: "/fake/b14fs-plugin-fake", name: "fake"}
	p.started, p.client = true, pb.NewCodecClient(conn)
	return &remoteCodec{name: "fake", proc: p}
}

// readInput reads the start frame and the input to its end.
func readInput(st pb.Codec_StreamServer) error {
	for {
		if _, err := st.Recv(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestProtocolViolations(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		stream func(pb.Codec_StreamServer) error
		want   string
	}{
		{"start frame", func(st pb.Codec_StreamServer) error {
			readInput(st)
			return st.Send(&pb.Frame{Kind: &pb.Frame_Start{Start: &pb.Start{}}})
		}, "sent a frame that is neither data nor an error"},
		{"empty frames", func(st pb.Codec_StreamServer) error {
			readInput(st)
			for st.Context().Err() == nil {
				st.Send(&pb.Frame{Kind: &pb.Frame_Data{}})
			}
			return nil
		}, "timed out"},
		{"unknown error kind", func(st pb.Codec_StreamServer) error {
			readInput(st)
			return st.Send(&pb.Frame{Kind: &pb.Frame_Error{Error: &pb.Error{Kind: pb.Error_Kind(99), Message: "odd\x1b"}}})
		}, `plugin /fake/b14fs-plugin-fake: "odd\x1b"`},
		{"gRPC error", func(st pb.Codec_StreamServer) error {
			readInput(st)
			return errors.New("\x1b]0;title\x07")
		}, `\x1b]0;title\a`},
	} {
		t.Run(c.name, func(t *testing.T) {
			codec := fakeCodec(t, violationLimit(c.want), c.stream)
			checkViolation(t, codec, 100000, c.want)
		})
	}
}

// violationLimit returns the stall limit for a violation whose error holds
// want: short where the violation is a stall, and long elsewhere, so that
// an answer a loaded machine gives late is not taken for a stall (it was,
// under -race; checkViolation gives up after 10 s).
func violationLimit(want string) time.Duration {
	if want == "timed out" {
		return 200 * time.Millisecond
	}
	return 5 * time.Second
}

// checkViolation runs size bytes through codec's pull and push streams
// and checks that each fails in time with an error that holds want and no
// control character.
func checkViolation(t *testing.T, codec core.Codec, size int, want string) {
	t.Helper()
	for _, run := range []func() error{
		func() error {
			_, err := io.ReadAll(codec.NewEncodeReader(strings.NewReader(strings.Repeat("x", size))))
			return err
		},
		func() error {
			w := codec.NewEncodeWriter(io.Discard)
			w.Write([]byte(strings.Repeat("x", size)))
			return w.Close()
		},
	} {
		done := make(chan error, 1)
		go func() { done <- run() }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || strings.ContainsAny(err.Error(), "\x1b\x07\n") {
				t.Errorf("got %v, want an error with %s", err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("still running after 10s")
		}
	}
}

// TestEarlyEnd checks that a plugin may not end a stream, as if done,
// before the host has sent all the input: in frames, or with a data
// connection, whose output it ends too.
func TestEarlyEnd(t *testing.T) {
	for name, codec := range map[string]core.Codec{
		"frames": fakeCodec(t, 0, func(st pb.Codec_StreamServer) error {
			st.Recv() // the start frame only
			return nil
		}),
		"data connection": fakeDataCodec(t, 0, func(pb.Codec_StreamServer, *net.UnixConn) error { return nil }),
	} {
		t.Run(name, func(t *testing.T) {
			const want = "plugin /fake/b14fs-plugin-fake: ended the stream before the end of its input"
			block := make(chan struct{})
			defer close(block)
			src := io.MultiReader(strings.NewReader("abc"), blockingReader(block))
			if _, err := io.ReadAll(codec.NewEncodeReader(src)); err == nil || err.Error() != want {
				t.Errorf("pull: %v, want %s", err, want)
			}
			w := codec.NewEncodeWriter(io.Discard)
			// Write until the end reaches the host, which fails the writes.
			chunk := make([]byte, 4096)
			for deadline := time.Now().Add(10 * time.Second); ; {
				if _, err := w.Write(chunk); err != nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("writes still succeed 10s after the plugin ended the stream")
				}
			}
			if err := w.Close(); err == nil || err.Error() != want {
				t.Errorf("push: %v, want %s", err, want)
			}
		})
	}
}

// blockingReader blocks until its channel closes.
type blockingReader chan struct{}

func (b blockingReader) Read([]byte) (int, error) {
	<-b
	return 0, io.EOF
}

// TestCheckDeadline checks that a plugin that does not answer a call fails
// it in time.
func TestCheckDeadline(t *testing.T) {
	codec := fakeCodec(t, 200*time.Millisecond, nil)
	codec.(*remoteCodec).proc.client = pb.NewCodecClient(hangingConn{})
	_, err := codec.(core.Configurable).WithOptions(core.Options{{Key: "k", Value: "v"}})
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a call left unanswered: %v, want a timeout", err)
	}
}

// hangingConn answers no call until its context ends.
type hangingConn struct{ grpc.ClientConnInterface }

func (hangingConn) Invoke(ctx context.Context, _ string, _, _ any, _ ...grpc.CallOption) error {
	<-ctx.Done()
	return ctx.Err()
}

// fakeDataCodec is fakeCodec for streams with a data connection: stream
// serves the call and the data connection it names.
func fakeDataCodec(t *testing.T, limit time.Duration, stream func(pb.Codec_StreamServer, *net.UnixConn) error) core.Codec {
	dir, err := os.MkdirTemp("", "d")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := listenData(dir)
	t.Cleanup(d.close)
	codec := fakeCodec(t, limit, func(st pb.Codec_StreamServer) error {
		f, err := st.Recv()
		if err != nil {
			return err
		}
		conn, err := d.take(st.Context(), dataToken(f.GetStart().GetDataToken()))
		if err != nil {
			return err
		}
		defer conn.Close()
		return stream(st, conn)
	})
	codec.(*remoteCodec).proc.dataAddr = d.address()
	return codec
}

// TestDataProtocolViolations checks what the host makes of a plugin that
// breaks the protocol of data connections.
func TestDataProtocolViolations(t *testing.T) {
	t.Parallel()
	const size = 100000
	for _, c := range []struct {
		name   string
		stream func(pb.Codec_StreamServer, *net.UnixConn) error
		want   string
	}{
		{"data frame", func(st pb.Codec_StreamServer, conn *net.UnixConn) error {
			io.Copy(io.Discard, conn)
			conn.CloseWrite()
			return st.Send(&pb.Frame{Kind: &pb.Frame_Data{Data: []byte("x")}})
		}, "sent a data frame on a stream with a data connection"},
		{"silent", func(st pb.Codec_StreamServer, conn *net.UnixConn) error {
			io.Copy(io.Discard, conn)
			<-st.Context().Done()
			return nil
		}, "timed out"},
		{"error before the output's end", func(st pb.Codec_StreamServer, conn *net.UnixConn) error {
			io.Copy(io.Discard, conn)
			st.Send(&pb.Frame{Kind: &pb.Frame_Error{Error: &pb.Error{Kind: pb.Error_DATA, Offset: 1}}})
			<-st.Context().Done()
			return nil
		}, "timed out"},
		{"far offset", func(st pb.Codec_StreamServer, conn *net.UnixConn) error {
			io.Copy(io.Discard, conn)
			conn.CloseWrite()
			return st.Send(&pb.Frame{Kind: &pb.Frame_Error{Error: &pb.Error{Kind: pb.Error_DATA, Offset: 1 << 40, Message: "bad"}}})
		}, "byte offset 100000: bad (the plugin gave byte offset 1099511627776, outside the 100000 bytes it was sent)"},
		{"gRPC error", func(st pb.Codec_StreamServer, conn *net.UnixConn) error {
			return errors.New("\x1b]0;title\x07")
		}, `\x1b]0;title\a`},
	} {
		t.Run(c.name, func(t *testing.T) {
			codec := fakeDataCodec(t, violationLimit(c.want), c.stream)
			checkViolation(t, codec, size, c.want)
		})
	}
}
