//go:build !linux

package rootfs

import "os"

// adviseSequential does nothing where the kernel takes no advice.
func adviseSequential(*os.File) {}
