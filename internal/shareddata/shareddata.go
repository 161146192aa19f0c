// Package shareddata finds the project's shared test data for tests: the
// reference vectors and corpora that live outside the repository, in
// ../shared/testdata beside the repository root, or wherever
// $B14FS_TESTDATA points.
package shareddata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EnvVar names the environment variable that overrides where the shared test
// data is.
const EnvVar = "B14FS_TESTDATA"

// Dir returns the directory sub of the shared test data (such as
// "base16384"), skipping the test with a message saying where it looked
// when that directory is absent.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	root := os.Getenv(EnvVar)
	if root == "" {
		// This file is internal/shareddata/shareddata.go in the repository.
		_, file, _, ok := runtime.Caller(0)
		if !ok || !filepath.IsAbs(file) {
			t.Skipf("shared test data: cannot locate the repository (built with -trimpath?); set %s", EnvVar)
		}
		root = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "testdata")
	}
	dir := filepath.Join(root, sub)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("shared test data not found at %s (set %s to its location)", dir, EnvVar)
	}
	return dir
}
