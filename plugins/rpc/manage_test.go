package rpc_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc"
)

// linkPlugins makes a directory holding the test plugins of names, as
// links to those of pluginDir.
func linkPlugins(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		if err := os.Link(filepath.Join(pluginDir, rpc.PluginPrefix+name), filepath.Join(dir, rpc.PluginPrefix+name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSkipped(t *testing.T) {
	first := linkPlugins(t, "hex")
	second := linkPlugins(t, "hex", "xor")
	for name, mode := range map[string]os.FileMode{
		rpc.PluginPrefix + "rot13": 0o644,
		"README":                   0o644,
		rpc.PluginPrefix + "a=b":   0o755,
	} {
		if err := os.WriteFile(filepath.Join(first, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(first, rpc.PluginPrefix+"dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	reg := new(core.Registry)
	reg.Register(lookup(t, discover(t), "xor"), core.OriginBuiltin)
	host, err := rpc.Discover(reg, first+string(os.PathListSeparator)+second, rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	got := make(map[string]string)
	for _, s := range host.Skipped() {
		got[strings.TrimPrefix(s.Path, filepath.Dir(first))] = s.Name + ": " + s.Reason
	}
	rel := func(dir, name string) string {
		return strings.TrimPrefix(filepath.Join(dir, name), filepath.Dir(first))
	}
	want := map[string]string{
		rel(first, "README"):                 ": not named b14fs-plugin-NAME",
		rel(first, rpc.PluginPrefix+"rot13"): "rot13: not executable (chmod +x it to use it)",
		rel(first, rpc.PluginPrefix+"dir"):   "dir: not a regular file",
		rel(first, rpc.PluginPrefix+"a=b"):   "a=b: the name after b14fs-plugin- is no codec name",
		rel(second, rpc.PluginPrefix+"hex"):  "hex: the plugin " + filepath.Join(first, rpc.PluginPrefix+"hex") + " serves the same codec and comes first",
		rel(second, rpc.PluginPrefix+"xor"):  `xor: codec already registered: "xor"`,
	}
	if len(got) != len(want) {
		t.Errorf("skipped %d files, want %d: %q", len(got), len(want), got)
	}
	for path, w := range want {
		if got[path] != w {
			t.Errorf("%s: skipped as %q, want %q", path, got[path], w)
		}
	}
}

func TestInspect(t *testing.T) {
	dir := linkPlugins(t, "hex", "xor", "v2", "crash")
	if err := os.WriteFile(filepath.Join(dir, rpc.PluginPrefix+"broken"), []byte("#!/bin/sh\necho starting >&2\necho no such config file >&2\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, rpc.PluginPrefix+"hex"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	pins := map[string][]byte{"hex": sum[:], "crash": make([]byte, sha256.Size)}
	var reg core.Registry
	host, err := rpc.Discover(&reg, dir, rpc.WithLogger(hclog.NewNullLogger()), rpc.WithPins(pins))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	got := make(map[string]rpc.Plugin)
	var names []string
	for _, p := range host.Inspect() {
		got[p.Name] = p
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "broken crash hex v2 xor" {
		t.Fatalf("Inspect described %v", names)
	}
	if p := got["hex"]; p.Err != nil || p.Protocol != rpc.ProtocolVersion || p.Suffix != ".hex" || !p.Pinned || !bytes.Equal(p.SHA256, sum[:]) {
		t.Errorf("hex, pinned right: %+v", p)
	}
	if p := got["xor"]; p.Err != nil || p.Protocol != rpc.ProtocolVersion || p.Pinned || !bytes.Equal(p.SHA256, sum[:]) ||
		fmt.Sprint(p.Options) != `[{key [] the byte to XOR with, 0..255} {mode [a b] "\x1b[2Jcleared"}]` {
		t.Errorf("xor, not pinned, listing its options (cleaned): %+v", p)
	}
	if p := got["hex"]; p.Options != nil {
		t.Errorf("hex lists options %v, but it takes none", p.Options)
	}
	// The registered codec lists them too (for completion of chains).
	if c, err := reg.Lookup("xor"); err != nil {
		t.Error(err)
	} else if l, ok := c.(core.OptionLister); !ok || fmt.Sprint(l.OptionDocs()) != fmt.Sprint(got["xor"].Options) {
		t.Errorf("the xor codec lists %v, want what Inspect found", c)
	}
	if p := got["crash"]; !errors.Is(p.Err, rpc.ErrPinMismatch) || !p.Pinned || p.Protocol != 0 {
		t.Errorf("crash, pinned wrong: %+v", p)
	}
	if p := got["v2"]; !errors.Is(p.Err, rpc.ErrProtocolVersion) || !strings.Contains(p.Err.Error(), "Plugin version: 2") {
		t.Errorf("v2, of protocol version 2: %+v", p)
	}
	if p := got["broken"]; p.Err == nil || !strings.Contains(p.Err.Error(), "b14fs-plugin-broken") ||
		!strings.Contains(p.Err.Error(), "its standard error ended: starting | no such config file") {
		t.Errorf("broken, which exits at once, saying why: %+v", p)
	}
}

// TestPluginLog checks that every line a plugin logs reaches the host's
// logger at debug level: through the log package, os.Stdout, os.Stderr
// and hclog's JSON form.
func TestPluginLog(t *testing.T) {
	for _, level := range []hclog.Level{hclog.Debug, hclog.Warn} {
		t.Run(level.String(), func(t *testing.T) {
			var out syncBuffer
			logger := hclog.New(&hclog.LoggerOptions{Output: &out, Level: level})
			reg := discover(t, rpc.WithLogger(logger))
			if got, err := pull(lookup(t, reg, "talker"), "x"); err != nil || string(got) != "78" {
				t.Fatalf("encode through talker: %q, %v", got, err)
			}
			lines := []string{"a line of the log package", "a line on os.Stdout", "a line on os.Stderr", "a debug line: k=v"}
			deadline := time.Now().Add(10 * time.Second)
			for level == hclog.Debug && time.Now().Before(deadline) && !containsAll(out.String(), lines) {
				time.Sleep(20 * time.Millisecond)
			}
			for _, line := range lines {
				if got := strings.Contains(out.String(), "talker: "+line); got != (level == hclog.Debug) {
					t.Errorf("at level %s, %q logged: %v\n%s", level, line, got, out.String())
				}
			}
		})
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestPluginEnvironment checks that a plugin gets none of the host's
// secrets: only the variables it needs, and those named in $B14FS_PLUGIN_ENV;
// and that its standard input is not the host's.
func TestPluginEnvironment(t *testing.T) {
	secrets := map[string]string{
		"B14FS_PASSWORD":        "hunter2",
		"AWS_SECRET_ACCESS_KEY": "aws-secret",
		"SSH_AUTH_SOCK":         "/tmp/ssh-agent.sock",
		"GITHUB_TOKEN":          "ghp_token",
		"PLUGIN_CLIENT_CERT":    "forged",
		"B14FS_PLUGIN_SHA256":   "hex=" + strings.Repeat("0", 64),
		"XDG_RUNTIME_DIR":       "/run/user/1000",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("XDG_CONFIG_HOME", "/home/me/.config")
	t.Setenv("B14FS_TEST_WANTED", "yes")
	t.Setenv(rpc.EnvPass, "B14FS_TEST_WANTED")
	got, err := pull(lookup(t, discover(t), "env"), "")
	if err != nil {
		t.Fatal(err)
	}
	env := make(map[string]string)
	for _, kv := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for k := range secrets {
		if v, ok := env[k]; ok {
			t.Errorf("the plugin got %s=%s", k, v)
		}
	}
	for k, v := range map[string]string{"LANG": "C.UTF-8", "XDG_CONFIG_HOME": "/home/me/.config", "B14FS_TEST_WANTED": "yes", "PATH": os.Getenv("PATH"), "B14FS_PLUGIN": "b14fs-codec-plugin-v1"} {
		if env[k] != v {
			t.Errorf("the plugin got %s=%q, want %q", k, env[k], v)
		}
	}
	if runtime.GOOS == "linux" && env["stdin"] != os.DevNull {
		t.Errorf("the plugin's standard input is %s, want %s", env["stdin"], os.DevNull)
	}
}

// TestSocketPermissions checks that the plugin's socket is reachable only
// by the host's user: it lies in a directory of mode 0700 in another of
// mode 0700, both the host's; and, run as root, that a process of another
// uid can neither connect to it, signal the plugin nor read its
// environment.
func TestSocketPermissions(t *testing.T) {
	var reg core.Registry
	host, err := rpc.Discover(&reg, pluginDir, rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if _, err := pull(lookup(t, &reg, "hex"), "x"); err != nil {
		t.Fatal(err)
	}
	dir := rpc.Dir(host)
	sockets, _ := filepath.Glob(filepath.Join(dir, "plugin-dir*", "plugin*"))
	if len(sockets) != 1 {
		t.Fatalf("sockets in %s: %v, want one", dir, sockets)
	}
	socket := sockets[0]
	for _, d := range []string{dir, filepath.Dir(socket)} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if fi.Mode()&os.ModePerm != 0o700 || int(st.Uid) != os.Getuid() {
			t.Errorf("%s: mode %v, owner %d; want 0700 and %d", d, fi.Mode(), st.Uid, os.Getuid())
		}
	}
	if fi, err := os.Stat(socket); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("%s: %v, %v; want a socket", socket, fi, err)
	}

	if os.Getuid() != 0 {
		t.Skip("not root: cannot try the socket as another uid")
	}
	python := "/usr/bin/python3" // where another uid can run it
	if _, err := os.Stat(python); err != nil {
		t.Skip("no /usr/bin/python3 to try the socket as another uid")
	}
	pid := rpc.PID(host, "hex")
	script := fmt.Sprintf(`
import os, socket
def attempt(what, f):
    try:
        f()
        print(what, "allowed")
    except PermissionError:
        print(what, "denied")
s = socket.socket(socket.AF_UNIX)
attempt("connect", lambda: s.connect(%q))
attempt("signal", lambda: os.kill(%d, 0))
attempt("environ", lambda: open("/proc/%d/environ").read())
attempt("mem", lambda: open("/proc/%d/mem").read(1))
`, socket, pid, pid, pid)
	cmd := exec.Command(python, "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("cannot run python3 as uid 65534: %v\n%s", err, out)
	}
	if want := "connect denied\nsignal denied\nenviron denied\nmem denied\n"; string(out) != want {
		t.Errorf("as uid 65534:\n%s\nwant\n%s", out, want)
	}
	if _, err := pull(lookup(t, &reg, "hex"), "y"); err != nil {
		t.Errorf("the plugin after the attempts: %v", err)
	}
}
