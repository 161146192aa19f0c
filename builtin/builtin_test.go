package builtin_test

import (
	"testing"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/core"
)

func TestRegistry(t *testing.T) {
	var names []string
	for _, e := range builtin.Registry().List() {
		if e.Origin != core.OriginBuiltin {
			t.Errorf("%s: origin %q", e.Codec.Name(), e.Origin)
		}
		names = append(names, e.Codec.Name())
	}
	if len(names) != 2 || names[0] != "base16384" || names[1] != "bencode" {
		t.Errorf("built-in codecs %v, want [base16384 bencode]", names)
	}
	if a, b := builtin.Registry(), builtin.Registry(); a == b {
		t.Error("Registry returns a shared registry; each call must make a new one")
	}
}
