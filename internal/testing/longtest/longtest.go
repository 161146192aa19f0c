// Package longtest tells tests whether the long checks are asked for. By
// default `go test ./...` runs every check that can run here, each at a
// size that keeps the whole run quick; with B14FS_LONG=1 (as CI sets it)
// the long ones run too, and at full size: the mount's stress test for a
// minute, the differential tests over 100,000 operations, pjdfstest, the
// suites that start SeaweedFS and sshd, 1 GiB files and the tests that
// kill servers mid-request. -short keeps its meaning: quicker still.
package longtest

import (
	"os"
	"testing"
)

// EnvVar names the environment variable that asks for the long checks.
const EnvVar = "B14FS_LONG"

// Enabled reports whether the long checks are asked for: $B14FS_LONG is 1.
func Enabled() bool { return os.Getenv(EnvVar) == "1" }

// Skip skips t unless the long checks are asked for, saying what it does
// that makes it long and how to run it.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("%s: a long test, run with %s=1", what, EnvVar)
	}
}
