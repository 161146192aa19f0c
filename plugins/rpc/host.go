package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"github.com/spf13/afero"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// startTimeout bounds how long a plugin may take to start and shake hands.
const startTimeout = 20 * time.Second

// DefaultTimeout is how long a plugin may go without progress, by default,
// while the host waits on it.
const DefaultTimeout = 30 * time.Second

// EnvTimeout is the environment variable that sets how long a plugin may go
// without progress while the host waits on it, as a duration such as "30s"
// or "1m" or a number of seconds; 0 means no limit.
const EnvTimeout = "B14FS_PLUGIN_TIMEOUT"

// A Host starts and stops the plugin processes behind the codecs that
// Discover registered. It is safe for concurrent use.
type Host struct {
	logger     hclog.Logger
	pins       map[string][]byte
	timeout    time.Duration // < 0 until set
	warnings   []error       // what Discover skipped, to warn of
	skipped    []Skip        // every file of the directories Discover did not take
	plugins    []*process    // the plugins it registered, in the order of their names
	framesOnly bool          // data flows in frames even to plugins that offer a data connection

	mu      sync.Mutex
	clients []*client
	dir     string // the host's private directory, made on first use
	closed  bool
}

// A HostOption configures Discover.
type HostOption func(*Host)

// WithLogger sends the plugins' log lines, and the host's own about them,
// to logger. Without it they go to standard error at the level that
// $B14FS_PLUGIN_LOG names (EnvLog), warn by default. Every line from a
// plugin is cleaned first: control characters escaped, length capped.
func WithLogger(logger hclog.Logger) HostOption {
	return func(h *Host) { h.logger = logger }
}

// WithPins pins plugins to the SHA-256 sums of their executables, by codec
// name: a pinned plugin whose file has another sum is not started, and its
// codec fails with an error saying so. The sum is taken of the very bytes
// the plugin then runs from, whatever happens to its file meanwhile. A pin
// whose name no plugin has is an error that Discover returns, and until it
// is mended no plugin without a pin runs (it might be the one meant).
func WithPins(pins map[string][]byte) HostOption {
	return func(h *Host) { h.pins = pins }
}

// WithTimeout sets how long a plugin may go without progress while the host
// waits on it (for a stream's data, for a call's reply) before the stream or
// call fails with a timeout error naming it; 0 means no limit. The time the
// host spends reading a stream's source or writing its output, or away from
// the stream, does not count. Without this option it is $B14FS_PLUGIN_TIMEOUT,
// or DefaultTimeout.
func WithTimeout(d time.Duration) HostOption {
	return func(h *Host) { h.timeout = max(d, 0) }
}

// parseTimeout reads the value of EnvTimeout.
func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		// A number of seconds, fractions too.
		var n float64
		if n, err = strconv.ParseFloat(s, 64); err == nil && !(n >= 0 && n <= math.MaxInt64/float64(time.Second)) {
			err = strconv.ErrRange // also NaN
		}
		d = time.Duration(n * float64(time.Second))
	}
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%s: want a duration such as 30s, or 0 for no limit", EnvTimeout, cleanText(strconv.Quote(s), 80))
	}
	return d, nil
}

// callContext returns the context of a call to a plugin, bounded by the
// host's time limit.
func (h *Host) callContext() (context.Context, context.CancelFunc) {
	if h.timeout <= 0 {
		return context.WithCancel(context.Background())
	}
	return context.WithTimeout(context.Background(), h.timeout)
}

