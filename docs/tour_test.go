package docs

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A tourStep is one command of the README's tour, as a user types it after
// the prompt, and the output the README shows for it (none: not checked).
type tourStep struct {
	line int // the command's line in README.md
	cmd  string
	want string
}

// tourSteps returns the commands of the README's "A 30-second tour": the
// indented lines that start with "$ ", each followed by its output.
func tourSteps(readme string) ([]tourStep, error) {
	start := strings.Index(readme, "## A 30-second tour")
	if start < 0 {
		return nil, fmt.Errorf("README.md has no tour")
	}
	firstLine := strings.Count(readme[:start], "\n") + 1
	section := readme[start:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	var steps []tourStep
	for i, line := range strings.Split(section, "\n") {
		text, indented := strings.CutPrefix(line, "    ")
		switch cmd, isCmd := strings.CutPrefix(text, "$ "); {
		case indented && isCmd:
			steps = append(steps, tourStep{line: firstLine + i, cmd: cmd})
		case indented && len(steps) > 0:
			steps[len(steps)-1].want += text + "\n"
		}
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("README.md's tour holds no command")
	}
	return steps, nil
}

// marker ends the output of a step in the transcript.
var marker = regexp.MustCompile(`\r?\n?@@step (\d+) done@@\r?\n`)

// TestReadmeTour runs the README's tour as its reader would: in one bash,
// on a terminal (script(1) gives it one, so that b14fs refuses binary
// output as the README shows), in a directory holding the README and a
// b14fs built from this tree, and checks every output the README shows. The
// command after one put in the background (a mount, a server) is tried
// again until it gives its output, as a reader waits for the server to
// start, for up to ten seconds.
func TestReadmeTour(t *testing.T) {
	for _, tool := range []string{"bash", "script", "curl", "fusermount3", "cmp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the tour needs %s: %v", tool, err)
		}
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("the tour mounts with FUSE: %v", err)
	}
	if ln, err := net.Listen("tcp", "127.0.0.1:8384"); err != nil {
		t.Skipf("the tour's b14fs serve needs port 8384: %v", err)
	} else {
		ln.Close()
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	steps, err := tourSteps(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "b14fs"), "../cmd/b14fs").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), readme, 0o644); err != nil {
		t.Fatal(err)
	}

	var sh strings.Builder
	sh.WriteString("cd " + dir + "\n")
	background := false
	for i, s := range steps {
		if background && s.want != "" {
			// The command after one in the background: wait for it.
			// Wait for the server, then show the output once.
			fmt.Fprintf(&sh, "want=%s\nfor try in $(seq 100); do out=$( %s 2>&1 ); [ \"$out\" = \"$want\" ] && break; sleep 0.1; done\nprintf '%%s\\n' \"$out\"\n",
				shellQuote(strings.TrimSuffix(s.want, "\n")), stripComment(s.cmd))
		} else {
			sh.WriteString(s.cmd + "\n")
		}
		fmt.Fprintf(&sh, "printf '\\n@@step %d done@@\\n'\n", i)
		background = isBackground(s.cmd)
	}
	sh.WriteString("fusermount3 -u plain 2>/dev/null; kill %% 2>/dev/null; wait\n")
	script := filepath.Join(dir, "tour.sh")
	if err := os.WriteFile(script, []byte(sh.String()), 0o755); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", "bash "+script, "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=dumb", "COLUMNS=100", "B14FS_PLUGIN_PATH="+dir)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tour: %v\n%s", err, out)
	}
	outputs := map[int]string{}
	rest := string(out)
	for {
		m := marker.FindStringSubmatchIndex(rest)
		if m == nil {
			break
		}
		var i int
		fmt.Sscan(rest[m[2]:m[3]], &i)
		outputs[i] = rest[:m[0]]
		rest = rest[m[1]:]
	}
	for i, s := range steps {
		got, ok := outputs[i]
		if !ok {
			t.Fatalf("README.md:%d: %s: the tour stopped before it\n%s", s.line, s.cmd, out)
		}
		want := s.want
		if i > 0 && isBackground(steps[i-1].cmd) {
			// What the command in the background says shows when it
			// says it: before or in the output of the next command.
			got, want = outputs[i-1]+got, steps[i-1].want+want
		} else if isBackground(s.cmd) {
			continue
		}
		got = strings.ReplaceAll(got, "\r\n", "\n")
		if want != "" && strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("README.md:%d: $ %s\ngot:\n%s\nthe README shows:\n%s", s.line, s.cmd, got, want)
		}
	}
}

// isBackground reports whether a command line runs in the background.
func isBackground(cmd string) bool {
	return strings.HasSuffix(strings.TrimSpace(stripComment(cmd)), "&")
}

// stripComment drops a shell comment at the end of a command line (the
// tour's commands hold no # in quotes).
func stripComment(cmd string) string {
	if i := strings.Index(cmd, " #"); i >= 0 {
		return cmd[:i]
	}
	return cmd
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestTourSteps(t *testing.T) {
	steps, err := tourSteps("# x\n\n## A 30-second tour\n\nText.\n\n    $ a | b   # c\n    out 1\n    out 2\n    $ d &\n\nMore.\n\n## Next\n\n    $ not this\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []tourStep{{7, "a | b   # c", "out 1\nout 2\n"}, {10, "d &", ""}}
	if fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Errorf("tourSteps = %v, want %v", steps, want)
	}
	if got := stripComment("./b14fs serve -q vault &   # the view"); strings.TrimSpace(got) != "./b14fs serve -q vault &" {
		t.Errorf("stripComment = %q", got)
	}
}
