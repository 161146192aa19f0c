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
	if got := Dir(t, "x"); got != filepath.Join(root, "x") {
		t.Errorf("Dir = %s, want %s/x", got, root)
	}
}

func TestDirSkipsWhenAbsent(t *testing.T) {
	t.Setenv(EnvVar, t.TempDir())
	skipped := true
	t.Run("absent", func(t *testing.T) {
		Dir(t, "missing")
		skipped = false
	})
	if !skipped {
		t.Error("Dir did not skip for a missing directory")
	}
}
