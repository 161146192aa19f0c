// Command stockplugin is the yardstick of the plugin benchmarks: a codec
// (XOR with 0x5A) served over a gRPC bidirectional stream with go-plugin,
// written as plainly as go-plugin's own examples, with none of b14fs's data
// path. Each message in is answered by one message out.
package main

import (
	"context"
	"io"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// Handshake is the stock plugin's handshake; the benchmark's host uses the
// same.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "B14FS_STOCK_PLUGIN",
	MagicCookieValue: "stock",
}

type xorServer struct {
	pb.UnimplementedCodecServer
}

func (xorServer) Stream(srv pb.Codec_StreamServer) error {
	for {
		req, err := srv.Recv()
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		data := req.GetData()
		for i := range data {
			data[i] ^= 0x5A
		}
		if err := srv.Send(&pb.Frame{Kind: &pb.Frame_Data{Data: data}}); err != nil {
			return err
		}
	}
}

type xorPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (xorPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterCodecServer(s, xorServer{})
	return nil
}

func (xorPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pb.NewCodecClient(c), nil
}

func main() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{"xor": xorPlugin{}},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}
