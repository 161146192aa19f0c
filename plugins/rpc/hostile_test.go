package rpc_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/hashicorp/go-hclog"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc"
)

// hostilePlugins are the plugins of internal/testplugin that attack the
// host.
var hostilePlugins = []string{"forger", "stall", "freeze", "spawner", "badsuffix", "badaddr"}

// within runs f, failing the test if it takes longer than d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still running after %v", what, d)
	}
}

// checkClean fails the test if s holds a control character.
func checkClean(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' || r == '\n' && what != "log" {
			t.Errorf("%s holds %q: %q", what, r, s)
			return
		}
	}
}

// pull runs input through codec's encode reader.
func pull(c core.Codec, input string) ([]byte, error) {
	return io.ReadAll(c.NewEncodeReader(strings.NewReader(input)))
}

// push runs input through codec's encode writer.
func push(c core.Codec, input string) ([]byte, error) {
	var out bytes.Buffer
	w := c.NewEncodeWriter(&out)
	_, err := io.WriteString(w, input)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return out.Bytes(), err
}

func TestForgedDataError(t *testing.T) {
	forger := lookup(t, discover(t), "forger").(core.Configurable)
	far, err := forger.WithOptions(core.Options{{Key: "offset", Value: "999"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		codec core.Codec
		run   func(core.Codec, string) ([]byte, error)
		off   string // the offset the plugin claims
	}{
		{"pull", forger.(core.Codec), pull, "-5"},
		{"push", forger.(core.Codec), push, "-5"},
		{"pull/far", far, pull, "999"},
		{"push/far", far, push, "999"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.run(c.codec, "abc")
			var de *core.DataError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a DataError", err)
			}
			msg := err.Error()
			checkClean(t, "error", msg)
			want := int64(0)
			if c.off == "999" {
				want = 3
			}
			if de.Codec != "forger" || de.Offset != want {
				t.Errorf("DataError of codec %q at %d, want forger (the plugin's name) at %d (clamped): %s", de.Codec, de.Offset, want, msg)
			}
			if !strings.Contains(msg, `\x1b[31m\nFAKE`) {
				t.Errorf("the message's escapes are not shown as such: %s", msg)
			}
			if !strings.Contains(msg, "gave byte offset "+c.off+", outside the 3 bytes it was sent") {
				t.Errorf("no note of the offset the plugin gave: %s", msg)
			}
		})
	}
}

func TestForgedOptionError(t *testing.T) {
	forger := lookup(t, discover(t), "forger").(core.Configurable)
	_, err := forger.WithOptions(core.Options{{Key: "level", Value: "1"}})
	if err == nil {
		t.Fatal("a refused option: no error")
	}
	msg := err.Error()
	checkClean(t, "error", msg)
	var oe *core.OptionError
	if errors.As(err, &oe) || strings.Contains(msg, "base16384") || !strings.Contains(msg, "b14fs-plugin-forger") ||
		!strings.Contains(msg, "which it was not given") {
		t.Errorf("an option error about an option not given, naming another codec: %v, want a plugin error naming the plugin", err)
	}
}

