package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/internal/testing/testcodec"
	"github.com/b14fs/b14fs/plugins/rpc"
)

// TestMain lets the scripts run b14fs as a real process: the built-in
// codecs plus two small test codecs, hex and xor (origin "test"), and the
// plugins of $B14FS_PLUGIN_PATH.
func TestMain(m *testing.M) {
	testscript.Main(withPluginDir{m}, map[string]func(){
		"b14fs": func() {
			reg := builtin.Registry()
			for _, c := range []core.Codec{codectest.Hex{}, testcodec.Xor{Key: 0x5A}} {
				if err := reg.Register(c, "test"); err != nil {
					panic(err)
				}
			}
			os.Exit(runWithPlugins(os.Args[1:], reg))
		},
	})
}

// pluginDir is where the test plugin is built, once per test process (see
// buildPlugins): a directory that lives as long as the process, so that a
// test run again (-count) finds the plugins where the first run built them.
var pluginDir string

// withPluginDir runs the tests with pluginDir made, and removes it after.
type withPluginDir struct{ m *testing.M }

func (w withPluginDir) Run() int {
	dir, err := os.MkdirTemp("", "b14fs-plugins")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	pluginDir = dir
	return w.m.Run()
}

func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:  "testdata/script",
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"status": status, "waitfor": waitFor, "pty": ptyCmd},
		Setup: func(env *testscript.Env) error {
			env.Setenv("PLUGINS", pluginDir)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "plugins":
				err := buildPlugins()
				return err == nil, err
			case "fuse":
				return fuseAvailable(), nil
			case "pty":
				return ptyAvailable(), nil
			case "root":
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

var (
	pluginsOnce sync.Once
	pluginsErr  error
)

// buildPlugins builds the test plugin into pluginDir once, as the plugins
// hex2 (hex under another name), xor (whose name the test registry holds),
// xor2 (xor under another name, listing its option),
// crash, talker (which logs every way a plugin can), env (whose output is
// its environment), and the hostile forger
// and stall (see internal/testplugin).
func buildPlugins() error {
	pluginsOnce.Do(func() {
		dir := pluginDir
		bin := filepath.Join(dir, rpc.PluginPrefix+"hex2")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/b14fs/b14fs/plugins/rpc/internal/testplugin").CombinedOutput()
		if err != nil {
			pluginsErr = fmt.Errorf("building the test plugin: %v\n%s", err, out)
			return
		}
		for _, name := range []string{"xor", "xor2", "crash", "forger", "stall", "talker", "env"} {
			if err := os.Link(bin, filepath.Join(dir, rpc.PluginPrefix+name)); err != nil {
				pluginsErr = err
				return
			}
		}
	})
	return pluginsErr
}

// fuseAvailable reports whether this machine can mount FUSE file systems.
func fuseAvailable() bool {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return false
	}
	_, err := exec.LookPath("fusermount3")
	return err == nil
}

// waitfor PATH waits up to ten seconds for PATH to exist (! waitfor: to
// stop existing).
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitfor PATH")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ts.MkAbs(args[0])); (err == nil) != neg {
			return
		}
	}
	ts.Fatalf("waited 10s for %s to %s", args[0], map[bool]string{false: "appear", true: "go away"}[neg])
}

// status N PROG ARGS... runs PROG and checks that it exits with code N.
func status(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
