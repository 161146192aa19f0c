package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc"
)

func newPluginsCommand(g *globals, setup *pluginSetup) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "List the plugins found, and every file of the plugin directories skipped, and why",
		Long: `List the plugins found in the plugin directories: the default one,
$XDG_DATA_HOME/b14fs/plugins (~/.local/share/b14fs/plugins), then those of
$B14FS_PLUGIN_PATH. Each plugin is started to show the protocol version it
speaks, the suffix it suggests and the options it takes (if it lists
them), with the SHA-256 of its executable and
its pin: from the pins file, $XDG_DATA_HOME/b14fs/plugins.sha256, or from
$B14FS_PLUGIN_SHA256. Every other file of the directories is listed as
skipped, with the reason.

The exit code is 1 when a plugin cannot be used (it does not start, speaks
another protocol version, or its pin does not match) or a pin names no
plugin.`,
		Args: args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error { return runPlugins(g, setup) },
	}
	cmd.AddCommand(newPluginsPinCommand(g, setup))
	return cmd
}

// errPluginTrouble makes the plugins command exit 1 once it listed all.
var errPluginTrouble = exitError{code: exitData}

// runPlugins is the plugins command: it lists the plugins of s.
func runPlugins(g *globals, s *pluginSetup) error {
	pins, err := s.pins()
	if err != nil {
		return usageError{err}
	}
	w := &errWriter{w: g.std.out}
	for i, d := range s.dirs {
		state := ""
		if _, err := os.Stat(d); err != nil {
			state = " (absent)"
		}
		if i == 0 && s.pinsFile != "" {
			state += " (default)"
		}
		w.printf("directory %s%s\n", d, state)
	}
	reg := new(core.Registry)
	for _, e := range s.base.List() {
		reg.Register(e.Codec, e.Origin)
	}
	host, err := rpc.Discover(reg, strings.Join(s.dirs, string(os.PathListSeparator)), rpc.WithPins(pins))
	trouble := false
	if err != nil {
		// A pin of no plugin: list the plugins without the pins, and the pins.
		w.printf("error: %v\n", err)
		trouble = true
		if host, err = rpc.Discover(reg, strings.Join(s.dirs, string(os.PathListSeparator))); err != nil {
			return err
		}
	}
	defer host.Close()
	for _, p := range host.Inspect() {
		w.printf("\nplugin %s\n  path:     %s\n", p.Name, p.Path)
		if p.Protocol != 0 {
			w.printf("  protocol: %d\n", p.Protocol)
		}
		if p.Suffix != "" {
			w.printf("  suffix:   %s\n", p.Suffix)
		}
		if len(p.Options) > 0 {
			w.printf("  options:\n")
			for _, o := range p.Options {
				values := ""
				if len(o.Values) > 0 {
					values = " (" + strings.Join(o.Values, ", ") + ")"
				}
				w.printf("    %s%s: %s\n", o.Key, values, o.Usage)
			}
		}
		if p.SHA256 != nil {
			w.printf("  sha256:   %x\n", p.SHA256)
		}
		switch pin, ok := pins[p.Name]; {
		case !ok:
			w.printf("  pin:      none\n")
		case bytes.Equal(pin, p.SHA256):
			w.printf("  pin:      matches\n")
		default:
			w.printf("  pin:      MISMATCH: pinned to %x\n", pin)
		}
		if p.Err != nil {
			w.printf("  error:    %v\n", p.Err)
			trouble = true
		}
	}
	if skipped := host.Skipped(); len(skipped) > 0 {
		w.printf("\nskipped\n")
		for _, sk := range skipped {
			w.printf("  %s: %s\n", sk.Path, sk.Reason)
		}
	}
	if w.err != nil {
		return w.err
	}
	if trouble {
		return errPluginTrouble
	}
	return nil
}

// errWriter is a writer that keeps its first error, for output printed in
// many pieces.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) printf(format string, a ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, a...)
	}
}
