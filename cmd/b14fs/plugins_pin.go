package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/plugins/rpc"
)

func newPluginsPinCommand(g *globals, setup *pluginSetup) *cobra.Command {
	return &cobra.Command{
		Use:   "pin [NAME...]",
		Short: "Write the SHA-256 of each plugin (or those named) to the pins file",
		Long: `Write the SHA-256 of the executable of each plugin found (or of those
named, keeping the other pins) to the pins file,
$XDG_DATA_HOME/b14fs/plugins.sha256, a NAME=HEX line each. From then on a
plugin whose file has another sum is not run, and a pin of a plugin that
is gone stops b14fs until the file is rewritten.`,
		Args: args(cobra.ArbitraryArgs),
		RunE: func(_ *cobra.Command, names []string) error { return runPluginsPin(g, setup, names) },
	}
}

// runPluginsPin is the plugins pin command: it pins the plugins of s
// named (all without names).
func runPluginsPin(g *globals, s *pluginSetup, names []string) error {
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
		if _, err := fmt.Fprintf(g.std.out, "pinned %s %x %s\n", name, sum, path); err != nil {
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
