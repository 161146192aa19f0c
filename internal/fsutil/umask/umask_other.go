//go:build !linux

package umask

import "os"

// Get returns 022, the usual umask: where the process's cannot be read
// without changing it (umask(2), which would race with other threads).
func Get() os.FileMode { return 0o022 }
