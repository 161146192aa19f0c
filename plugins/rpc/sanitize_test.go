package rpc

import (
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestCleanText(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain message: 0..255", 100, "plain message: 0..255"},
		{"ünïcödé ok", 100, "ünïcödé ok"},
		{"\x1b[31m\nFAKE", 100, `"\x1b[31m\nFAKE"`},
		{"tab\there", 100, `"tab\there"`},
		{"bidi \u202egnp.exe", 100, `"bidi \u202egnp.exe"`},
		{"bad \xff utf-8", 100, `"bad \xff utf-8"`},
		{strings.Repeat("a", 20), 10, strings.Repeat("a", 10) + "... (10 more bytes)"},
		{strings.Repeat("é", 6), 11, strings.Repeat("é", 5) + "... (2 more bytes)"},
		{"\x1b" + strings.Repeat("a", 20), 5, `"\x1baaaa"... (16 more bytes)`},
	} {
		if got := cleanText(c.in, c.max); got != c.want {
			t.Errorf("cleanText(%q, %d) = %s, want %s", c.in, c.max, got, c.want)
		}
	}
}

func TestValidSuffix(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, ".hex": true, ".tar.gz": true, ".b14": true,
		".": false, "..": false, "hex": false, "/../../x": false, ".a/b": false, `.a\b`: false,
		".a b": false, ".\x1b[2J": false, "." + strings.Repeat("x", 40): false,
	} {
		if validSuffix(s) != want {
			t.Errorf("validSuffix(%q) = %v, want %v", s, !want, want)
		}
	}
}

func TestSocketBase(t *testing.T) {
	if got := socketBase("/tmp"); got != "/tmp" {
		t.Errorf("socketBase(/tmp) = %s", got)
	}
	long := "/var/folders/7x/k2zq8r3n1g5b4c0000gn/T/"
	if got := socketBase(long); got != "/tmp" {
		t.Errorf("socketBase(%s) = %s, want /tmp: no room for the sockets", long, got)
	}
}

// TestLogRelay checks lines cut anywhere, JSON lines of the wrong types and
// a panic's trace.
func TestLogRelay(t *testing.T) {
	var out strings.Builder
	l := &logRelay{logger: hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Trace, DisableTime: true})}
	for _, chunk := range []string{
		`{"@level":"warn","@mess`, `age":"hi\u001b","n":3}` + "\n",
		`{"@level":7,"@message":["x"]}` + "\n",
		"[ERROR] bad\r\n",
		"panic: boom\n\tgoroutine 1\n",
		"no newline \x07",
	} {
		l.Write([]byte(chunk))
	}
	l.flush()
	want := `[WARN]  "hi\x1b": n=3
[DEBUG] {"@level":7,"@message":["x"]}
[ERROR] [ERROR] bad
[ERROR] panic: boom
[ERROR] "\tgoroutine 1"
[ERROR] "no newline \a"
`
	if out.String() != want {
		t.Errorf("relayed:\n%s\nwant:\n%s", out.String(), want)
	}
}
