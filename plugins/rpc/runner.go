package rpc

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"
)

// cmdRunner runs a plugin executable the way go-plugin's own runner does,
// but with no standard input (go-plugin would hand it the host's) and, where
// the system can, tied to the host's life.
type cmdRunner struct {
	cmd            *exec.Cmd
	stdout, stderr io.ReadCloser
}

var _ runner.Runner = (*cmdRunner)(nil)

func newRunner(_ hclog.Logger, cmd *exec.Cmd) (runner.Runner, error) {
	cmd.Stdin = nil
	dieWithParent(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	return &cmdRunner{cmd: cmd, stdout: stdout, stderr: stderr}, nil
}

func (r *cmdRunner) Start(context.Context) error { return r.cmd.Start() }
func (r *cmdRunner) Wait(context.Context) error  { return r.cmd.Wait() }
func (r *cmdRunner) Stdout() io.ReadCloser       { return r.stdout }
func (r *cmdRunner) Stderr() io.ReadCloser       { return r.stderr }
func (r *cmdRunner) Name() string                { return r.cmd.Path }
func (r *cmdRunner) Diagnose(context.Context) string {
	return "is it a b14fs plugin built for this system, calling rpc.Serve?"
}

func (r *cmdRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	if err := r.cmd.Process.Kill(); !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func (r *cmdRunner) ID() string {
	if r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *cmdRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *cmdRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}
