//go:build unix

// Command testplugin is a codec plugin for the tests of package rpc and of
// the b14fs command. It serves the codec its executable's name asks for
// (b14fs-plugin-NAME): xor from internal/testing/testcodec, listing its option
// (core.OptionLister), and the same as xor2; crash, which kills its
// own process on the first data it sees; liar, which serves hex under the
// name "hex", which a host must refuse; and for any other NAME, hex named
// NAME.
//
// Some names make hostile plugins, which a host must survive:
//
//   - forger: a stream's first write fails with a data error that names
//     another codec, a negative offset (or the one of option offset=N) and
//     a message of terminal escapes and newlines; it also logs lines of
//     escapes, a line that is not hclog's JSON though it looks it, and a line
//     of 100000 bytes; any option but offset is refused with an option error
//     about an option it was not given, naming another codec;
//   - stall: a stream's first write never returns;
//   - freeze: a stream's first write stops the process (SIGSTOP), which
//     then answers nothing, not even a request to stop;
//   - spawner: starts "sleep 1000", which holds its standard error, and
//     writes the child's process id to $B14FS_TEST_PIDFILE;
//   - badsuffix: suggests the suffix "/../../x";
//   - badaddr: announces a TCP address instead of its socket;
//   - v2: announces protocol version 2, which no host speaks;
//   - env: a stream's output is the plugin's environment, a line a variable,
//     and a line stdin=FILE naming its standard input (on Linux);
//   - junk: writes a line of 70000 bytes where the handshake goes, and
//     exits;
//   - longline: hex whose streams write a line of 70000 bytes to the
//     process's standard output (as a child's output would go), past
//     go-plugin's relay;
//   - flaky: counts its starts in the file $B14FS_TEST_STARTS; hex, but a
//     stream of the data "boom" ends the process, and its second start fails
//     as $B14FS_TEST_RESTART says: "exit" exits before its handshake,
//     "suffix" suggests the suffix ".other" (the first suggests ".flaky");
//   - short: a stream's writes take half of what they are given and report
//     that, with no error, breaking io.Writer's contract;
//   - talker: hex that logs, on each stream, a line through the log
//     package, one on os.Stdout, one on os.Stderr and one in hclog's JSON
//     form at debug level.
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/internal/testing/testcodec"
	"github.com/b14fs/b14fs/plugins/rpc"
)

// stderr is the plugin's standard error, its log: rpc.Serve sets os.Stderr
// to a stream the host discards.
var stderr = os.Stderr

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), rpc.PluginPrefix)
	var c core.Codec = renamed{codectest.Hex{}, name}
	switch name {
	case "xor", "xor2":
		c = listedXor{testcodec.Xor{Key: 0x5A}, name}
	case "crash":
		c = crash{}
	case "liar":
		c = codectest.Hex{}
	case "forger":
		c = forger{offset: -5}
	case "stall":
		c = stall{renamed{codectest.Hex{}, name}}
	case "freeze":
		c = freeze{renamed{codectest.Hex{}, name}}
	case "spawner":
		child := exec.Command("sleep", "1000")
		child.Stderr = os.Stderr
		if err := child.Start(); err != nil {
			panic(err)
		}
		if err := os.WriteFile(os.Getenv("B14FS_TEST_PIDFILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			panic(err)
		}
	case "badsuffix":
		c = badSuffix{renamed{codectest.Hex{}, name}}
	case "badaddr":
		fmt.Println("1|1|tcp|127.0.0.1:9|grpc")
		time.Sleep(time.Minute)
		return
	case "v2":
		fmt.Println("1|2|unix|" + filepath.Join(os.Getenv("PLUGIN_UNIX_SOCKET_DIR"), "plugin") + "|grpc")
		time.Sleep(time.Minute)
		return
	case "env":
		c = env{renamed{codectest.Hex{}, name}}
	case "talker":
		c = talker{renamed{codectest.Hex{}, name}}
	case "short":
		c = short{renamed{codectest.Hex{}, name}}
	case "flaky":
		c = flakyStart()
	case "junk":
		fmt.Println(strings.Repeat("x", 70000))
		return
	case "longline":
		c = longLine{renamed{codectest.Hex{}, name}}
	}
	rpc.Serve(c)
}

