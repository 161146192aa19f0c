//go:build unix && !linux

package rpc

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the plugin in a process group of its own. A plugin
// of a host that died without calling Host.Close ends when it next finds the
// connection gone.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// waitExited cannot wait without reaping here: the group is killed only
// when the host stops the plugin, not when the plugin exits by itself.
func waitExited(int) bool { return false }

// killGroup kills the process group that p leads.
func killGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		p.Kill()
	}
}