// Discover looks for plugin executables (files named b14fs-plugin-NAME with
// an execute bit) in the directories of pathList, separated by the
// system's list separator (':' on Unix), and registers a codec for each in
// reg with the executable's path as its origin. Plugins start only when
// their codec is first used.
//
// Discover returns either a host whose plugins are registered or an error
// and no host, registering nothing: a pin whose name no plugin has (see
// WithPins), so that a misspelled pin never lets an unpinned plugin run, or
// a bad $B14FS_PLUGIN_TIMEOUT. What it skips is no error: a name found
// twice is taken from the directory that comes first, and a name reg
// already holds (a built-in codec's), a file name that is no codec name or
// a directory that cannot be read is reported by the host's Warnings.
// Discover also removes the directories that hosts which died without
// closing left in the system's temporary directory.
func Discover(reg *core.Registry, pathList string, opts ...HostOption) (*Host, error) {
	h := &Host{timeout: -1}
	for _, o := range opts {
		o(h)
	}
	if h.logger == nil {
		level, err := logLevel(os.Getenv(EnvLog), hclog.Warn)
		if err != nil {
			return nil, err
		}
		h.logger = hclog.New(&hclog.LoggerOptions{Name: "b14fs", Output: os.Stderr, Level: level})
	}
	// Remove what crashed hosts left behind: plugins' socket directories.
	for _, dir := range staleDirs() {
		if err := atomicfile.RemoveStale(afero.NewOsFs(), dir); err != nil {
			h.logger.Debug("removing stale temporary files", "dir", dir, "error", err)
		}
	}
	if h.timeout < 0 {
		h.timeout = DefaultTimeout
		if v := os.Getenv(EnvTimeout); v != "" {
			d, err := parseTimeout(v)
			if err != nil {
				return nil, err
			}
			h.timeout = d
		}
	}
	found := h.find(pathList)
	var unknown []string
	for name := range h.pins {
		if _, ok := found[name]; !ok {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := "no plugins were found"
		if len(found) > 0 {
			names = "the plugins are " + strings.Join(slices.Sorted(maps.Keys(found)), ", ")
		}
		return nil, fmt.Errorf("pinned plugin %s not found (%s)", strings.Join(unknown, ", "), names)
	}
	for _, name := range slices.Sorted(maps.Keys(found)) {
		path := found[name]
		proc := &process{host: h, path: path, name: name}
		if err := reg.Register(&remoteCodec{name: name, proc: proc}, path); err != nil {
			h.warnings = append(h.warnings, fmt.Errorf("plugin %s: %w: skipped", path, err))
			h.skipped = append(h.skipped, Skip{Path: cleanText(path, 256), Name: name, Reason: err.Error()})
			continue
		}
		h.plugins = append(h.plugins, proc)
	}
	return h, nil
}

// find returns the plugin executables of the directories of pathList by
// codec name, noting in h what it skips.
func (h *Host) find(pathList string) map[string]string {
	found := make(map[string]string)
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				h.warnings = append(h.warnings, err)
			}
			continue
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			name, reason := h.check(path, e.Name())
			if reason == "" && found[name] != "" {
				reason = "the plugin " + cleanText(found[name], 256) + " serves the same codec and comes first"
			}
			if reason != "" {
				h.skipped = append(h.skipped, Skip{Path: cleanText(path, 256), Name: name, Reason: reason})
				continue
			}
			found[name] = path
		}
	}
	return found
}

// check returns the codec name a plugin executable at path, whose file
// name is base, would serve, and, if it is none, why.
func (h *Host) check(path, base string) (name, reason string) {
	name, ok := strings.CutPrefix(base, PluginPrefix)
	if !ok || name == "" {
		return "", "not named " + PluginPrefix + "NAME"
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return name, cleanText(err.Error(), 256)
	case !fi.Mode().IsRegular():
		return name, "not a regular file"
	case fi.Mode().Perm()&0o111 == 0:
		return name, "not executable (chmod +x it to use it)"
	case !validName(name):
		err := fmt.Errorf("plugin %s: %s is no codec name: skipped", cleanText(strconv.Quote(path), 256), cleanText(strconv.Quote(name), 80))
		h.warnings = append(h.warnings, err)
		return name, "the name after " + PluginPrefix + " is no codec name"
	}
	return name, ""
}

// A Skip is a file in a plugin directory that Discover did not take for a
// plugin, and why.
type Skip struct {
	Path   string // the file, fit to print (see Host.Warnings)
	Name   string // the codec it would serve, from its file name, as it is (to compare, not print); "" if none
	Reason string // why it was skipped
}

// Skipped returns every file of the plugin directories that Discover did
// not take for a plugin, in the order found, with the reason.
func (h *Host) Skipped() []Skip { return slices.Clone(h.skipped) }

// Warnings returns what Discover skipped and why.
func (h *Host) Warnings() []error { return slices.Clone(h.warnings) }

// Close kills every plugin process the host started, with the processes
// they started. Codecs of the host fail after it.
func (h *Host) Close() {
	h.mu.Lock()
	clients := h.clients
	h.clients, h.closed = nil, true
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(c.kill)
	}
	wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dir != "" {
		os.RemoveAll(h.dir)
		h.dir = ""
	}
}

// forget stops c, the client of a plugin process that has ended, and drops
// it from those Close stops.
func (h *Host) forget(c *client) {
	if c == nil {
		return
	}
	h.mu.Lock()
	h.clients = slices.DeleteFunc(h.clients, func(o *client) bool { return o == c })
	h.mu.Unlock()
	c.kill()
}

