//go:build !unix

package rpc

import (
	"os"
	"os/exec"
)

// ownProcessGroup does nothing here: a plugin of a host that died without
// calling Host.Close ends when it next finds the connection gone.
func ownProcessGroup(*exec.Cmd) {}

// waitExited cannot wait without reaping here.
func waitExited(int) bool { return false }

// killGroup kills p.
func killGroup(p *os.Process) { p.Kill() }
