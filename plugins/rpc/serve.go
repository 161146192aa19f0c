package rpc

import (
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
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: handshake,
		Plugins:         plugin.PluginSet{pluginName: &codecPlugin{codec: codec}},
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
	codec core.Codec // on the plugin side
}

func (p *codecPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterCodecServer(s, &server{codec: p.codec})
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
}

func (s *server) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeReply, error) {
	reply := &pb.DescribeReply{Name: s.codec.Name()}
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

// Stream runs the codec's push stream over the call: frames in are written
// to it, and what it writes goes out as frames. A failure of the codec is
// sent as an error frame; the call itself fails only when the connection
// does.
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
	codec, err := core.Configure(s.codec, coreOptions(start.GetOptions()))
	if err != nil {
		return fail(err)
	}
	out := &frameWriter{send: st.Send}
	w := codec.NewEncodeWriter(out)
	if start.GetDecode() {
		w = codec.NewDecodeWriter(out)
	}
	for {
		f, err := st.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(f.GetData()); err != nil {
			return fail(err)
		}
		if err := out.flush(); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return fail(err)
	}
	return out.flush()
}

// frameWriter gathers what is written to it into data frames of at most
// frameSize bytes; flush sends a partial one.
type frameWriter struct {
	send func(*pb.Frame) error
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
			if err := fw.flush(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

func (fw *frameWriter) flush() error {
	if len(fw.buf) == 0 {
		return nil
	}
	err := fw.send(&pb.Frame{Kind: &pb.Frame_Data{Data: fw.buf}})
	fw.buf = fw.buf[:0]
	return err
}
