package rpc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"
)

// waitDelay bounds how long the host waits for a plugin's output pipes to
// close once the plugin has exited (a process that escaped its group can
// hold them open).
const waitDelay = 2 * time.Second

// cmdRunner runs a plugin executable for go-plugin, in its own way:
//
//   - the plugin gets no standard input (go-plugin would hand it the host's),
//     and of the host's environment only what pluginEnv lets through;
//   - it runs in a process group of its own, killed as a whole when the
//     plugin is stopped or exits, so that its children do not outlive it;
//     where the system can, the kernel kills the plugin when the host dies;
//   - a pinned plugin runs from the very bytes that were checked (exe);
//   - its standard error (its log) goes through a logRelay that cleans every
//     line, instead of to go-plugin, which would print it as it is;
//   - the address it announces must be a Unix socket in the directory it was
//     given.
type cmdRunner struct {
	cmd       *exec.Cmd
	path      string // the executable's path, for messages
	exe       *pinned
	socketDir string
	log       *logRelay
	stdout    *io.PipeReader
	stdoutW   *io.PipeWriter

	mu     sync.Mutex
	proc   *os.Process // once started
	exited bool        // the process has exited: its group must not be signalled

	done chan struct{} // closed once the process is reaped, after err is set
	err  error
}

var _ runner.Runner = (*cmdRunner)(nil)

// newRunner prepares cmd to run the plugin at path (from exe, if pinned),
// logging to logger.
func newRunner(logger hclog.Logger, cmd *exec.Cmd, path string, exe *pinned, socketDir string) *cmdRunner {
	cmd.Path, cmd.Args = path, []string{path}
	if exe != nil {
		cmd.Path, cmd.ExtraFiles = exe.path, exe.extraFiles()
	}
	cmd.Stdin = nil
	cmd.Env = append(pluginEnv(os.Environ(), os.Getenv(EnvPass)), cmd.Env...)
	ownProcessGroup(cmd)
	r := &cmdRunner{cmd: cmd, path: path, exe: exe, socketDir: socketDir, log: &logRelay{logger: logger}, done: make(chan struct{})}
	r.stdout, r.stdoutW = io.Pipe()
	cmd.Stdout, cmd.Stderr = &lineCutter{w: r.stdoutW}, r.log
	cmd.WaitDelay = waitDelay
	return r
}

func (r *cmdRunner) Start(context.Context) error {
	err := r.cmd.Start()
	if r.exe != nil {
		r.exe.started() // the child has its copy of the executable's descriptor
	}
	if err != nil {
		r.err = err
		close(r.done)
		r.stdoutW.Close()
		return err
	}
	r.mu.Lock()
	r.proc = r.cmd.Process
	r.mu.Unlock()
	go r.reap()
	return nil
}

// reap waits for the plugin to exit, kills what is left of its process
// group while the group's number cannot yet be reused, and then collects the
// process and the end of its output.
func (r *cmdRunner) reap() {
	unreaped := waitExited(r.cmd.Process.Pid)
	r.mu.Lock()
	if unreaped {
		killGroup(r.cmd.Process)
	}
	r.exited = true
	r.mu.Unlock()
	r.err = r.cmd.Wait()
	r.log.flush()
	r.stdoutW.Close()
	if r.exe != nil {
		r.exe.exited()
	}
	close(r.done)
}

func (r *cmdRunner) Wait(ctx context.Context) error {
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Kill kills the plugin and its process group.
func (r *cmdRunner) Kill(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc != nil && !r.exited {
		killGroup(r.proc)
	}
	return nil
}

// Stdout is where go-plugin reads the plugin's handshake.
func (r *cmdRunner) Stdout() io.ReadCloser { return r.stdout }

// Stderr is empty: the runner relays the plugin's log itself.
func (r *cmdRunner) Stderr() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }

func (r *cmdRunner) Name() string { return r.path }

func (r *cmdRunner) Diagnose(context.Context) string {
	return "is it a b14fs plugin built for this system, calling rpc.Serve?"
}

func (r *cmdRunner) ID() string {
	if r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

// PluginToHost accepts only the address go-plugin's server makes: a Unix
// socket in the directory the host gave the plugin. Any other would have the
// host connect wherever the plugin says.
func (r *cmdRunner) PluginToHost(network, addr string) (string, string, error) {
	if runtime.GOOS == "windows" {
		return network, addr, nil
	}
	if network != "unix" || r.socketDir == "" || filepath.Dir(filepath.Clean(addr)) != filepath.Clean(r.socketDir) {
		return "", "", fmt.Errorf("plugin announced address %s %s, not a socket in %s", cleanText(network, 16), cleanText(addr, 256), r.socketDir)
	}
	return network, addr, nil
}

func (r *cmdRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// maxStdoutLine is the longest line of a plugin's standard output that
// reaches go-plugin, well under the 64 KiB at which its reader stops.
const maxStdoutLine = 16 << 10

// lineCutter passes a plugin's standard output on to w, ending each line
// that runs past maxStdoutLine bytes with a newline. go-plugin reads the
// output a line at a time and stops for good at a line too long for it:
// the plugin's output then blocks, and with it the wait for the plugin to
// end, for ever (a line of junk in place of the handshake, or a child's
// output). Cut, such a line is a few lines of junk, which go-plugin reports
// (in place of the handshake) or logs.
type lineCutter struct {
	w   io.Writer
	run int // bytes of the current line passed on
}

func (c *lineCutter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		chunk := p[:min(len(p), maxStdoutLine-c.run)]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			chunk = chunk[:i+1]
		}
		m, err := c.w.Write(chunk)
		n += m
		if err != nil {
			return n, err
		}
		p = p[len(chunk):]
		c.run += len(chunk)
		switch {
		case chunk[len(chunk)-1] == '\n':
			c.run = 0
		case c.run == maxStdoutLine:
			if _, err := c.w.Write([]byte{'\n'}); err != nil {
				return n, err
			}
			c.run = 0
		}
	}
	return n, nil
}
