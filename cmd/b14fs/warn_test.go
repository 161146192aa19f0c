package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/builtin"
)

// TestChainWarnings checks that the bencode stages of every chain b14fs
// makes report their warnings on standard error: the chains of encode and
// decode (runCodec), and those of the views of mount, serve and the
// torrent commands (globals.newChain).
func TestChainWarnings(t *testing.T) {
	const want = "b14fs: warning: bencode: 1 byte of whitespace after the top-level value at byte offset 2\n"
	var out, errOut bytes.Buffer
	g := newGlobals(stdio{nil, &out, &errOut}, builtin.Registry())

	c, err := g.newChain("bencode=lenient=true")
	if err != nil {
		t.Fatal(err)
	}
	r := c.NewDecodeReader(strings.NewReader("de\n"))
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(got) != "{}\n" || errOut.String() != want {
		t.Errorf("newChain: decoded %q, %v; standard error %q, want %q", got, err, errOut.String(), want)
	}

	errOut.Reset()
	file := filepath.Join(t.TempDir(), "newline.torrent")
	if err := os.WriteFile(file, []byte("de\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := codecFlags{chain: "bencode=lenient=true", convert: convertFlags{progress: "never"}}
	if err := runCodec(g, decodeDirection, f, file); err != nil || out.String() != "{}\n" || errOut.String() != want {
		t.Errorf("runCodec: %v; output %q, standard error %q, want %q", err, out.String(), errOut.String(), want)
	}
}
