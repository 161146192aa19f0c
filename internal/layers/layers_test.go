package layers

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/b14fs/b14fs"

// rank returns a project package's layer (higher layers may import lower
// ones) and its unit: packages of one unit may import each other.
func rank(pkg string) (layer int, unit string) {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	first, rest, _ := strings.Cut(rel, "/")
	switch first {
	case "core":
		return 0, "core"
	case "plugins":
		name, _, _ := strings.Cut(rest, "/")
		return 2, "plugins/" + name
	case "internal":
		// internal/ by kind: test fixtures (internal/testing/...) and
		// file helpers (internal/fsutil/...) are for every layer above
		// core, each kind one unit; anything else is a subsystem of the command (mount,
		// serve, remote storage), with its own helpers under it.
		kind, _, _ := strings.Cut(rest, "/")
		switch kind {
		case "testing", "fsutil":
			return 1, "internal/" + kind
		}
		return 5, "internal/" + kind

	case "transform":
		return 3, "transform"
	case "builtin":
		return 3, "builtin"
	case "torrent":
		// metainfo on top of the bencode codec: a user of a plugin, as
		// transform is, not a codec; it reads data through io/fs, so it
		// needs neither fsx nor transform, and only cmd uses it.
		return 3, "torrent"
	case "fsx":
		return 4, "fsx"
	case "cmd":
		return 6, rel
	}
	return 7, rel
}

func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 4 {
		t.Fatalf("go list found only %d packages", len(lines))
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		pkg := fields[0]
		layer, unit := rank(pkg)
		for _, imp := range fields[1:] {
			if err := check(pkg, layer, unit, imp); err != "" {
				t.Error(err)
			}
		}
	}
}

// check returns why pkg must not import imp, or "".
func check(pkg string, layer int, unit, imp string) string {
	if !strings.HasPrefix(imp, module+"/") {
		if unit == "core" && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
			return pkg + " imports " + imp + ": core uses the standard library only"
		}
		return ""
	}
	impLayer, impUnit := rank(imp)
	if impUnit == unit || impLayer < layer {
		return ""
	}
	return pkg + " imports " + imp + ": imports must point to a lower layer"
}

func TestCheck(t *testing.T) {
	tests := []struct {
		pkg, imp string
		ok       bool
	}{
		{"core", "io", true},
		{"core", "github.com/spf13/afero", false},
		{"core", "transform", false},
		{"plugins/base16384", "core", true},
		{"plugins/base16384", "plugins/base16384/internal/kernel", true},
		{"plugins/base16384", "plugins/bencode", false},
		{"plugins/bencode", "transform", false},
		{"transform", "core", true},
		{"transform", "fsx", false},
		{"fsx", "transform", true},
		{"fsx", "cmd/b14fs", false},
		{"cmd/b14fs", "fsx", true},
		{"cmd/b14fs", "internal/mount", true},
		{"internal/mount", "cmd/b14fs", false},
		{"fsx", "internal/mount", false},
		{"torrent", "plugins/bencode", true},
		{"torrent", "core", true},
		{"torrent", "transform", false},
		{"torrent", "fsx", false},
		{"torrent", "cmd/b14fs", false},
		{"plugins/bencode", "torrent", false},
		{"transform", "torrent", false},
		{"cmd/b14fs", "torrent", true},
		{"fsx", "internal/fsutil/atomicfile", true},
		{"plugins/base16384", "internal/testing/guardpage", true},
		{"internal/testing/difftest", "internal/testing/longtest", true},
		{"internal/testing/difftest", "fsx", false},
		{"internal/fsutil/atomicfile", "internal/serve", false},
		{"fsx", "internal/remote/s3fs", false},
		{"internal/remote/s3fs", "fsx", true},
	}
	for _, tt := range tests {
		pkg, imp := tt.pkg, tt.imp
		if imp != "io" && !strings.Contains(imp, ".") {
			imp = module + "/" + imp
		}
		layer, unit := rank(module + "/" + pkg)
		if got := check(pkg, layer, unit, imp) == ""; got != tt.ok {
			t.Errorf("%s importing %s: allowed = %v, want %v", pkg, tt.imp, got, tt.ok)
		}
	}
}
