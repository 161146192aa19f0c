package python_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/plugins/rpc"
)

// python returns a Python 3 interpreter with grpcio and grpc_tools,
// skipping the test when there is none.
func python(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(name)
		if err == nil && exec.Command(path, "-c", "import grpc, grpc_tools.protoc").Run() == nil {
			return path
		}
	}
	t.Skip("no python3 with grpcio and grpc_tools (Debian: apt-get install python3-grpcio python3-grpc-tools)")
	return ""
}

// install puts the plugin in a new directory, run by interpreter, with the
// Python modules of the project's codec.proto beside it, made now by
// grpc_tools, and returns the directory.
func install(t *testing.T, interpreter string) string {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile("b14fs-plugin-pyxor")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := bytes.Cut(script, []byte("\n"))
	script = append([]byte("#!"+interpreter+"\n"), body...)
	if err := os.WriteFile(filepath.Join(dir, "b14fs-plugin-pyxor"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	protoc := exec.Command(interpreter, "-m", "grpc_tools.protoc", "-I", "../../../plugins/rpc/internal/pb",
		"--python_out="+dir, "--grpc_python_out="+dir, "codec.proto")
	if out, err := protoc.CombinedOutput(); err != nil {
		t.Fatalf("grpc_tools.protoc: %v\n%s", err, out)
	}
	return dir
}

// lines is a writer that keeps what is written to it, for a logger.
type lines struct{ bytes.Buffer }

// TestPythonPlugin runs the codec contract suite on the Python plugin
// through a b14fs host, and checks its options and its handshake: the host
// logs no warning about it.
func TestPythonPlugin(t *testing.T) {
	dir := install(t, python(t))
	var log lines
	var reg core.Registry
	host, err := rpc.Discover(&reg, dir, rpc.WithLogger(hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Warn})))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	codec, err := reg.Lookup("pyxor")
	if err != nil {
		t.Fatal(err)
	}
	// The suite writes and reads its inputs a byte at a time too, each byte
	// a message, and Python takes tens of microseconds for one (300 000
	// bytes took 80 s): the inputs are short.
	inputs := [][]byte{nil, []byte("x"), []byte("hello, python"), bytes.Repeat([]byte("0123456789"), 2000)}
	codectest.TestCodec(t, codec, inputs...)

	// A stream of many frames, both ways.
	long := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	enc, err := io.ReadAll(codec.NewEncodeReader(bytes.NewReader(long)))
	if err != nil {
		t.Fatal(err)
	}
	var dec bytes.Buffer
	w := codec.NewDecodeWriter(&dec)
	if _, err := w.Write(enc); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(enc) != len(long) || enc[0] != '0'^0x5A || !bytes.Equal(dec.Bytes(), long) {
		t.Errorf("1 MiB through the plugin and back: %d bytes encoded, %d decoded, not the input", len(enc), dec.Len())
	}

	if s := codec.(core.Suffixer).Suffix(); s != ".pyxor" {
		t.Errorf("suffix %q, want .pyxor", s)
	}
	key1, err := core.Configure(codec, core.Options{{Key: "key", Value: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(key1.NewEncodeReader(strings.NewReader("ab"))); err != nil || string(got) != "`c" {
		t.Errorf("key=1 of ab = %q, %v", got, err)
	}
	_, err = core.Configure(codec, core.Options{{Key: "level", Value: "1"}})
	if !errors.Is(err, core.ErrUnknownOption) || err.Error() != `pyxor: unknown option "level"` {
		t.Errorf("an unknown option: %v", err)
	}
	_, err = core.Configure(codec, core.Options{{Key: "key", Value: "256"}})
	if !errors.Is(err, core.ErrBadOptionValue) || err.Error() != `pyxor: option key="256": bad option value: want 0..255` {
		t.Errorf("a bad option value: %v", err)
	}
	list := host.Inspect()
	if len(list) != 1 || list[0].Err != nil || list[0].Protocol != rpc.ProtocolVersion {
		t.Errorf("Inspect: %+v", list)
	}
	host.Close()
	if log.Len() > 0 {
		t.Errorf("the host logged warnings about the plugin:\n%s", log.String())
	}
}

// TestPinnedPythonPlugin checks the plugin pinned: it then runs from a
// sealed copy (/proc/self/fd/3 on Linux) and finds its modules through
// PYTHONPATH, passed to it by B14FS_PLUGIN_ENV.
func TestPinnedPythonPlugin(t *testing.T) {
	dir := install(t, python(t))
	sum, err := rpc.Sum(filepath.Join(dir, "b14fs-plugin-pyxor"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PYTHONPATH", dir)
	t.Setenv(rpc.EnvPass, "PYTHONPATH")
	var reg core.Registry
	host, err := rpc.Discover(&reg, dir, rpc.WithLogger(hclog.NewNullLogger()), rpc.WithPins(map[string][]byte{"pyxor": sum}))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	codec, err := reg.Lookup("pyxor")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(codec.NewEncodeReader(strings.NewReader("ab"))); err != nil || string(got) != "\x3b\x38" {
		t.Errorf("pinned, ab = %q, %v", got, err)
	}
}
