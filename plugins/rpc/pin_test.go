package rpc_test

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc"
)

func TestParsePins(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	for _, c := range []struct {
		spec string
		want string // the pinned names, or the error's text
	}{
		{"", ""},
		{" , ", ""},
		{"hex=" + sum, "hex"},
		{"# pins, NAME=HEX\nhex=" + sum + "\n\n  # more\nxor=" + sum + "\n", "hex xor"},
		{" hex = " + sum + " ,xor=" + strings.ToUpper(sum) + ",", "hex xor"},
		{"hex", `error: plugin pin "hex": want NAME=<64 hex digits>`},
		{"hex=12", `error: plugin pin "hex=12"`},
		{"hex=" + sum + "00", `error: plugin pin "hex=` + sum + `00"`},
		{"hex=" + strings.Repeat("g", 64), "error: plugin pin"},
		{"=" + sum, "error: plugin pin"},
		{"a:b=" + sum, "error: plugin pin"},
		{"a\x1bb=" + sum, `error: plugin pin "a\x1bb=`},
		{"hex=" + sum + ",#x=" + sum, `error: plugin pin "#x=`},
		{"hex=" + sum + ",hex=" + sum, "error: plugin pin \"hex=" + sum + "\": hex is pinned twice"},
	} {
		pins, err := rpc.ParsePins(c.spec)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			var names []string
			for name, s := range pins {
				if fmt.Sprintf("%x", s) != sum {
					t.Errorf("ParsePins(%q): %s pinned to %x", c.spec, name, s)
				}
				names = append(names, name)
			}
			slices.Sort(names)
			got = strings.Join(names, " ")
		}
		if !strings.HasPrefix(got, c.want) || (c.want == "" && got != "") {
			t.Errorf("ParsePins(%q) = %s, want %s", c.spec, got, c.want)
		}
	}
}

// pluginSum returns the SHA-256 sum of the test plugin.
func pluginSum(t *testing.T) [32]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(pluginDir, rpc.PluginPrefix+"hex"))
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// TestUnknownPin checks that a pin of a name no plugin has, say a
// misspelled one, fails closed: Discover reports it by name and registers
// no plugin, so none runs unpinned.
func TestUnknownPin(t *testing.T) {
	pins, err := rpc.ParsePins(fmt.Sprintf("XOR=%x,hex=%x", pluginSum(t), pluginSum(t)))
	if err != nil {
		t.Fatal(err)
	}
	var reg core.Registry
	host, err := rpc.Discover(&reg, pluginDir, rpc.WithPins(pins), rpc.WithLogger(hclog.NewNullLogger()))
	if host != nil || err == nil || !strings.Contains(err.Error(), `pinned plugin "XOR" not found`) {
		t.Errorf("Discover with a pin of XOR: %v, %v; want no host and an error naming XOR", host, err)
	}
	if entries := reg.List(); len(entries) != 0 {
		t.Errorf("Discover that failed registered %v", entries)
	}
}

// TestPinnedBytesRun replaces a pinned plugin's file between the check of
// its sum and the start of its process: what runs must be what was checked.
func TestPinnedBytesRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, rpc.PluginPrefix+"hex")
	if err := os.Link(filepath.Join(pluginDir, rpc.PluginPrefix+"hex"), path); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "impostor-ran")
	impostor := filepath.Join(dir, "impostor")
	if err := os.WriteFile(impostor, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	swapped := false
	defer rpc.SetTestHookPinned(func(p string) {
		if p == path {
			swapped = os.Rename(impostor, path) == nil // as mv -f does
		}
	})()
	pins, err := rpc.ParsePins(fmt.Sprintf("hex=%x", pluginSum(t)))
	if err != nil {
		t.Fatal(err)
	}
	var reg core.Registry
	host, err := rpc.Discover(&reg, dir, rpc.WithPins(pins), rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	got, err := io.ReadAll(lookup(t, &reg, "hex").NewEncodeReader(strings.NewReader("ok")))
	if !swapped {
		t.Fatal("the hook did not swap the file")
	}
	if _, serr := os.Stat(marker); serr == nil {
		t.Errorf("the file swapped in after the check ran")
	}
	if err != nil || string(got) != "6f6b" {
		t.Errorf("encode through the pinned plugin: %q, %v", got, err)
	}
}

// TestPinnedScript checks that a pinned plugin that is a "#!" script runs:
// it is run from a descriptor it must still have open.
func TestPinnedScript(t *testing.T) {
	dir := t.TempDir()
	script := []byte("#!/bin/sh\nexec '" + filepath.Join(pluginDir, rpc.PluginPrefix+"hex") + "'\n")
	if err := os.WriteFile(filepath.Join(dir, rpc.PluginPrefix+"hex"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	pins, err := rpc.ParsePins(fmt.Sprintf("hex=%x", sha256.Sum256(script)))
	if err != nil {
		t.Fatal(err)
	}
	var reg core.Registry
	host, err := rpc.Discover(&reg, dir, rpc.WithPins(pins), rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if got, err := pull(lookup(t, &reg, "hex"), "ok"); err != nil || string(got) != "6f6b" {
		t.Errorf("encode through a pinned script: %q, %v", got, err)
	}
}

// FuzzParsePins checks that ParsePins never panics, that what it accepts
// is well formed, and that FormatPins writes it back as it reads it.
func FuzzParsePins(f *testing.F) {
	sum := strings.Repeat("ab", 32)
	for _, seed := range []string{"", "hex=" + sum, "# c, d\nhex=" + sum + ",xor=" + sum + "\n", "hex=12", "=" + sum, "a\x1bb=" + sum, "hex=" + sum + ",hex=" + sum} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pins, err := rpc.ParsePins(s)
		if err != nil {
			return
		}
		again, err := rpc.ParsePins(string(rpc.FormatPins(pins)))
		if err != nil || fmt.Sprint(again) != fmt.Sprint(pins) {
			t.Fatalf("ParsePins(FormatPins(%v)) = %v, %v", pins, again, err)
		}
		for name, sum := range pins {
			if len(sum) != sha256.Size || name == "" || strings.ContainsAny(name, ",=:\n") || strings.HasPrefix(name, "#") {
				t.Fatalf("pin %q=%x accepted", name, sum)
			}
		}
	})
}
