//go:build !linux

package rpc

import "os/exec"

// dieWithParent does nothing outside Linux: a plugin of a host that died
// without calling Host.Close ends when it next finds the connection gone.
func dieWithParent(*exec.Cmd) {}