func TestForgedLog(t *testing.T) {
	var buf syncBuffer
	logger := hclog.New(&hclog.LoggerOptions{Name: "b14fs", Output: &buf, Level: hclog.Trace})
	var reg core.Registry
	host, err := rpc.Discover(&reg, pluginDir, rpc.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	pull(lookup(t, &reg, "forger"), "abc")
	host.Close() // the plugin's last lines are logged by then
	log := buf.String()
	checkClean(t, "log", log)
	for _, want := range []string{`raw \x1b[31mred\x1b[0m"`, `"json \x1b[2Jclear\nFAKE: line"`, `"k\x1b"`, `v\x1b[0m`, `{"@level":"warn","@message":5}`, "A... (98983 more bytes)"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
	for line := range strings.Lines(log) {
		if strings.HasPrefix(line, "FAKE") {
			t.Errorf("a plugin forged a line of the log: %q", line)
		}
		if len(line) > 4000 {
			t.Errorf("a log line of %d bytes", len(line))
		}
	}
}

// TestStall checks that a plugin that stops reading its input fails the
// stream in time: with a small input, or a large one that fills every
// buffer on the way.
func TestStall(t *testing.T) {
	t.Parallel()
	stall := lookup(t, discover(t, rpc.WithTimeout(300*time.Millisecond)), "stall")
	for name, run := range map[string]func(core.Codec, string) ([]byte, error){"pull": pull, "push": push} {
		for size, input := range map[string]string{"small": "abc", "large": strings.Repeat("x", 16<<20)} {
			t.Run(name+"/"+size, func(t *testing.T) { testStall(t, stall, run, input) })
		}
	}
}

func testStall(t *testing.T, stall core.Codec, run func(core.Codec, string) ([]byte, error), input string) {
	var err error
	start := time.Now()
	within(t, 20*time.Second, "a stream through a stalled plugin", func() { _, err = run(stall, input) })
	if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "b14fs-plugin-stall: timed out") {
		t.Errorf("stalled plugin: %v, want a timeout naming it", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("timed out after %v, before the limit", d)
	}
}

// TestShortWrite checks that a codec whose writes take less than they are
// given, reporting no error, fails its stream: what it left out was lost,
// the stream ending as if whole.
func TestShortWrite(t *testing.T) {
	t.Parallel()
	short := lookup(t, discover(t), "short")
	for name, run := range map[string]func(core.Codec, string) ([]byte, error){"pull": pull, "push": push} {
		_, err := run(short, strings.Repeat("x", 100000))
		if err == nil || !strings.Contains(err.Error(), io.ErrShortWrite.Error()) || !strings.Contains(err.Error(), "short") {
			t.Errorf("%s: %v, want a short write naming the plugin", name, err)
		}
	}
}

// TestLongLines checks that a line of over 64 KiB on a plugin's standard
// output, in place of its handshake or from a child later, hangs nothing:
// go-plugin stopped reading the output at such a line, the plugin's output
// blocked, and with it the wait for its end, for ever.
func TestLongLines(t *testing.T) {
	t.Parallel()
	var reg core.Registry
	host, err := rpc.Discover(&reg, pluginDir, rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	within(t, 30*time.Second, "a plugin writing a long line for its handshake", func() { _, err = pull(lookup(t, &reg, "junk"), "abc") })
	if err == nil || !strings.Contains(err.Error(), "b14fs-plugin-junk") {
		t.Errorf("junk for a handshake: %v, want an error naming the plugin", err)
	}
	var out []byte
	within(t, 30*time.Second, "a stream of a plugin writing a long line", func() { out, err = pull(lookup(t, &reg, "longline"), "abc") })
	if err != nil || string(out) != "616263" {
		t.Errorf("longline: %q, %v", out, err)
	}
	within(t, 30*time.Second, "Host.Close", host.Close)
}

// TestFrozen checks that a plugin that answers nothing, not even the request
// to stop, neither hangs a stream nor the host's Close.
func TestFrozen(t *testing.T) {
	t.Parallel()
	var reg core.Registry
	host, err := rpc.Discover(&reg, pluginDir, rpc.WithTimeout(300*time.Millisecond), rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	within(t, 20*time.Second, "a stream through a frozen plugin", func() { _, err = pull(lookup(t, &reg, "freeze"), "abc") })
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("frozen plugin: %v, want a timeout", err)
	}
	within(t, 20*time.Second, "Host.Close with a frozen plugin", host.Close)
}

func TestStallTimeoutFromEnvironment(t *testing.T) {
	t.Setenv(rpc.EnvTimeout, "300ms")
	stall := lookup(t, discover(t), "stall")
	var err error
	within(t, 20*time.Second, "a stream through a stalled plugin", func() { _, err = pull(stall, "abc") })
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("stalled plugin: %v, want a timeout", err)
	}
	t.Setenv(rpc.EnvTimeout, "soon")
	var reg core.Registry
	host, err := rpc.Discover(&reg, "", rpc.WithLogger(hclog.NewNullLogger()))
	if host != nil || err == nil || !strings.Contains(err.Error(), rpc.EnvTimeout+`="soon"`) {
		t.Errorf("Discover with %s=soon: %v, %v; want no host and the error", rpc.EnvTimeout, host, err)
	}
}

// slowReader returns its bytes one at a time, each after a delay.
type slowReader struct {
	data  string
	delay time.Duration
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, io.EOF
	}
	time.Sleep(r.delay)
	p[0], r.data = r.data[0], r.data[1:]
	return 1, nil
}

// slowWriter takes its bytes after a delay.
type slowWriter struct {
	bytes.Buffer
	delay time.Duration
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.delay)
	return w.Buffer.Write(p)
}

