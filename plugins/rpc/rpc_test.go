package rpc_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/plugins/rpc"
)

// pluginDir holds the test plugin under the names the tests use.
var pluginDir string

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		helperHost(mode) // a host for a test to crash: see helperHost
		return
	}
	dir, err := os.MkdirTemp("", "b14fs-plugins")
	if err != nil {
		panic(err)
	}
	pluginDir = dir
	code := 1
	if err := buildTestPlugin(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildTestPlugin builds internal/testplugin into dir as the plugins hex,
// xor, crash, liar, env, talker, v2, short, junk, longline and flaky, and the hostile ones
// (hostilePlugins).
func buildTestPlugin(dir string) error {
	bin := filepath.Join(dir, rpc.PluginPrefix+"hex")
	out, err := exec.Command("go", "build", "-o", bin, "./internal/testplugin").CombinedOutput()
	if err != nil {
		return fmt.Errorf("building the test plugin: %v\n%s", err, out)
	}
	for _, name := range append([]string{"xor", "crash", "liar", "env", "talker", "v2", "short", "junk", "longline", "flaky"}, hostilePlugins...) {
		if err := os.Link(bin, filepath.Join(dir, rpc.PluginPrefix+name)); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, rpc.PluginPrefix+"notexec"), []byte("#!/bin/sh\n"), 0o644)
}

