package rpc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// startTimeout bounds how long a plugin may take to start and shake hands.
const startTimeout = 20 * time.Second

// A Host starts and stops the plugin processes behind the codecs that
// Discover registered. It is safe for concurrent use.
type Host struct {
	logger hclog.Logger
	pins   map[string][]byte

	mu      sync.Mutex
	clients []*plugin.Client
	closed  bool
}

// A HostOption configures Discover.
type HostOption func(*Host)

// WithLogger sends the plugins' log lines, and the host's own about them,
// to logger. Without it they go to standard error at level warn.
func WithLogger(logger hclog.Logger) HostOption {
	return func(h *Host) { h.logger = logger }
}

// WithPins pins plugins to the SHA-256 sums of their executables, by codec
// name: a pinned plugin whose file has another sum is not started, and its
// codec fails with an error saying so.
func WithPins(pins map[string][]byte) HostOption {
	return func(h *Host) { h.pins = pins }
}

// ParsePins parses pins written as NAME=HEX pairs separated by commas, such
// as the value of the B14FS_PLUGIN_SHA256 environment variable.
func ParsePins(s string) (map[string][]byte, error) {
	pins := make(map[string][]byte)
	for _, pair := range strings.Split(s, ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		name, hexSum, ok := strings.Cut(pair, "=")
		sum, err := hex.DecodeString(hexSum)
		if !ok || name == "" || err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("plugin pin %q: want NAME=<64 hex digits>", pair)
		}
		pins[name] = sum
	}
	return pins, nil
}

// Discover looks for plugin executables (files named b14fs-plugin-NAME with
// an execute bit) in the directories of pathList, separated by the
// system's list separator (':' on Unix), and registers a codec for each in
// reg with the executable's path as its origin. A name found twice is taken
// from the directory that comes first; a name reg already holds, such as a
// built-in codec's, is skipped and reported in the returned error, with
// every other problem found, after all the plugins that could be registered
// are. Plugins start only when their codec is first used.
func Discover(reg *core.Registry, pathList string, opts ...HostOption) (*Host, error) {
	h := &Host{}
	for _, o := range opts {
		o(h)
	}
	if h.logger == nil {
		h.logger = hclog.New(&hclog.LoggerOptions{Name: "b14fs", Output: os.Stderr, Level: hclog.Warn})
	}
	var errs []error
	seen := make(map[string]bool)
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), PluginPrefix)
			if !ok || name == "" || seen[name] {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
				continue
			}
			seen[name] = true
			if err := reg.Register(&remoteCodec{name: name, proc: &process{host: h, path: path, name: name}}, path); err != nil {
				errs = append(errs, fmt.Errorf("plugin %s: %w", path, err))
			}
		}
	}
	return h, errors.Join(errs...)
}

// Close kills every plugin process the host started. Codecs of the host fail
// after it.
func (h *Host) Close() {
	h.mu.Lock()
	clients := h.clients
	h.clients, h.closed = nil, true
	h.mu.Unlock()
	for _, c := range clients {
		c.Kill()
	}
}

// process is a plugin executable, started on first use.
type process struct {
	host *Host
	path string
	name string

	once   sync.Once
	client pb.CodecClient
	suffix string
	err    error
}

// codec returns the gRPC client of the running plugin, starting it first.
func (p *process) codec() (pb.CodecClient, error) {
	p.once.Do(func() { p.client, p.suffix, p.err = p.start() })
	return p.client, p.err
}

func (p *process) start() (pb.CodecClient, string, error) {
	h := p.host
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  handshake,
		Plugins:          plugin.PluginSet{pluginName: &codecPlugin{}},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           h.logger.Named(p.name),
		StartTimeout:     startTimeout,
		RunnerFunc: func(l hclog.Logger, cmd *exec.Cmd, _ string) (runner.Runner, error) {
			if sum, ok := h.pins[p.name]; ok {
				if err := checkSum(p.path, sum); err != nil {
					return nil, err
				}
			}
			cmd.Path, cmd.Args = p.path, []string{p.path}
			return newRunner(l, cmd)
		},
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, "", fmt.Errorf("plugin %s: host closed", p.path)
	}
	client := plugin.NewClient(cfg)
	h.clients = append(h.clients, client)
	h.mu.Unlock()

	fail := func(err error) (pb.CodecClient, string, error) {
		client.Kill()
		return nil, "", fmt.Errorf("plugin %s: %w", p.path, err)
	}
	proto, err := client.Client()
	if err != nil {
		return fail(err)
	}
	raw, err := proto.Dispense(pluginName)
	if err != nil {
		return fail(err)
	}
	cc := raw.(pb.CodecClient)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	desc, err := cc.Describe(ctx, &pb.DescribeRequest{})
	if err != nil {
		return fail(err)
	}
	if desc.GetName() != p.name {
		return fail(fmt.Errorf("serves codec %q, but its file name says %q", desc.GetName(), p.name))
	}
	return cc, desc.GetSuffix(), nil
}

// checkSum checks that the file at path has the SHA-256 sum want.
func checkSum(path string, want []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := h.Sum(nil); !bytes.Equal(got, want) {
		return fmt.Errorf("checksum mismatch: the file's SHA-256 is %x, the pin says %x", got, want)
	}
	return nil
}

// wrap names the plugin in an error of its connection.
func (p *process) wrap(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return fmt.Errorf("plugin %s: %w", p.path, err)
}
