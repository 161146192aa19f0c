package fsx_test

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/b14fs/b14fs/internal/testing/shareddata"
	"github.com/b14fs/b14fs/internal/testing/vectors"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestReferenceVectors reads the reference base16384 vectors (NAME.b14
// holding the encoding of NAME.bin) through fsx over a read-only OsFs: the
// shared test data's files when they are there, and otherwise files made
// from the compact vectors, whose encodings are checked against the
// reference's SHA-256 first.
func TestReferenceVectors(t *testing.T) {
	t.Parallel()
	dir := shareddata.Root()
	if dir != "" {
		dir = filepath.Join(dir, "base16384")
	} else {
		dir = compactVectorFiles(t)
	}
	base := afero.NewReadOnlyFs(afero.NewBasePathFs(afero.NewOsFs(), dir))
	fsys := newFs(t, base, base16384.NewCodec())
	bins, err := filepath.Glob(filepath.Join(dir, "*.bin"))
	if err != nil || len(bins) == 0 {
		t.Fatalf("no vectors in %s: %v", dir, err)
	}
	var names []string
	for _, bin := range bins {
		name := strings.TrimSuffix(filepath.Base(bin), ".bin")
		want, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		checkContent(t, fsys, name, want)
		f, err := fsys.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(want)/500) // every offset of the small vectors
		for off := 0; off < len(want); off += step {
			p := make([]byte, min(10, len(want)-off))
			if _, err := f.ReadAt(p, int64(off)); err != nil || !bytes.Equal(p, want[off:off+len(p)]) {
				t.Fatalf("%s: ReadAt(%d) = %x, %v", name, off, p, err)
			}
		}
		f.Close()
		names = append(names, name)
	}
	if err := fstest.TestFS(afero.NewIOFS(fsys), names...); err != nil {
		t.Fatal(err)
	}
}

// compactVectorFiles writes the compact reference vectors as NAME.bin and
// NAME.b14 files into a new directory.
func compactVectorFiles(t *testing.T) string {
	vs, err := vectors.Base16384()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, v := range vs {
		enc := base16384.Encode(v.Plain)
		if sha256.Sum256(enc) != v.EncSHA256 {
			t.Fatalf("%s: Encode differs from the reference", v.Name)
		}
		for name, data := range map[string][]byte{v.Name + ".bin": v.Plain, v.Name + ".b14": enc} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}
