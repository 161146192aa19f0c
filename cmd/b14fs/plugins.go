package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/atomicfile"
	"github.com/b14fs/b14fs/plugins/rpc"
	"github.com/b14fs/b14fs/transform"
)

// pluginSetup is where b14fs finds plugins and their pins, and what it
// found.
type pluginSetup struct {
	dirs     []string       // the plugin directories, in the order searched
	pinsFile string         // the pins file; "" when there is no default directory
	base     *core.Registry // the codecs before any plugin: for the plugins command
	host     *rpc.Host      // the plugins registered; nil if none were looked for
}

// newPluginSetup returns the plugin setup of the environment, for a run
// whose codecs besides plugins are those of reg: the default plugin
// directory, then those of $B14FS_PLUGIN_PATH.
func newPluginSetup(reg *core.Registry) *pluginSetup {
	s := &pluginSetup{base: new(core.Registry)}
	for _, e := range reg.List() {
		s.base.Register(e.Codec, e.Origin)
	}
	if data := dataHome(); data != "" {
		s.dirs = append(s.dirs, filepath.Join(data, "b14fs", "plugins"))
		s.pinsFile = filepath.Join(data, "b14fs", "plugins.sha256")
	}
	for _, d := range filepath.SplitList(os.Getenv(envPluginPath)) {
		if d != "" && !slices.ContainsFunc(s.dirs, func(e string) bool { return filepath.Clean(e) == filepath.Clean(d) }) {
			s.dirs = append(s.dirs, d) // each directory once, or its plugins would shadow themselves
		}
	}
	return s
}

// dataHome returns the XDG base directory of user data: $XDG_DATA_HOME if
// it is an absolute path, or ~/.local/share; "" when there is no home.
func dataHome() string {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return ""
	}
	return filepath.Join(home, ".local", "share")
}

// pins returns the pins of the pins file and of $B14FS_PLUGIN_SHA256; a
// name pinned in both takes the variable's pin.
func (s *pluginSetup) pins() (map[string][]byte, error) {
	pins := make(map[string][]byte)
	if s.pinsFile != "" {
		data, err := os.ReadFile(s.pinsFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if pins, err = rpc.ParsePins(string(data)); err != nil {
			return nil, fmt.Errorf("%s: %v", s.pinsFile, err)
		}
	}
	env, err := rpc.ParsePins(os.Getenv(envPluginPins))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", envPluginPins, err)
	}
	maps.Copy(pins, env)
	return pins, nil
}

// discover registers in reg the plugins of s's directories, pinned as the
// pins say.
func (s *pluginSetup) discover(reg *core.Registry, pins map[string][]byte) (*rpc.Host, error) {
	host, err := rpc.Discover(reg, strings.Join(s.dirs, string(os.PathListSeparator)), rpc.WithPins(pins))
	if _, statErr := os.Stat(s.pinsFile); err != nil && s.pinsFile != "" && statErr == nil {
		err = fmt.Errorf("%v (pins come from %s and $%s; 'b14fs plugins pin' rewrites the file)", err, s.pinsFile, envPluginPins)
	}
	return host, err
}

// hints returns what the plugin directories hold that would explain err:
// for a codec unknown, the files named after it that were skipped, and why.
func (s *pluginSetup) hints(err error) []string {
	var se *transform.SpecError
	if s == nil || s.host == nil || !errors.As(err, &se) || !errors.Is(err, core.ErrUnknownCodec) {
		return nil
	}
	name := se.Spec[min(se.Offset, len(se.Spec)):]
	name, _, _ = strings.Cut(name, ",")
	name, _, _ = strings.Cut(name, "=")
	name = strings.TrimSpace(name)
	var hints []string
	for _, sk := range s.host.Skipped() {
		if sk.Name == name {
			hints = append(hints, fmt.Sprintf("plugin %s was skipped: %s", sk.Path, sk.Reason))
		}
	}
	return hints
}

// isPluginsCommand reports whether args run the plugins command, which
// looks for plugins itself.
func isPluginsCommand(args []string) bool { return len(args) > 0 && args[0] == "plugins" }

func newPluginsCommand(setup *pluginSetup, std stdio) *cobra.Command {
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
		RunE: func(*cobra.Command, []string) error { return listPlugins(setup, std) },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "pin [NAME...]",
		Short: "Write the SHA-256 of each plugin (or those named) to the pins file",
		Long: `Write the SHA-256 of the executable of each plugin found (or of those
named, keeping the other pins) to the pins file,
$XDG_DATA_HOME/b14fs/plugins.sha256, a NAME=HEX line each. From then on a
plugin whose file has another sum is not run, and a pin of a plugin that
is gone stops b14fs until the file is rewritten.`,
		Args: args(cobra.ArbitraryArgs),
		RunE: func(_ *cobra.Command, names []string) error { return pinPlugins(setup, std, names) },
	})
	return cmd
}

// errPluginTrouble makes the plugins command exit 1 once it listed all.
var errPluginTrouble = exitError{code: exitData}

// listPlugins is the plugins command.
func listPlugins(s *pluginSetup, std stdio) error {
	pins, err := s.pins()
	if err != nil {
		return usageError{err}
	}
	w := &errWriter{w: std.out}
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

// pinPlugins is the plugins pin command.
func pinPlugins(s *pluginSetup, std stdio, names []string) error {
	if s.pinsFile == "" {
		return errors.New("no pins file: neither $XDG_DATA_HOME nor a home directory is set")
	}
	pins, err := s.pins()
	if err != nil {
		return usageError{err}
	}
	reg := new(core.Registry)
	host, err := rpc.Discover(reg, strings.Join(s.dirs, string(os.PathListSeparator)))
	if err != nil {
		return err
	}
	defer host.Close()
	found := make(map[string]string)
	for _, e := range reg.List() {
		found[e.Codec.Name()] = e.Origin
	}
	if len(names) == 0 {
		pins = make(map[string][]byte) // all afresh: no pin of a plugin gone
		names = slices.Sorted(maps.Keys(found))
	}
	for _, name := range names {
		path, ok := found[name]
		if !ok {
			return usageError{fmt.Errorf("no plugin %q to pin", name)}
		}
		sum, err := rpc.Sum(path)
		if err != nil {
			return err
		}
		pins[name] = sum
		if _, err := fmt.Fprintf(std.out, "pinned %s %x %s\n", name, sum, path); err != nil {
			return err
		}
	}
	data := append([]byte("# SHA-256 pins of b14fs plugins, NAME=HEX: written by 'b14fs plugins pin'\n"), rpc.FormatPins(pins)...)
	return writeFileAtomic(s.pinsFile, data)
}

// writeFileAtomic replaces the file at path with data, making its
// directory (mode 0700) if need be.
func writeFileAtomic(path string, data []byte) error {
	fsys := afero.NewOsFs()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := atomicfile.Create(fsys, path, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
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
