package rpc

import (
	"bytes"
	"strings"
	"testing"
)

// TestLineCutter writes lines of every length around the limit, in pieces
// of several sizes: every line that reaches go-plugin is at most
// maxStdoutLine bytes, and taking out the newlines added gives the input.
func TestLineCutter(t *testing.T) {
	var in strings.Builder
	for _, n := range []int{0, 1, maxStdoutLine - 1, maxStdoutLine, maxStdoutLine + 1, 3*maxStdoutLine + 5} {
		in.WriteString(strings.Repeat("x", n) + "\n")
	}
	in.WriteString(strings.Repeat("z", 2*maxStdoutLine)) // no newline at the end
	for _, piece := range []int{1, 7, 4096, maxStdoutLine + 3, in.Len()} {
		var out bytes.Buffer
		c := &lineCutter{w: &out}
		for p := []byte(in.String()); len(p) > 0; {
			k := min(piece, len(p))
			if n, err := c.Write(p[:k]); n != k || err != nil {
				t.Fatalf("pieces of %d: Write = %d, %v; want %d", piece, n, err, k)
			}
			p = p[k:]
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if len(line) > maxStdoutLine {
				t.Errorf("pieces of %d: a line of %d bytes", piece, len(line))
			}
		}
		if got := strings.ReplaceAll(out.String(), "\n", ""); got != strings.ReplaceAll(in.String(), "\n", "") {
			t.Errorf("pieces of %d: the output holds other bytes than the input", piece)
		}
	}
}
