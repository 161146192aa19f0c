package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// builtB14fs builds b14fs once per test process into a directory that
// lives as long as the process (pluginDir's) and returns its path.
func builtB14fs(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		builtBin = filepath.Join(pluginDir, "bin", "b14fs")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// cCLI returns the path of the C base16384 CLI, skipping the test when it
// is not installed.
func cCLI(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("base16384")
	if err != nil {
		t.Skip("the C base16384 CLI is not installed (Debian package base16384)")
	}
	return path
}

// result is what one run of a CLI did.
type result struct {
	status int
	out    []byte // the output file, or standard output for "-"
}

// runCLI runs prog with args in dir, standard input from stdin, and returns
// its exit status and the output: the file named outName, or standard
// output when outName is "-".
func runCLI(t *testing.T, dir string, stdin []byte, outName string, prog string, args ...string) result {
	t.Helper()
	os.Remove(filepath.Join(dir, outName))
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	r := result{}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.status = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if outName == "-" {
		r.out = stdout.Bytes()
	} else {
		r.out, _ = os.ReadFile(filepath.Join(dir, outName))
	}
	return r
}

// TestCompatMatchesC runs b14fs as base16384 (through a symbolic link, and
// as b14fs base16384) beside the C CLI on files of many sizes, both
// directions, files and standard streams: the outputs must be the same
// bytes, and the exit statuses the same. The two ways of running b14fs
// differ only in their arguments: b14fs base16384 runs on every third
// size, and on all of them with the long checks.
func TestCompatMatchesC(t *testing.T) {
	t.Parallel()
	c := cCLI(t)
	bin := builtB14fs(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "base16384")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	ours := map[string]func(args ...string) (string, []string){
		"symlink":         func(args ...string) (string, []string) { return link, args },
		"b14fs base16384": func(args ...string) (string, []string) { return bin, append([]string{"base16384"}, args...) },
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 14, 15, 100, 4095, 4096, 65533, 65534, 65535, 65536, 200003, 1<<20 + 3} {
		plain := make([]byte, n)
		for i := range plain {
			plain[i] = byte(rng.Uint32())
		}
		if err := os.WriteFile(filepath.Join(dir, "plain"), plain, 0o644); err != nil {
			t.Fatal(err)
		}
		encoded := runCLI(t, dir, nil, "enc", c, "-e", "plain", "enc")
		if err := os.WriteFile(filepath.Join(dir, "encoded"), encoded.out, 0o644); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name    string
			stdin   []byte
			outName string
			args    []string
		}{
			{"-e files", nil, "out", []string{"-e", "plain", "out"}},
			{"-e stdin stdout", plain, "-", []string{"-e", "-", "-"}},
			{"-te files", nil, "out", []string{"-te", "plain", "out"}},
			{"-d files", nil, "out", []string{"-d", "encoded", "out"}},
			{"-d stdin stdout", encoded.out, "-", []string{"-d", "-", "-"}},
			{"-dt files", nil, "out", []string{"-dt", "encoded", "out"}},
		}
		if n == 0 {
			// 2.2.2 exits 4 decoding a lone byte order mark, its encoding
			// of empty input; b14fs decodes it to nothing and exits 0.
			cases = cases[:3]
		}
		for _, tc := range cases {
			want := runCLI(t, dir, tc.stdin, tc.outName, c, tc.args...)
			if want.status != 0 {
				t.Fatalf("%d bytes, %s: the C CLI exits %d", n, tc.name, want.status)
			}
			for form, cmd := range ours {
				if form != "symlink" && i%3 != 0 && !longtest.Enabled() {
					continue
				}
				prog, args := cmd(tc.args...)
				got := runCLI(t, dir, tc.stdin, tc.outName, prog, args...)
				if got.status != want.status || !bytes.Equal(got.out, want.out) {
					t.Errorf("%d bytes, %s, %s: exit %d and %d bytes; the C CLI: exit %d and %d bytes", n, tc.name, form, got.status, len(got.out), want.status, len(want.out))
				}
			}
		}
		// What b14fs encodes, the C CLI decodes, and the other way round.
		prog, args := ours["symlink"]("-e", "plain", "ours")
		runCLI(t, dir, nil, "ours", prog, args...)
		if back := runCLI(t, dir, nil, "back", c, "-d", "ours", "back"); n > 0 && (back.status != 0 || !bytes.Equal(back.out, plain)) {
			t.Errorf("%d bytes: the C CLI does not decode b14fs's encoding back (exit %d)", n, back.status)
		}
	}
	// Failures: the same exit statuses.
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	for _, args := range [][]string{
		{},
		{"-e"},
		{"-e", "plain"},
		{"-e", "plain", "out", "extra"},
		{"e", "plain", "out"},
		{"-e", "missing", "out"},
		{"-e", "plain", "nodir/out"},
		{"-e", "plain", "adir"},
		{"-e", "adir", "out"},
	} {
		want := runCLI(t, dir, nil, "-", c, args...)
		for form, cmd := range ours {
			prog, a := cmd(args...)
			if got := runCLI(t, dir, nil, "-", prog, a...); got.status != want.status {
				t.Errorf("%s %q: exit %d, the C CLI exits %d", form, args, got.status, want.status)
			}
		}
	}
}

