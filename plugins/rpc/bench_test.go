package rpc_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/testing/testcodec"
	"github.com/b14fs/b14fs/plugins/rpc"
	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// BenchmarkStream compares, on 8 MiB, a trivial codec (XOR) run in process,
// through a plugin on b14fs's data path (the data connection), through a
// plugin in frames on the gRPC call (the fallback), and through a stock
// go-plugin gRPC bidirectional stream of 64 KiB messages: the differences
// are what crossing the process boundary costs.
func BenchmarkStream(b *testing.B) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 8<<20/16)
	for _, c := range benchCodecs(b) {
		b.Run(c.name+"/pull", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if _, err := io.Copy(io.Discard, c.codec.NewEncodeReader(bytes.NewReader(data))); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/push", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				w := c.codec.NewEncodeWriter(io.Discard)
				if _, err := w.Write(data); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("stock/grpc64k", func(b *testing.B) {
		cc := startStock(b)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			if err := stockStream(cc, data, 64<<10); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchCodecs returns the XOR codec in process, through a plugin and
// through a plugin in frames only, by name.
func benchCodecs(b *testing.B) []struct {
	name  string
	codec core.Codec
} {
	return []struct {
		name  string
		codec core.Codec
	}{
		{"inprocess", testcodec.Xor{Key: 0x5A}},
		{"plugin", lookup(b, discover(b), "xor")},
		{"frames", lookup(b, discover(b, rpc.WithFramesOnly()), "xor")},
	}
}

// BenchmarkFirstByte measures how long a stream of a started plugin takes
// to return its first byte of output, for a 16-byte input: opening the
// stream (the call and its data connection), the input's way in and the
// output's way out. ns/op is that latency.
func BenchmarkFirstByte(b *testing.B) {
	input := "0123456789abcdef"
	for _, c := range benchCodecs(b) {
		if _, err := pull(c.codec, "start"); err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var one [1]byte
			for b.Loop() {
				r := c.codec.NewEncodeReader(strings.NewReader(input))
				if _, err := io.ReadFull(r, one[:]); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}

// reportCPU starts counting the CPU time of the benchmark's process and of
// its children (the plugins); the function it returns reports it per
// operation as cpu-ns/op. On a machine shared with other work, what a
// stream costs in CPU time varies less than its wall time, and it bounds
// the throughput the machine's cores can give.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if start < 0 {
			return
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

// cpuTime returns the nanoseconds that the threads of this process and of
// its child processes have run, or -1 where /proc does not tell.
func cpuTime() int64 {
	total := threadsTime("self")
	if total < 0 {
		return -1
	}
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, pid := range strings.Fields(string(b)) {
			total += max(threadsTime(pid), 0)
		}
	}
	return total
}

// threadsTime returns the nanoseconds that the threads of process pid have
// run, from their /proc/PID/task/TID/schedstat, or -1.
func threadsTime(pid string) int64 {
	files, _ := filepath.Glob("/proc/" + pid + "/task/*/schedstat")
	if len(files) == 0 {
		return -1
	}
	var total int64
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if fields := strings.Fields(string(b)); len(fields) > 0 {
			n, _ := strconv.ParseInt(fields[0], 10, 64)
			total += n
		}
	}
	return total
}

// stockHandshake is internal/stockplugin's.
var stockHandshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "B14FS_STOCK_PLUGIN",
	MagicCookieValue: "stock",
}

// stockPlugin is the host side of internal/stockplugin.
type stockPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (stockPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error { return nil }

func (stockPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pb.NewCodecClient(c), nil
}

// startStock builds and starts internal/stockplugin the way go-plugin's
// examples start theirs, and returns its client.
func startStock(b *testing.B) pb.CodecClient {
	bin := filepath.Join(b.TempDir(), "stockplugin")
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/stockplugin").CombinedOutput(); err != nil {
		b.Fatalf("building the stock plugin: %v\n%s", err, out)
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  stockHandshake,
		Plugins:          plugin.PluginSet{"xor": stockPlugin{}},
		Cmd:              exec.Command(bin),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           hclog.NewNullLogger(),
	})
	b.Cleanup(client.Kill)
	rpcClient, err := client.Client()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := rpcClient.Dispense("xor")
	if err != nil {
		b.Fatal(err)
	}
	return raw.(pb.CodecClient)
}

// stockStream sends data through the stock plugin in messages of chunk
// bytes from one goroutine and receives the answers in another, as a plain
// bidirectional stream does.
func stockStream(cc pb.CodecClient, data []byte, chunk int) error {
	st, err := cc.Stream(context.Background())
	if err != nil {
		return err
	}
	sendErr := make(chan error, 1)
	go func() {
		buf := bytes.NewBuffer(data)
		for next := buf.Next(chunk); len(next) > 0; next = buf.Next(chunk) {
			if err := st.Send(&pb.Frame{Kind: &pb.Frame_Data{Data: next}}); err != nil {
				sendErr <- err
				return
			}
		}
		sendErr <- st.CloseSend()
	}()
	for {
		resp, err := st.Recv()
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		io.Discard.Write(resp.GetData())
	}
	return <-sendErr
}
