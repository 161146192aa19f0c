package base16384

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/shareddata"
	"github.com/b14fs/b14fs/internal/testing/vectors"
)

// A vector is one reference encoding from the shared test data, read from
// its files (TestCompactVectors checks the same vectors without them).
type vector struct {
	name       string
	plain, enc []byte
}

// loadVectors reads every vector MANIFEST.tsv lists.
func loadVectors(t testing.TB) []vector {
	t.Helper()
	dir := shareddata.Dir(t, "base16384")
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
		got, err := StdEncoding.AppendDecode(nil, v.enc)
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

// TestCompactVectors checks every reference vector on any clone: the
// inputs are generated (internal/testing/vectors) and each encoding's SHA-256 is
// the reference's.
func TestCompactVectors(t *testing.T) {
	vs, err := vectors.Base16384()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		enc := Encode(v.Plain)
		if len(enc) != v.EncLen || sha256.Sum256(enc) != v.EncSHA256 {
			t.Errorf("%s: Encode gives %d bytes that are not the reference's %d", v.Name, len(enc), v.EncLen)
		}
		got, err := StdEncoding.AppendDecode(nil, enc)
		if err != nil || !bytes.Equal(got, v.Plain) {
			t.Errorf("%s: AppendDecode: %v, output equal: %v", v.Name, err, bytes.Equal(got, v.Plain))
		}
		if got := DecodeString(EncodeToString(v.Plain)); got != string(v.Plain) {
			t.Errorf("%s: UTF-8 round trip differs", v.Name)
		}
	}
}
