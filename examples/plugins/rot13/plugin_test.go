package rot13_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/plugins/rpc"
)

// TestPlugin builds the plugin executable and runs the same checks on it
// through a b14fs host, across the process boundary, as b14fs would use it.
func TestPlugin(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir, "./cmd/b14fs-plugin-rot13").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var reg core.Registry
	host, err := rpc.Discover(&reg, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	codec, err := reg.Lookup("rot13")
	if err != nil {
		t.Fatalf("the host did not find the plugin in %s: %v", dir, err)
	}
	codectest.TestCodec(t, codec, inputs...)

	if s := codec.(core.Suffixer).Suffix(); s != ".rot13" {
		t.Errorf("suffix %q through the plugin, want .rot13", s)
	}
	shift1, err := core.Configure(codec, core.Options{{Key: "shift", Value: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(shift1.NewEncodeReader(strings.NewReader("HAL")))
	if err != nil || string(got) != "IBM" {
		t.Errorf("shift=1 of HAL through the plugin = %q, %v", got, err)
	}
	_, err = core.Configure(codec, core.Options{{Key: "shift", Value: "26"}})
	var oe *core.OptionError
	if !errors.As(err, &oe) || !errors.Is(err, core.ErrBadOptionValue) || oe.Key != "shift" {
		t.Errorf("shift=26 through the plugin: %v, want a bad option value", err)
	}
	if _, err := os.Stat(filepath.Join(dir, rpc.PluginPrefix+"rot13")); err != nil {
		t.Errorf("the executable's name: %v", err)
	}
}
