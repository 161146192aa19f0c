package atomicfile

import (
	"bytes"
	"os"
	"strconv"
)

// zombie reports whether the process with this ID has exited and waits for
// its parent to collect its status: its state in /proc/PID/stat, the field
// after the command name in parentheses (which may hold any byte, ')' too),
// is Z (or X, dead).
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	state := stat[i+2]
	return state == 'Z' || state == 'X'
}
