package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFromEnv(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "x"), 0o755)
	t.Setenv(EnvVar, root)
	if got := Root(); got != root {
		t.Errorf("Root = %s, want %s", got, root)
	}
	if got := Dir(t, "x"); got != filepath.Join(root, "x") {
		t.Errorf("Dir = %s, want %s/x", got, root)
	}
}

func TestAbsent(t *testing.T) {
	t.Setenv(EnvVar, filepath.Join(t.TempDir(), "nowhere"))
	if got := Root(); got != "" {
		t.Errorf("Root = %q for a missing directory, want \"\"", got)
	}
	skipped := true
	t.Run("absent", func(t *testing.T) {
		Dir(t, "missing")
		skipped = false
	})
	if !skipped {
		t.Error("Dir did not skip for a missing directory")
	}
}
