package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/b14fs/b14fs/core"
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

// startPlugins starts the plugins the pins file allows and registers them
// in reg, warning on standard error of those it leaves out. A pins file this
// user cannot read (another user's home) leaves every plugin unloaded, with a
// warning and a nil host: none can be checked, and most commands need none.
func startPlugins(setup *pluginSetup, reg *core.Registry) (*rpc.Host, error) {
	pins, err := setup.pins()
	switch {
	case errors.Is(err, fs.ErrPermission):
		fmt.Fprintf(os.Stderr, "b14fs: warning: %v: plugins not loaded\n", err)
		return nil, nil
	case err != nil:
		return nil, err
	}
	host, err := setup.discover(reg, pins)
	if err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	for _, w := range host.Warnings() {
		fmt.Fprintf(os.Stderr, "b14fs: warning: %v\n", w)
	}
	return host, nil
}
