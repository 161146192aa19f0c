package base16384

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A vector is one reference encoding from the shared test data.
type vector struct {
	name       string
	plain, enc []byte
}

// testdataDir returns the shared base16384 test data directory, from
// $B14FS_TESTDATA or ../shared/testdata beside the module root, skipping the
// test when it is absent.
func testdataDir(t testing.TB) string {
	t.Helper()
	root := os.Getenv("B14FS_TESTDATA")
	if root == "" {
		dir, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				t.Skip("shared test data not found: no go.mod above the package; set B14FS_TESTDATA")
			}
			dir = parent
		}
		root = filepath.Join(dir, "..", "shared", "testdata")
	}
	dir := filepath.Join(root, "base16384")
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv")); err != nil {
		t.Skipf("shared test data not found in %s (set B14FS_TESTDATA): %v", dir, err)
	}
	return dir
}

// loadVectors reads every vector MANIFEST.tsv lists.
func loadVectors(t testing.TB) []vector {
	t.Helper()
	dir := testdataDir(t)
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	sc.Scan() // the header line
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), "\t")
		v := vector{name: name}
		if v.plain, err = os.ReadFile(filepath.Join(dir, name+".bin")); err != nil {
			t.Fatal(err)
		}
		if v.enc, err = os.ReadFile(filepath.Join(dir, name+".b14")); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatal("MANIFEST.tsv lists no vectors")
	}
	return vs
}

func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		if got := Encode(v.plain); !bytes.Equal(got, v.enc) {
			t.Errorf("%s: Encode = % X, want % X", v.name, head(got), head(v.enc))
		}
		got, err := AppendDecode(nil, v.enc)
		if err != nil || !bytes.Equal(got, v.plain) {
			t.Errorf("%s: AppendDecode: %v, output equal: %v", v.name, err, bytes.Equal(got, v.plain))
		}
		if got := DecodeString(EncodeToString(v.plain)); got != string(v.plain) {
			t.Errorf("%s: UTF-8 round trip differs", v.name)
		}
	}
}

// head returns at most the first 32 bytes of b, for messages.
func head(b []byte) []byte { return b[:min(len(b), 32)] }