// TestSlowHostIsNoStall checks that the time limit counts only the time
// the host waits on the plugin: a slow source, sink or reader is not the
// plugin's.
func TestSlowHostIsNoStall(t *testing.T) {
	const limit, delay = 100 * time.Millisecond, 300 * time.Millisecond
	hex := lookup(t, discover(t, rpc.WithTimeout(limit)), "hex")
	if got, err := io.ReadAll(hex.NewEncodeReader(&slowReader{"ab", delay})); err != nil || string(got) != "6162" {
		t.Errorf("pull from a slow source: %q, %v", got, err)
	}
	r := hex.NewEncodeReader(strings.NewReader(strings.Repeat("x", 1<<20)))
	var n int64
	for {
		m, err := io.CopyN(io.Discard, r, 512<<10)
		n += m
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("pull by a slow reader: %v", err)
		}
		time.Sleep(delay)
	}
	if n != 2<<20 {
		t.Errorf("pull by a slow reader: %d bytes, want %d", n, 2<<20)
	}
	w := &slowWriter{delay: delay}
	e := hex.NewEncodeWriter(w)
	for i := range 2 {
		if i > 0 {
			time.Sleep(delay)
		}
		e.Write([]byte("ab"))
	}
	if err := e.Close(); err != nil || w.String() != "61626162" {
		t.Errorf("push by a slow writer into a slow sink: %q, %v", w.String(), err)
	}
}

func TestGrandchildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("B14FS_TEST_PIDFILE", pidFile)
	t.Setenv(rpc.EnvPass, "B14FS_TEST_PIDFILE") // a plugin gets only the variables it is given
	var reg core.Registry
	host, err := rpc.Discover(&reg, pluginDir, rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if got, err := pull(lookup(t, &reg, "spawner"), "x"); err != nil || string(got) != "78" {
		t.Fatalf("encode through spawner: %q, %v", got, err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if !alive(pid) {
		t.Fatalf("the plugin's child %d is not running", pid)
	}
	within(t, 10*time.Second, "Host.Close", host.Close)
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the plugin's child %d outlived the plugin", pid)
		}
	}
}

// alive reports whether the process pid runs (and is not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}

func TestBadSuffix(t *testing.T) {
	c := lookup(t, discover(t), "badsuffix")
	if s := c.(core.Suffixer).Suffix(); s != "" {
		t.Errorf("suffix %q, want none", s)
	}
	if _, err := pull(c, "x"); err == nil || !strings.Contains(err.Error(), "cannot end a file name") {
		t.Errorf("a plugin with a bad suffix: %v, want an error", err)
	}
}

func TestBadAddress(t *testing.T) {
	c := lookup(t, discover(t), "badaddr")
	var err error
	within(t, 20*time.Second, "a plugin with a bad address", func() { _, err = pull(c, "x") })
	if err == nil || !strings.Contains(err.Error(), "announced address tcp 127.0.0.1:9") {
		t.Errorf("a plugin announcing a TCP address: %v, want an error", err)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAbandonedStreams checks that streams dropped unfinished, without
// Close, end their calls and goroutines.
func TestAbandonedStreams(t *testing.T) {
	hex := lookup(t, discover(t), "hex")
	if _, err := pull(hex, "warm up"); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	big := strings.Repeat("x", 8<<20)
	for range 5 {
		r := hex.NewEncodeReader(strings.NewReader(big))
		if _, err := r.Read(make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		w := hex.NewEncodeWriter(io.Discard)
		if _, err := w.Write([]byte(big[:1<<20])); err != nil {
			t.Fatal(err)
		}
	}
	var now int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		runtime.GC()
		if now = runtime.NumGoroutine(); now <= before+2 {
			return
		}
	}
	t.Errorf("%d goroutines before 10 streams were dropped, %d after", before, now)
}

func TestUnprintableName(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rpc.PluginPrefix+"bad\x1b[2Jname"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var reg core.Registry
	host, err := rpc.Discover(&reg, dir, rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	host.Close()
	warnings := errors.Join(host.Warnings()...)
	if warnings == nil || !strings.Contains(warnings.Error(), `"bad\x1b[2Jname" is no codec name`) {
		t.Errorf("Discover of a plugin whose name does not print: warnings %v", warnings)
	} else {
		checkClean(t, "warning", warnings.Error())
	}
	if n := len(reg.List()); n != 0 {
		t.Errorf("%d codecs registered", n)
	}
	for _, s := range host.Skipped() {
		checkClean(t, "skipped file", s.Path+": "+s.Reason)
		if !strings.Contains(s.Path, `bad\x1b[2Jname"`) {
			t.Errorf("skipped file %s, want its name quoted", s.Path)
		}
	}
	if len(host.Skipped()) != 1 {
		t.Errorf("skipped %v, want the one file", host.Skipped())
	}
}