// TestCompatFlags checks the flags the C CLI has since 2.3 (Debian's 2.2.2
// lacks them), against its documentation: -n leaves out the byte order
// mark, -c (and -C) writes the checksum into the pad bits and verifies it
// (exit 10 when it does not match), and bad flag words are usage errors.
func TestCompatFlags(t *testing.T) {
	dir := t.TempDir()
	plain := []byte("hello, world") // 12 bytes: pad bits to hold a checksum
	os.WriteFile(filepath.Join(dir, "plain"), plain, 0o644)
	checksummed := base16384.New(base16384.Checksum, base16384.BOM).AppendEncode(nil, plain)
	corrupt := bytes.Clone(checksummed)
	corrupt[len(corrupt)-3] ^= 1 // a pad bit of the last data unit
	os.WriteFile(filepath.Join(dir, "sum"), checksummed, 0o644)
	os.WriteFile(filepath.Join(dir, "corrupt"), corrupt, 0o644)
	tests := []struct {
		args   []string
		status int
		out    []byte
	}{
		{[]string{"-en", "plain", "-"}, 0, base16384.Encode(plain)},
		{[]string{"-ne", "plain", "-"}, 0, base16384.Encode(plain)},
		{[]string{"-ec", "plain", "-"}, 0, checksummed},
		{[]string{"-eC", "plain", "-"}, 0, checksummed},
		{[]string{"-enc", "plain", "-"}, 0, checksummed[2:]},
		{[]string{"-dc", "sum", "-"}, 0, plain},
		{[]string{"-d", "sum", "-"}, 0, plain},
		{[]string{"-dc", "corrupt", "-"}, 10, nil},
		{[]string{"-ed", "plain", "-"}, 255, nil},
		{[]string{"-ee", "plain", "-"}, 255, nil},
		{[]string{"-t", "plain", "-"}, 255, nil},
		{[]string{"-ecC", "plain", "-"}, 255, nil},
		{[]string{"-x", "plain", "-"}, 255, nil},
		// An empty output name (an unset variable in a script) is no
		// name: the C CLI fails to open it, and writes nothing.
		{[]string{"-e", "plain", ""}, 2, nil},
		{[]string{"-d", "sum", ""}, 2, nil},
	}
	var stdout, stderr bytes.Buffer
	for _, tc := range tests {
		stdout.Reset()
		stderr.Reset()
		tc.args[1] = filepath.Join(dir, tc.args[1])
		got := runCompat(tc.args, stdio{in: bytes.NewReader(nil), out: &stdout, err: &stderr})
		switch {
		case got != tc.status:
			t.Errorf("%q: exit %d, want %d (%s)", tc.args, got, tc.status, stderr.String())
		case tc.status == 0 && !bytes.Equal(stdout.Bytes(), tc.out):
			t.Errorf("%q: wrote % X, want % X", tc.args, stdout.Bytes(), tc.out)
		case tc.status == compatUsage && !strings.Contains(stdout.String(), "-[ed][t][n][cC]"):
			t.Errorf("%q: usage not on standard output: %q", tc.args, stdout.String())
		case tc.status == compatOutput && (stdout.Len() > 0 || stderr.Len() == 0):
			t.Errorf("%q: wrote %d bytes and said %q; want nothing written and a message", tc.args, stdout.Len(), stderr.String())
		}
	}
}

// TestCompatDataError checks the message of input that does not decode:
// the codec's name once, then where and why.
func TestCompatDataError(t *testing.T) {
	in := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(in, []byte("\xfe\xff\x4e\x00\xfa\x17"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if got := runCompat([]string{"-d", in, "-"}, stdio{in: bytes.NewReader(nil), out: &stdout, err: &stderr}); got == 0 {
		t.Fatalf("exit 0 for bad input")
	}
	if msg := stderr.String(); !strings.HasPrefix(msg, "base16384: byte offset ") {
		t.Errorf("message %q, want base16384: byte offset ...", msg)
	}
}