// forger forges its errors and logs.
type forger struct {
	codectest.Hex
	offset int64
}

func (forger) Name() string { return "forger" }

func (f forger) WithOptions(opts core.Options) (core.Codec, error) {
	for _, o := range opts {
		if o.Key != "offset" {
			return nil, &core.OptionError{Codec: "base16384", Key: "zz\x1b[2J", Err: core.ErrUnknownOption}
		}
		n, err := strconv.ParseInt(o.Value, 10, 64)
		if err != nil {
			return nil, err
		}
		f.offset = n
	}
	return f, nil
}

func (f forger) NewEncodeWriter(io.Writer) io.WriteCloser { return f.writer() }
func (f forger) NewDecodeWriter(io.Writer) io.WriteCloser { return f.writer() }

func (f forger) writer() io.WriteCloser {
	stderr.WriteString("[WARN] raw \x1b[31mred\x1b[0m\n")
	stderr.WriteString(`{"@level":"warn","@message":"json \u001b[2Jclear\nFAKE: line","k\u001b":"v\u001b[0m"}` + "\n")
	stderr.WriteString(`{"@level":"warn","@message":5}` + "\n")
	stderr.WriteString("[WARN] " + strings.Repeat("A", 100000) + "\n")
	return failer{&core.DataError{Codec: "base16384", Offset: f.offset, Err: errors.New("\x1b[31m\nFAKE")}}
}

type failer struct{ err error }

func (f failer) Write([]byte) (int, error) { return 0, f.err }
func (f failer) Close() error              { return f.err }

// stall never returns from a write.
type stall struct{ renamed }

func (stall) NewEncodeWriter(io.Writer) io.WriteCloser { return staller{} }
func (stall) NewDecodeWriter(io.Writer) io.WriteCloser { return staller{} }

type staller struct{}

func (staller) Write([]byte) (int, error) { select {} }
func (staller) Close() error              { return nil }

// freeze stops its process on a stream's first write.
type freeze struct{ renamed }

func (freeze) NewEncodeWriter(io.Writer) io.WriteCloser { return freezer{} }
func (freeze) NewDecodeWriter(io.Writer) io.WriteCloser { return freezer{} }

type freezer struct{}

func (freezer) Write([]byte) (int, error) {
	syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	select {} // the stop may take a moment to reach every thread

}
func (freezer) Close() error { return nil }

// flakyStart counts this start in $B14FS_TEST_STARTS and returns the
// codec of the flaky plugin, or exits where its second start fails so.
func flakyStart() core.Codec {
	path := os.Getenv("B14FS_TEST_STARTS")
	data, _ := os.ReadFile(path)
	n := len(data) + 1
	if err := os.WriteFile(path, append(data, '.'), 0o644); err != nil {
		panic(err)
	}
	suffix := ".flaky"
	if n == 2 {
		switch os.Getenv("B14FS_TEST_RESTART") {
		case "exit":
			os.Exit(5)
		case "suffix":
			suffix = ".other"
		}
	}
	return flaky{renamed{codectest.Hex{}, "flaky"}, suffix}
}

// flaky is hex with a suffix, whose streams of the data "boom" end the
// process.
type flaky struct {
	renamed
	suffix string
}

func (f flaky) Suffix() string { return f.suffix }

func (f flaky) NewEncodeWriter(w io.Writer) io.WriteCloser {
	return boomWriter{f.renamed.NewEncodeWriter(w)}
}

type boomWriter struct{ io.WriteCloser }

