package rpc_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc"
)

// helperEnv makes the test binary a plugin host instead of running tests
// (see helperHost); helperDirEnv names its plugin directory.
const (
	helperEnv    = "B14FS_TEST_HELPER_HOST"
	helperDirEnv = "B14FS_TEST_HELPER_PLUGINS"
)

// helperHost is a host process for TestStaleDirectories. In mode "start" it
// starts the hex plugin, says "ready" on standard output and waits to be
// killed; in mode "discover" it only discovers the plugins, and exits.
func helperHost(mode string) {
	var reg core.Registry
	host, err := rpc.Discover(&reg, os.Getenv(helperDirEnv), rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		panic(err)
	}
	defer host.Close()
	if mode == "start" {
		hex, err := reg.Lookup("hex")
		if err != nil {
			panic(err)
		}
		if _, err := io.ReadAll(hex.NewEncodeReader(strings.NewReader("x"))); err != nil {
			panic(err)
		}
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute)
	}
}

// runHelper runs the test binary as a host in mode with TMPDIR tmp.
func runHelper(t *testing.T, mode, tmp string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDirEnv+"="+pluginDir, "TMPDIR="+tmp)
	cmd.Stderr = os.Stderr
	return cmd
}

// tree lists the files and directories under dir.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			names = append(names, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestStaleDirectories kills a host with SIGKILL while its plugin runs,
// and checks that the next host removes what it left in the temporary
// directory.
func TestStaleDirectories(t *testing.T) {
	// A short name: the sockets in it must fit in a socket address.
	tmp, err := os.MkdirTemp("/tmp", "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	crashed := runHelper(t, "start", tmp)
	out, err := crashed.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := crashed.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	crashed.Process.Kill()
	crashed.Wait()
	if line != "ready\n" {
		t.Fatalf("the host to crash said %q, %v", line, err)
	}
	left := tree(t, tmp)
	t.Logf("left by the crashed host: %v", left)
	if len(left) == 0 {
		t.Fatal("the crashed host left nothing behind: the test tests nothing")
	}
	for _, name := range left {
		if !strings.HasPrefix(name, ".plugins.b14fs-") {
			t.Errorf("%s: not in the host's private directory", name)
		}
	}
	if fi, err := os.Stat(filepath.Join(tmp, strings.Split(left[0], string(filepath.Separator))[0])); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the host's private directory: %v, %v, want mode 0700", fi.Mode(), err)
	}
	if out, err := runHelper(t, "discover", tmp).Output(); err != nil {
		t.Fatalf("the next host: %v\n%s", err, out)
	}
	if left := tree(t, tmp); len(left) > 0 {
		t.Errorf("left after the next host: %v", left)
	}
}