// privateDir returns the host's private directory (mode 0700), where its
// plugins make their sockets, making it first: one per host, removed by
// Close, and named so that the next host removes it if this one crashes.
// h.mu is held.
func (h *Host) privateDir() (string, error) {
	if h.dir != "" {
		return h.dir, nil
	}
	for {
		dir := filepath.Join(socketBase(os.TempDir()), atomicfile.TempName("plugins"))
		err := os.Mkdir(dir, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		h.dir = dir
		return dir, nil
	}
}

// socketRoom returns how long the name of the directory that holds the
// host's private directory may be: a Unix socket's path has room for 107
// bytes on Linux and 103 on other systems (with the final NUL, 108 and 104),
// and go-plugin adds 38 to the private directory's name
// (/plugin-dirNNNNNNNNNN/pluginNNNNNNNNNN), itself at most 50 long with its
// separator.
func socketRoom() int {
	if runtime.GOOS == "linux" {
		return 107 - 38 - 50
	}
	return 103 - 38 - 50
}

// socketBase returns the directory to make the host's private directory in:
// tmp, the system's temporary directory, unless its name is too long for
// the sockets that go in it (as on macOS), and then /tmp.
func socketBase(tmp string) string {
	if len(tmp) > socketRoom() && runtime.GOOS != "windows" {
		return "/tmp"
	}
	return tmp
}

// staleDirs returns the directories where crashed hosts may have left their
// private directories.
func staleDirs() []string {
	tmp := os.TempDir()
	if base := socketBase(tmp); base != tmp {
		return []string{tmp, base}
	}
	return []string{tmp}
}

// killGrace is how long a plugin may take to stop when asked to, before it
// is killed.
const killGrace = 3 * time.Second

// client is a go-plugin client and the runner of its process.
type client struct {
	*plugin.Client
	runner atomic.Pointer[cmdRunner] // set once the process is about to start
}

// kill stops the plugin: go-plugin asks it to stop, waits 2 seconds for it
// to, then kills it. But the request is a call to the plugin that it may
// leave unanswered, and go-plugin waits for the answer until the process
// ends: so if go-plugin is not done after killGrace, the runner kills the
// process.
func (c *client) kill() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Kill()
	}()
	select {
	case <-done:
		return
	case <-time.After(killGrace):
	}
	if r := c.runner.Load(); r != nil {
		r.Kill(context.Background())
	}
	<-done
}

// process is a plugin executable, started on first use, and started again
// on the use after it ended.
type process struct {
	host *Host
	path string
	name string

	mu       sync.Mutex
	started  bool // a start was made; its outcome is client or err
	ran      bool // a start succeeded once: suffix is known
	failed   time.Time
	client   pb.CodecClient
	suffix   string // as the first start found it
	dataAddr string // the plugin's data socket, if it offers one and the host takes it
	err      error
	run      atomic.Pointer[client] // the go-plugin client, once started
}

// restartWait is how long after a failed restart of a plugin that ran the
// next use tries again, failing at once meanwhile.
const restartWait = time.Second

// codec returns the gRPC client of the running plugin, starting it first.
// A plugin that started but has ended since (a crash on one stream, the
// OOM killer) is started again, so that its end fails the streams it ran,
// not every later one; if that start fails, it is tried again on a use
// restartWait later. A plugin that never started is not tried again.
func (p *process) codec() (pb.CodecClient, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started && p.err == nil && p.ended() {
		p.host.forget(p.run.Load())
		p.started = false
	}
	if p.started && p.err != nil && p.ran && time.Since(p.failed) >= restartWait {
		p.started = false
	}
	if !p.started {
		p.started = true
		var suffix string
		p.client, suffix, p.err = p.start()
		switch {
		case p.err != nil:
			p.client, p.err = nil, p.wrap(p.err)
		case !p.ran:
			p.suffix, p.ran = suffix, true
		case suffix != p.suffix:
			p.host.forget(p.run.Load())
			p.client, p.err = nil, &pluginError{p.path, fmt.Errorf("suggests the suffix %s when started again, where it suggested %s",
				cleanText(strconv.Quote(suffix), 80), cleanText(strconv.Quote(p.suffix), 80))}
		}
		if p.err != nil {
			p.failed = time.Now()
		}
	}
	return p.client, p.err
}

// dataAddress returns the data socket of the plugin running now, or "".
func (p *process) dataAddress() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dataAddr
}

