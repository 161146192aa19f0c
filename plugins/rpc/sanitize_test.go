package rpc

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

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

// FuzzLogRelay writes what a hostile plugin might to its standard error,
// in two writes split anywhere, and checks what reaches the host's log:
// one log line for each line the plugin ended (and one for an unended last
// line), each valid UTF-8 of printable characters, and a tail of at most
// tailLines such lines. (U+FFFD may show: encoding/json puts it for invalid
// UTF-8.)
func FuzzLogRelay(f *testing.F) {
	for _, seed := range []string{
		"",
		"plain\n",
		`{"@level":"warn","@message":"hi\u001b","n":3}` + "\n",
		`{"@level":"error","@message":"a\nb","k\u202e":{"x":[1,"\u0007"]}}` + "\n",
		`{"@message":"m","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}` + "\n",
		"[ERROR] bad\r\n\r\n",
		"panic: boom\n\tgoroutine 1\n\x1b[2J",
		"\xff\xfe\x00\n\u202eevil\n",
	} {
		f.Add([]byte(seed), uint16(len(seed)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		var out strings.Builder
		l := &logRelay{logger: hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Trace, DisableTime: true})}
		at := min(int(split), len(data))
		l.Write(data[:at])
		l.Write(data[at:])
		l.flush()
		want := bytes.Count(data, []byte{'\n'})
		if len(data) > 0 && data[len(data)-1] != '\n' {
			want++
		}
		lines := strings.SplitAfter(out.String(), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) != want {
			t.Fatalf("%q: %d log lines, want %d:\n%s", data, len(lines), want, out.String())
		}
		for _, line := range lines {
			if !strings.HasSuffix(line, "\n") || !printed(strings.TrimSuffix(line, "\n")) {
				t.Fatalf("%q: log line %q is not printable", data, line)
			}
		}
		tail := l.last()
		if len(tail) > tailLines {
			t.Fatalf("%q: tail of %d lines", data, len(tail))
		}
		for _, line := range tail {
			if !printed(line) {
				t.Fatalf("%q: tail line %q is not printable", data, line)
			}
		}
	})
}

// printed reports whether s is valid UTF-8 made of printable characters
// and spaces only, U+FFFD among them.
func printed(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) })
}
