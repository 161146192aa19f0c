package vectors

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/shareddata"
)

func TestBase16384(t *testing.T) {
	vs, err := Base16384()
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 114 {
		t.Errorf("%d vectors, want the manifest's 114", len(vs))
	}
}

// TestSameAsShared checks the embedded manifest and the generated inputs
// against the shared test data, when it is there.
func TestSameAsShared(t *testing.T) {
	dir := shareddata.Dir(t, "base16384")
	shared, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, manifest) {
		t.Error("testdata/base16384.tsv differs from the shared MANIFEST.tsv")
	}
	vs, err := Base16384()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		want, err := os.ReadFile(filepath.Join(dir, v.Name+".bin"))
		if err != nil || !bytes.Equal(v.Plain, want) {
			t.Errorf("%s: generated input differs from the shared .bin (%v)", v.Name, err)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, name := range []string{"rand", "rand_x", "zeros_-1", "ascii_9", "other_3"} {
		if _, err := Generate(name); err == nil {
			t.Errorf("Generate(%q) succeeded", name)
		}
	}
}
