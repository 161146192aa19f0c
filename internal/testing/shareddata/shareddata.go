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

// Root returns the directory of the shared test data: $B14FS_TESTDATA, or
// ../shared/testdata beside the repository. It returns "" when that
// directory does not exist.
func Root() string {
	root := os.Getenv(EnvVar)
	if root == "" {
		// This file is internal/testing/shareddata/shareddata.go in the repository.
		_, file, _, ok := runtime.Caller(0)
		if !ok || !filepath.IsAbs(file) {
			return ""
		}
		root = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "testdata")
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return ""
	}
	return root
}

// Dir returns the directory sub of the shared test data (such as
// "base16384"), skipping the test with a message saying where to put the
// data when that directory is absent.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	root := Root()
	dir := filepath.Join(root, sub)
	if fi, err := os.Stat(dir); root == "" || err != nil || !fi.IsDir() {
		t.Skipf("shared test data %q not found: put it in ../shared/testdata beside the repository or set %s", sub, EnvVar)
	}
	return dir
}
