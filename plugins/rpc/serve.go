package rpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// Serve serves codec to a b14fs host and returns when the host is done with
// the plugin. It is the whole main of a plugin executable. Run by hand, not
// by a host, it prints a message and exits with status 1. It logs at the
// level of $B14FS_PLUGIN_LOG (EnvLog), info by default.
func Serve(codec core.Codec) {
	data := listenData(os.Getenv(plugin.EnvUnixSocketDir))
	defer data.close()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: handshake,
		Plugins:         plugin.PluginSet{pluginName: &codecPlugin{codec: codec, data: data}},
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger: hclog.New(&hclog.LoggerOptions{
			Name:       codec.Name(),
			Output:     os.Stderr,
			JSONFormat: true,
			Level:      serveLogLevel(),
		}),
	})
}

// codecPlugin is the go-plugin face of a codec: a gRPC service on the plugin
// side, a gRPC client on the host side.
type codecPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	codec core.Codec  // on the plugin side
	data  *dataServer // on the plugin side, if it offers a data path
}

func (p *codecPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterCodecServer(s, &server{codec: p.codec, data: p.data})
	pb.RegisterInfoServer(s, infoServer{codec: p.codec})
	return nil
}

func (p *codecPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return clients{pb.NewCodecClient(conn), pb.NewInfoClient(conn)}, nil
}

// server serves one codec.
type server struct {
	pb.UnimplementedCodecServer
	codec core.Codec
	data  *dataServer
}

func (s *server) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeReply, error) {
	reply := &pb.DescribeReply{Name: s.codec.Name(), DataAddress: s.data.address()}
	if sf, ok := s.codec.(core.Suffixer); ok {
		reply.Suffix = sf.Suffix()
	}
	return reply, nil
}

func (s *server) Check(_ context.Context, req *pb.CheckRequest) (*pb.CheckReply, error) {
	if _, err := core.Configure(s.codec, coreOptions(req.GetOptions())); err != nil {
		return &pb.CheckReply{Error: toWire(err)}, nil
	}
	return &pb.CheckReply{}, nil
}

// Stream runs the codec's push stream over the call: what comes in (in
// frames, or over the stream's data connection) is written to it, and what
// it writes goes out the same way. A failure of the codec is sent as an
// error frame; the call itself fails only when a connection does.
func (s *server) Stream(st pb.Codec_StreamServer) error {
	first, err := st.Recv()
	if err != nil {
		return err
	}
	start := first.GetStart()
	if start == nil {
		return errors.New("stream does not begin with a start frame")
	}
	fail := func(err error) error {
		return st.Send(&pb.Frame{Kind: &pb.Frame_Error{Error: toWire(err)}})
	}
	if tok := start.GetDataToken(); len(tok) > 0 {
		if len(tok) != len(dataToken{}) {
			return errors.New("the start frame names a data connection by a token of the wrong length")
		}
		return s.streamData(st, start, dataToken(tok), fail)
	}
	codec, err := core.Configure(s.codec, coreOptions(start.GetOptions()))
	if err != nil {
		return fail(err)
	}
	out := &frameWriter{send: func(b []byte) error { return st.Send(&pb.Frame{Kind: &pb.Frame_Data{Data: b}}) }}
	codecErr, err := pump(pushStreamOf(codec, start.GetDecode(), out), out, func() ([]byte, error) {
		f, err := st.Recv()
		return f.GetData(), err
	})
	if err == nil && codecErr != nil {
		return fail(codecErr)
	}
	return err
}

// streamData runs a stream whose data flows over the data connection named
// tok: the output ends, by a shutdown of the connection for writing, before
// the call sends the outcome.
func (s *server) streamData(st pb.Codec_StreamServer, start *pb.Start, tok dataToken, fail func(error) error) error {
	conn, err := s.data.take(st.Context(), tok)
	if err != nil {
		return err
	}
	defer conn.Close()
	defer context.AfterFunc(st.Context(), func() { conn.Close() })()
	codec, err := core.Configure(s.codec, coreOptions(start.GetOptions()))
	var codecErr error
	if err != nil {
		codecErr = err
	} else {
		out := writers.Get().(*bufio.Writer)
		out.Reset(conn)
		defer writers.Put(out)
		buf := pieces.Get().(*[pieceSize]byte)
		defer pieces.Put(buf)
		codecErr, err = pump(pushStreamOf(codec, start.GetDecode(), out), out, func() ([]byte, error) {
			n, err := conn.Read(buf[:])
			return buf[:n], err
		})
		if err != nil {
			return err
		}
	}
	if err := conn.CloseWrite(); err != nil {
		return err
	}
	if codecErr != nil {
		return fail(codecErr)
	}
	return nil
}

// pushStreamOf returns codec's push stream into out.
func pushStreamOf(codec core.Codec, decode bool, out io.Writer) io.WriteCloser {
	if decode {
		return codec.NewDecodeWriter(out)
	}
	return codec.NewEncodeWriter(out)
}

// pump writes the input that read returns, until io.EOF, to w, the codec's
// push stream into out, flushing out after each piece, and closes w at the
// end. It returns the codec's error (for the host) apart from the
// connection's (which ends the call).
func pump(w io.WriteCloser, out interface{ Flush() error }, read func() ([]byte, error)) (codecErr, connErr error) {
	for {
		data, err := read()
		if len(data) > 0 {
			n, werr := w.Write(data)
			if werr == nil && n < len(data) {
				werr = io.ErrShortWrite // a codec breaking io.Writer's contract
			}
			if werr != nil {
				return werr, nil
			}
			if ferr := out.Flush(); ferr != nil {
				return nil, ferr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return err, nil
	}
	return nil, out.Flush()
}

// frameWriter gathers what is written to it into pieces of at most
// frameSize bytes for send; Flush sends a partial one.
type frameWriter struct {
	send func([]byte) error
	buf  []byte
}

func (fw *frameWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		m := min(len(p), frameSize-len(fw.buf))
		fw.buf = append(fw.buf, p[:m]...)
		n += m
		p = p[m:]
		if len(fw.buf) == frameSize {
			if err := fw.Flush(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// Flush sends what is gathered.
func (fw *frameWriter) Flush() error {
	if len(fw.buf) == 0 {
		return nil
	}
	err := fw.send(fw.buf)
	fw.buf = fw.buf[:0]
	return err
}
