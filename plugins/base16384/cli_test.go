package base16384

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCLIInterop checks this package against the reference C command line
// tool, base16384, when it is installed: what it encodes decodes here, and
// what is encoded here (with or without a byte order mark) it decodes.
func TestCLIInterop(t *testing.T) {
	cli, err := exec.LookPath("base16384")
	if err != nil {
		t.Skip("the base16384 command line tool is not installed")
	}
	dir := t.TempDir()
	run := func(flag string, in []byte) []byte {
		t.Helper()
		src, dst := filepath.Join(dir, "in"), filepath.Join(dir, "out")
		if err := os.WriteFile(src, in, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(cli, flag, src, dst).CombinedOutput(); err != nil {
			t.Fatalf("base16384 %s: %v: %s", flag, err, out)
		}
		out, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 13, 14, 100, 4096, 65533, 65534, 65535, 70000, 200003} {
		plain := make([]byte, n)
		for i := range plain {
			plain[i] = byte(rng.Uint32())
		}
		enc := run("-e", plain)
		if got, err := StdEncoding.AppendDecode(nil, enc); err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%d bytes: decoding the tool's output: %v", n, err)
		}
		want := append([]byte{0xFE, 0xFF}, Encode(plain)...)
		if n < 65534 && !bytes.Equal(enc, want) { // v2.3.2 leaves stale pad bits in larger outputs
			t.Errorf("%d bytes: the tool's output differs from a BOM and Encode", n)
		}
		for _, in := range [][]byte{Encode(plain), want} {
			if got := run("-d", in); !bytes.Equal(got, plain) {
				t.Errorf("%d bytes: the tool decodes Encode's output (BOM: %v) wrongly", n, in[0] == 0xFE)
			}
		}
	}
}