// ended reports whether the plugin's process has ended. p.mu is held.
func (p *process) ended() bool {
	c := p.run.Load()
	if c == nil {
		return false
	}
	r := c.runner.Load()
	if r == nil {
		return false
	}
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (p *process) start() (pb.CodecClient, string, error) {
	h := p.host
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, "", errors.New("host closed")
	}
	dir, err := h.privateDir()
	h.mu.Unlock()
	if err != nil {
		return nil, "", err
	}
	var exe *pinned
	if sum, ok := h.pins[p.name]; ok {
		if exe, err = pinExecutable(p.path, sum, dir); err != nil {
			return nil, "", err
		}
	}
	logger := h.logger.Named(p.name)
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  handshake,
		Plugins:          plugin.PluginSet{pluginName: &codecPlugin{}},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           logger,
		StartTimeout:     startTimeout,
		UnixSocketConfig: &plugin.UnixSocketConfig{TempDir: dir},
		SkipHostEnv:      true, // the runner passes what a plugin needs of it
		// What the plugin writes to os.Stdout and os.Stderr once Serve
		// runs: cleaned, at debug level unless the lines say otherwise.
		SyncStdout: &logRelay{logger: logger},
		SyncStderr: &logRelay{logger: logger},
	}
	c := &client{}
	p.run.Store(c)
	cfg.RunnerFunc = func(_ hclog.Logger, cmd *exec.Cmd, socketDir string) (runner.Runner, error) {
		r := newRunner(h.logger.Named(p.name), cmd, p.path, exe, socketDir)
		c.runner.Store(r)
		return r, nil
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		if exe != nil {
			exe.exited()
		}
		return nil, "", errors.New("host closed")
	}
	c.Client = plugin.NewClient(cfg)
	h.clients = append(h.clients, c)
	h.mu.Unlock()

	fail := func(err error) (pb.CodecClient, string, error) {
		c.kill()
		if exe != nil {
			exe.exited() // if the runner never ran
		}
		if r := c.runner.Load(); r != nil {
			select {
			case <-r.done: // its standard error is all read
			case <-time.After(exitWait):
			}
			if tail := r.log.last(); len(tail) > 0 {
				err = fmt.Errorf("%w; its standard error ended: %s", err, strings.Join(tail, " | "))
			}
		}
		return nil, "", err
	}
	proto, err := c.Client.Client()
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "incompatible api version") { // go-plugin has no error value for it
			err = fmt.Errorf("%w: %v", ErrProtocolVersion, err)
		}
		return fail(err)
	}
	raw, err := proto.Dispense(pluginName)
	if err != nil {
		return fail(err)
	}
	cc := raw.(clients)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	desc, err := cc.Describe(ctx, &pb.DescribeRequest{})
	if err != nil {
		return fail(p.callError(ctx, startTimeout, err))
	}
	if desc.GetName() != p.name {
		return fail(fmt.Errorf("serves codec %s, but its file name says %q", cleanText(strconv.Quote(desc.GetName()), 80), p.name))
	}
	if !validSuffix(desc.GetSuffix()) {
		return fail(fmt.Errorf("suggests the suffix %s, which cannot end a file name", cleanText(strconv.Quote(desc.GetSuffix()), 80)))
	}
	if p.dataAddr, err = c.dataAddress(desc.GetDataAddress()); err != nil {
		return fail(err)
	}
	if h.framesOnly {
		p.dataAddr = ""
	}
	return cc, desc.GetSuffix(), nil
}

// wrap names the plugin in an error of its process or connection. When the
// connection is gone because the process ended, the error says how it
// ended (its exit status or signal) instead.
func (p *process) wrap(err error) error {
	var pe *pluginError
	if err == nil || err == io.EOF || errors.As(err, &pe) {
		return err
	}
	if status.Code(err) == codes.Unavailable {
		if exit := p.exit(exitWait); exit != nil {
			err = exit
		}
	}
	return &pluginError{p.path, err}
}

// exitWait is how long an error of a lost connection waits for the plugin's
// process to be seen ending, to report how it ended.
const exitWait = time.Second

// exit returns how the plugin's process ended, waiting at most wait for it
// to end, or nil when it is still running.
func (p *process) exit(wait time.Duration) error {
	c := p.run.Load()
	if c == nil {
		return nil
	}
	r := c.runner.Load()
	if r == nil {
		return nil
	}
	select {
	case <-r.done:
	case <-time.After(wait):
		return nil
	}
	if r.err == nil {
		return errExited
	}
	return fmt.Errorf("%w: %v", errExited, r.err)
}

// callError is wrap for the error of a call with context ctx, whose time
// limit is limit: a timeout error if the call ran out of time.
func (p *process) callError(ctx context.Context, limit time.Duration, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &pluginError{p.path, timeoutError{limit}}
	}
	return p.wrap(err)
}