// discover registers the test plugins in a new registry.
func discover(t testing.TB, opts ...rpc.HostOption) *core.Registry {
	t.Helper()
	var reg core.Registry
	opts = append([]rpc.HostOption{rpc.WithLogger(hclog.NewNullLogger())}, opts...)
	host, err := rpc.Discover(&reg, pluginDir+string(os.PathListSeparator)+"/nonexistent", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	return &reg
}

func lookup(t testing.TB, reg *core.Registry, name string) core.Codec {
	t.Helper()
	c, err := reg.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDiscover(t *testing.T) {
	reg := discover(t)
	var got []string
	for _, e := range reg.List() {
		got = append(got, e.Codec.Name()+"="+filepath.Base(e.Origin))
	}
	want := "badaddr=b14fs-plugin-badaddr badsuffix=b14fs-plugin-badsuffix crash=b14fs-plugin-crash " +
		"env=b14fs-plugin-env flaky=b14fs-plugin-flaky forger=b14fs-plugin-forger freeze=b14fs-plugin-freeze hex=b14fs-plugin-hex junk=b14fs-plugin-junk liar=b14fs-plugin-liar longline=b14fs-plugin-longline short=b14fs-plugin-short spawner=b14fs-plugin-spawner " +
		"stall=b14fs-plugin-stall talker=b14fs-plugin-talker v2=b14fs-plugin-v2 xor=b14fs-plugin-xor"
	if strings.Join(got, " ") != want {
		t.Errorf("registered %v, want %s (the non-executable file skipped)", got, want)
	}
}

func TestDiscoverConflict(t *testing.T) {
	var reg core.Registry
	reg.Register(lookup(t, discover(t), "xor"), core.OriginBuiltin)
	host, err := rpc.Discover(&reg, pluginDir, rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	warnings := errors.Join(host.Warnings()...)
	if !errors.Is(warnings, core.ErrDuplicateCodec) || !strings.Contains(warnings.Error(), "b14fs-plugin-xor") {
		t.Errorf("Discover over a registered name: warnings %v, want ErrDuplicateCodec naming the plugin", warnings)
	}
	if _, err := reg.Lookup("hex"); err != nil {
		t.Errorf("the other plugins are registered all the same: %v", err)
	}
}

// inputs span several frames at the largest, yet stay small: a 1-byte reader
// makes one frame of each byte.
var inputs = [][]byte{nil, []byte("x"), []byte("hello, plugin"), bytes.Repeat([]byte("0123456789"), 30000)}

// TestContract runs the codec conformance suite across the process boundary.
func TestContract(t *testing.T) {
	t.Parallel()
	reg := discover(t)
	for _, name := range []string{"hex", "xor"} {
		t.Run(name, func(t *testing.T) { codectest.TestCodec(t, lookup(t, reg, name), inputs...) })
	}
}

// TestContractFrames runs the conformance suite with the data in frames on
// the gRPC calls, as for a plugin that offers no data connection.
func TestContractFrames(t *testing.T) {
	t.Parallel()
	reg := discover(t, rpc.WithFramesOnly())
	for _, name := range []string{"hex", "xor"} {
		t.Run(name, func(t *testing.T) { codectest.TestCodec(t, lookup(t, reg, name), inputs...) })
	}
}

// TestDataPath checks that the streams of a plugin built on rpc.Serve take
// its data connection, a socket in the plugin's private directory, unless
// the host sends frames only.
func TestDataPath(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []rpc.HostOption
		want bool
	}{{"offered", nil, true}, {"frames only", []rpc.HostOption{rpc.WithFramesOnly()}, false}} {
		t.Run(c.name, func(t *testing.T) {
			xor := lookup(t, discover(t, c.opts...), "xor")
			if _, err := pull(xor, "x"); err != nil {
				t.Fatal(err)
			}
			addr := rpc.DataAddress(xor)
			if got := addr != ""; got != c.want {
				t.Fatalf("data socket %q, want one: %v", addr, c.want)
			}
			if !c.want {
				return
			}
			fi, err := os.Stat(addr)
			if err != nil || fi.Mode().Type() != os.ModeSocket {
				t.Errorf("data socket %s: %v, %v", addr, fi, err)
			}
			if dir, err := os.Stat(filepath.Dir(addr)); err != nil || dir.Mode().Perm() != 0o700 {
				t.Errorf("the data socket's directory: %v, %v, want mode 0700", dir, err)
			}
		})
	}
}

// TestWriteTo checks the pull streams' io.WriterTo, which io.Copy takes:
// the same output and errors as Read, on either path.
func TestWriteTo(t *testing.T) {
	big := strings.Repeat("0123456789", 100000)
	for _, c := range []struct {
		name string
		opts []rpc.HostOption
	}{{"data connection", nil}, {"frames", []rpc.HostOption{rpc.WithFramesOnly()}}} {
		t.Run(c.name, func(t *testing.T) {
			hex := lookup(t, discover(t, c.opts...), "hex")
			r := hex.NewEncodeReader(strings.NewReader(big))
			if _, ok := r.(io.WriterTo); !ok {
				t.Fatalf("%T is no io.WriterTo", r)
			}
			var out bytes.Buffer
			if n, err := io.Copy(&out, r); err != nil || n != int64(2*len(big)) || out.String() != fmt.Sprintf("%x", big) {
				t.Errorf("io.Copy of the encoding: %d bytes, %v; want %d, the encoding", n, err, 2*len(big))
			}
			r.Close()
			if _, err := io.Copy(io.Discard, r); !errors.Is(err, core.ErrClosed) {
				t.Errorf("io.Copy after Close: %v, want ErrClosed", err)
			}
			_, err := io.Copy(io.Discard, hex.NewDecodeReader(strings.NewReader(fmt.Sprintf("%x", big)+"0z")))
			var de *core.DataError
			if !errors.As(err, &de) || de.Offset != int64(2*len(big))+1 {
				t.Errorf("io.Copy of bad hex: %v, want a DataError at %d", err, 2*len(big)+1)
			}
			broken := errors.New("disk on fire")
			if _, err := io.Copy(io.Discard, hex.NewEncodeReader(io.MultiReader(strings.NewReader(big), errReader{broken}))); !errors.Is(err, broken) {
				t.Errorf("io.Copy from a broken source: %v, want %v", err, broken)
			}
			if _, err := io.Copy(errWriter{broken}, hex.NewEncodeReader(strings.NewReader(big))); !errors.Is(err, broken) {
				t.Errorf("io.Copy into a broken writer: %v, want %v", err, broken)
			}
		})
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

func TestOptions(t *testing.T) {
	xor := lookup(t, discover(t), "xor")
	cc := xor.(core.Configurable)
	c, err := cc.WithOptions(core.Options{{Key: "key", Value: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c.NewEncodeReader(strings.NewReader("ab")))
	if err != nil || string(got) != "`c" {
		t.Errorf("xor key=1 of ab = %q, %v", got, err)
	}
	_, err = cc.WithOptions(core.Options{{Key: "level", Value: "1"}})
	var oe *core.OptionError
	if !errors.As(err, &oe) || !errors.Is(err, core.ErrUnknownOption) || oe.Codec != "xor" || oe.Key != "level" {
		t.Errorf("unknown option: %v", err)
	}
	_, err = cc.WithOptions(core.Options{{Key: "key", Value: "999"}})
	if !errors.Is(err, core.ErrBadOptionValue) || err.Error() != `xor: option key="999": bad option value: want 0..255` {
		t.Errorf("bad option value: %v", err)
	}
}

func TestSuffix(t *testing.T) {
	reg := discover(t)
	if s := lookup(t, reg, "hex").(core.Suffixer).Suffix(); s != ".hex" {
		t.Errorf("hex suffix %q, want .hex", s)
	}
	if s := lookup(t, reg, "xor").(core.Suffixer).Suffix(); s != "" {
		t.Errorf("xor suffix %q, want none", s)
	}
}

func TestDataErrors(t *testing.T) {
	hex := lookup(t, discover(t), "hex")
	_, err := io.ReadAll(hex.NewDecodeReader(strings.NewReader("00112z")))
	var de *core.DataError
	if !errors.As(err, &de) || de.Codec != "hex" || de.Offset != 5 || !errors.Is(err, core.ErrInvalidData) {
		t.Errorf("pull decode of bad hex: %v, want a hex DataError at offset 5", err)
	}
	w := hex.NewDecodeWriter(io.Discard)
	io.WriteString(w, "001")
	if err := w.Close(); !errors.As(err, &de) || de.Offset != 2 {
		t.Errorf("push decode of truncated hex: Close = %v, want a DataError at offset 2", err)
	}
}

func TestSourceError(t *testing.T) {
	hex := lookup(t, discover(t), "hex")
	broken := errors.New("disk on fire")
	_, err := io.ReadAll(hex.NewEncodeReader(io.MultiReader(strings.NewReader("abc"), errReader{broken})))
	if !errors.Is(err, broken) {
		t.Errorf("source error: got %v, want %v", err, broken)
	}
}

// TestSourceErrorInMemory checks a source that pull streams feed from its
// memory (by its WriteTo) and that fails part way.
func TestSourceErrorInMemory(t *testing.T) {
	hex := lookup(t, discover(t), "hex")
	broken := errors.New("memory on fire")
	_, err := io.ReadAll(hex.NewEncodeReader(&failingMemory{strings.NewReader(strings.Repeat("x", 1<<20)), broken}))
	if !errors.Is(err, broken) {
		t.Errorf("source error: got %v, want %v", err, broken)
	}
}

// failingMemory is an in-memory source whose WriteTo fails after writing
// its bytes.
type failingMemory struct {
	*strings.Reader
	err error
}

func (m *failingMemory) WriteTo(w io.Writer) (int64, error) {
	n, err := m.Reader.WriteTo(w)
	if err == nil {
		err = m.err
	}
	return n, err
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestCrash checks that a plugin that exits mid-stream gives an error
// naming its path and its exit status, not the lost connection's, also
// while the host is still writing input.
func TestCrash(t *testing.T) {
	crash := func() core.Codec { return lookup(t, discover(t), "crash") } // in a new plugin process
	check := func(form string, err error) {
		t.Helper()
		if err == nil || !regexp.MustCompile(`^plugin /.*/b14fs-plugin-crash: exited: exit status 3$`).MatchString(err.Error()) {
			t.Errorf("%s through a crashing plugin: %v, want its path and exit status", form, err)
		}
	}
	for _, input := range []string{"boom", strings.Repeat("boom", 4<<20)} {
		_, err := io.ReadAll(crash().NewEncodeReader(strings.NewReader(input)))
		check("pull", err)
		w := crash().NewEncodeWriter(io.Discard)
		_, err = w.Write([]byte(input))
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		check("push", err)
	}
}

// TestRestartAfterCrash checks that a plugin that ended is started again by
// the next stream: it was not, so one crash (on one bad file, or the OOM
// killer's) failed every later stream of a mount or a server.
func TestRestartAfterCrash(t *testing.T) {
	crash := lookup(t, discover(t), "crash") // ends at the first data it sees
	for i := range 3 {
		if _, err := pull(crash, "boom"); err == nil || !strings.Contains(err.Error(), "exited") {
			t.Fatalf("round %d: a stream that crashes the plugin: %v", i, err)
		}
		if out, err := pull(crash, ""); err != nil || len(out) != 0 {
			t.Fatalf("round %d: the stream after a crash: %q, %v", i, out, err)
		}
	}
}

// TestRestartFails crashes a plugin whose restart then fails: the codec
// failed for good; the restart is tried again after rpc's wait, and works.
// A restart that suggests another suffix is refused, and its process
// stopped (it ran on until the host closed).
func TestRestartFails(t *testing.T) {
	for _, how := range []string{"exit", "suffix"} {
		t.Run(how, func(t *testing.T) {
			starts := filepath.Join(t.TempDir(), "starts")
			t.Setenv("B14FS_TEST_STARTS", starts)
			t.Setenv("B14FS_TEST_RESTART", how)
			t.Setenv(rpc.EnvPass, "B14FS_TEST_STARTS,B14FS_TEST_RESTART")
			flaky := lookup(t, discover(t), "flaky")
			count := func() int { data, _ := os.ReadFile(starts); return len(data) }
			if _, err := pull(flaky, "boom"); err == nil {
				t.Fatal("the stream that ends the plugin did not fail")
			}
			if _, err := pull(flaky, "x"); err == nil {
				t.Fatal("the stream whose restart fails did not fail")
			}
			if _, err := pull(flaky, "x"); err == nil || count() != 2 {
				t.Fatalf("a stream at once after the failed restart: %v, %d starts; want an error and no new start", err, count())
			}
			if how == "suffix" {
				cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
				for _, c := range cmdlines {
					if data, _ := os.ReadFile(c); strings.Contains(string(data), rpc.PluginPrefix+"flaky") {
						t.Errorf("the restart refused for its suffix is still running: %s", c)
					}
				}
				return
			}
			time.Sleep(1100 * time.Millisecond)
			if out, err := pull(flaky, "x"); err != nil || string(out) != "78" || count() != 3 {
				t.Errorf("after the wait: %q, %v, %d starts; want the plugin started again", out, err, count())
			}
		})
	}
}

func TestWrongName(t *testing.T) {
	liar := lookup(t, discover(t), "liar")
	_, err := io.ReadAll(liar.NewEncodeReader(strings.NewReader("x")))
	if err == nil || !strings.Contains(err.Error(), `serves codec "hex"`) {
		t.Errorf("a plugin serving another name: %v", err)
	}
}

func TestPins(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(pluginDir, rpc.PluginPrefix+"hex"))
	if err != nil {
		t.Fatal(err)
	}
	good := sha256.Sum256(data)
	pins, err := rpc.ParsePins(fmt.Sprintf("hex=%x, xor=%064x", good, 0))
	if err != nil {
		t.Fatal(err)
	}
	reg := discover(t, rpc.WithPins(pins))
	if _, err := io.ReadAll(lookup(t, reg, "hex").NewEncodeReader(strings.NewReader("x"))); err != nil {
		t.Errorf("pinned plugin with the right sum: %v", err)
	}
	_, err = io.ReadAll(lookup(t, reg, "xor").NewEncodeReader(strings.NewReader("x")))
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("pinned plugin with the wrong sum: %v, want a checksum error", err)
	}
	for _, bad := range []string{"hex", "hex=12", "hex=" + strings.Repeat("g", 64)} {
		if _, err := rpc.ParsePins(bad); err == nil {
			t.Errorf("ParsePins(%q) accepted it", bad)
		}
	}
}

func TestNoHostStdin(t *testing.T) {
	// The host's standard input stays the host's: a plugin never reads it.
	// Run through a plugin with stdin a pipe nobody writes to; the plugin
	// would block on a read of it, but it has none.
	hex := lookup(t, discover(t), "hex")
	got, err := io.ReadAll(hex.NewEncodeReader(strings.NewReader("ok")))
	if err != nil || string(got) != "6f6b" {
		t.Errorf("encode = %q, %v", got, err)
	}
}
