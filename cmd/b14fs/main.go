// Command b14fs encodes and decodes data through chains of codecs.
//
//	b14fs encode [-c CHAIN] [-o OUT] [-w N] [FILE|-]
//	b14fs decode [-c CHAIN] [-o OUT] [-i] [FILE|-]
//	b14fs codecs
//	b14fs plugins [pin [NAME...]]
//	b14fs mount [-c CHAIN] [-w] DIR MOUNTPOINT
//	b14fs base16384 -[ed][t][n][cC] INPUT OUTPUT
//
// Run as base16384 (a symbolic link of that name), b14fs is a drop-in for
// the C base16384 CLI: its flags, output and exit statuses.
//
// Data goes to standard output (or OUT), diagnostics to standard error. The
// exit code is 0 on success, 1 on bad data or a failed read or write, and 2
// on a usage error. Codecs of plugin executables (b14fs-plugin-NAME) in
// $XDG_DATA_HOME/b14fs/plugins and the directories of $B14FS_PLUGIN_PATH are
// available beside the built-in ones; b14fs plugins lists them.
// See docs/cli.md for the whole reference.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/transform"
)

// Exit codes.
const (
	exitOK    = 0
	exitData  = 1 // bad data, or a failed read or write
	exitUsage = 2 // unknown command, flag, codec or option
)

// Environment variables that configure plugins.
const (
	envPluginPath = "B14FS_PLUGIN_PATH"   // directories to find plugins in, ':'-separated
	envPluginPins = "B14FS_PLUGIN_SHA256" // NAME=HEX pins, ','-separated
)

func main() {
	if filepath.Base(os.Args[0]) == compatName {
		os.Exit(runCompat(os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr}))
	}
	os.Exit(runWithPlugins(os.Args[1:], builtin.Registry()))
}

// runWithPlugins adds the plugins of the plugin directories (the default
// one, then those of $B14FS_PLUGIN_PATH) to reg, runs args with the
// standard streams, and stops the plugins it started. The plugins command
// looks for plugins itself, to explain what it finds.
func runWithPlugins(args []string, reg *core.Registry) int {
	setup := newPluginSetup(reg)
	if !isPluginsCommand(args) {
		host, err := startPlugins(setup, reg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "b14fs: %v\n", err)
			return exitUsage
		}
		if host != nil {
			defer host.Close()
			setup.host = host
		}
	}
	return run(args, stdio{os.Stdin, os.Stdout, os.Stderr}, reg, setup)
}

// stdio is where a command reads and writes.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// A usageError is an error in how b14fs was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// run runs the command line args with the codecs of reg and the plugins of
// setup (nil: none) and returns the exit code. A panic is reported as an
// internal error, never as a trace.
func run(args []string, std stdio, reg *core.Registry, setup *pluginSetup) (code int) {
	errOut := std.err
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(errOut, "b14fs: internal error: %v\n", p)
			code = exitData
		}
	}()
	root := newRootCommand(newGlobals(std, reg), setup)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintf(errOut, "b14fs: %v\n", err)
	for _, h := range setup.hints(err) {
		fmt.Fprintf(errOut, "b14fs: hint: %s\n", h)
	}
	var ue usageError
	if errors.Is(err, errBinaryToTerminal) {
		return exitUsage // the message says what to do
	}
	if errors.As(err, &ue) || errors.Is(err, transform.ErrSpec) {
		fmt.Fprintln(errOut, "Run 'b14fs --help' for usage.")
		return exitUsage
	}
	return exitData
}
