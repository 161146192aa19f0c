//go:build !linux

package main

import (
	"fmt"
	"runtime"
)

// runMount reports that mounts are made on Linux only.
func runMount(*globals, mountFlags, string, string) error {
	return fmt.Errorf("FUSE mounts are made on Linux only, not on %s: b14fs serve shows DIR decoded over WebDAV and HTTP instead", runtime.GOOS)
}
