package rpc

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the plugin when the host dies.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
