package umask

import (
	"os"
	"strconv"
	"strings"
)

// Get returns this process's umask, from /proc/self/status (where reading
// it does not change it, as umask(2) would, racing with other threads), or
// 022 when it cannot be read.
func Get() os.FileMode {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0o022
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			if u, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return os.FileMode(u) & os.ModePerm
			}
		}
	}
	return 0o022
}