func (b boomWriter) Write(p []byte) (int, error) {
	if string(p) == "boom" {
		os.Exit(3)
	}
	return b.WriteCloser.Write(p)
}

// longLine writes a long line to the process's standard output at each
// stream's start.
type longLine struct{ renamed }

func (l longLine) NewEncodeWriter(w io.Writer) io.WriteCloser {
	syscall.Write(1, []byte(strings.Repeat("y", 70000)+"\n"))
	return l.renamed.NewEncodeWriter(w)
}

// short's writes take half of what they are given, with no error.
type short struct{ renamed }

func (short) NewEncodeWriter(w io.Writer) io.WriteCloser { return shortWriter{w} }
func (short) NewDecodeWriter(w io.Writer) io.WriteCloser { return shortWriter{w} }

type shortWriter struct{ w io.Writer }

func (s shortWriter) Write(p []byte) (int, error) { return s.w.Write(p[:(len(p)+1)/2]) }
func (shortWriter) Close() error                  { return nil }

// listedXor is xor, under a name, listing its option.
type listedXor struct {
	testcodec.Xor
	name string
}

func (x listedXor) Name() string { return x.name }

// WithOptions takes xor's key=N, and mode=a or mode=b, which change nothing.
func (x listedXor) WithOptions(opts core.Options) (core.Codec, error) {
	var keys core.Options
	for _, opt := range opts {
		if opt.Key != "mode" {
			keys = append(keys, opt)
		} else if err := opt.OneOf(x.name, "a", "b"); err != nil {
			return nil, err
		}
	}
	c, err := x.Xor.WithOptions(keys)
	if err != nil {
		var oe *core.OptionError
		if errors.As(err, &oe) {
			oe.Codec = x.name
		}
		return nil, err
	}
	return listedXor{c.(testcodec.Xor), x.name}, nil
}

func (listedXor) OptionDocs() []core.OptionDoc {
	return []core.OptionDoc{{Key: "key", Usage: "the byte to XOR with, 0..255"}, {Key: "mode", Values: []string{"a", "b"}, Usage: "\x1b[2Jcleared"}}
}

// env writes its environment instead of encoding.
type env struct{ renamed }

func (env) NewEncodeWriter(w io.Writer) io.WriteCloser { return envWriter{w} }

type envWriter struct{ w io.Writer }

func (envWriter) Write(p []byte) (int, error) { return len(p), nil }
func (e envWriter) Close() error {
	stdin, err := os.Readlink("/proc/self/fd/0")
	if err != nil {
		stdin = err.Error()
	}
	_, err = io.WriteString(e.w, strings.Join(os.Environ(), "\n")+"\nstdin="+stdin+"\n")
	return err
}

// talker logs every way a plugin can.
type talker struct{ renamed }

func (t talker) NewEncodeWriter(w io.Writer) io.WriteCloser {
	log.Print("talker: a line of the log package")
	fmt.Println("talker: a line on os.Stdout")
	fmt.Fprintln(os.Stderr, "talker: a line on os.Stderr")
	stderr.WriteString(`{"@level":"debug","@message":"talker: a debug line","k":"v"}` + "\n")
	return t.renamed.NewEncodeWriter(w)
}

// badSuffix suggests a suffix that would escape a directory.
type badSuffix struct{ renamed }

func (badSuffix) Suffix() string { return "/../../x" }

// renamed is hex under another name.
type renamed struct {
	codectest.Hex
	name string
}

func (r renamed) Name() string { return r.name }

// crash is a codec whose streams kill the process.
type crash struct{ codectest.Hex }

func (crash) Name() string                               { return "crash" }
func (crash) NewEncodeWriter(w io.Writer) io.WriteCloser { return exiter{} }
func (crash) NewDecodeWriter(w io.Writer) io.WriteCloser { return exiter{} }

type exiter struct{}

func (exiter) Write(p []byte) (int, error) { os.Exit(3); return 0, nil }
func (exiter) Close() error                { return nil } // no data: no crash
