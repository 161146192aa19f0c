package main

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384"
)

func newRootCommand(reg *core.Registry, setup *pluginSetup, std stdio) *cobra.Command {
	root := &cobra.Command{
		Use:   "b14fs",
		Short: "Encode and decode data through chains of codecs",
		Long: `b14fs encodes and decodes data through chains of codecs.

A chain names codecs separated by commas, each with optional key=value
options after '=', separated by ':':

    base16384                  one codec
    base16384=form=utf8        with an option
    bencode,base16384=bom=true two stages

Encoding runs the stages left to right, decoding right to left.`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown command %q", args[0])}
			}
			return usageError{errors.New("no command given")}
		},
	}
	root.SetIn(std.in)
	root.SetOut(std.out)
	root.SetErr(std.err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newCodecCommand(reg, std, encodeDirection),
		newCodecCommand(reg, std, decodeDirection),
		newCodecsCommand(reg, std),
		newPluginsCommand(setup, std),
		newMountCommand(reg, std),
		newServeCommand(reg, std),
		newCompatCommand(std),
	)
	root.AddCommand(newTorrentCommand(reg, std))
	return root
}

// version returns what --version prints after "b14fs version ": the
// module version (which names the VCS revision for a build from a
// checkout), or the revision alone when the module has none, then the Go
// version, the platform and the base16384 kernel in use.
func version() string {
	v := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		v = info.Main.Version
		if v == "" || v == "(devel)" {
			v = "(devel)"
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" {
					v = s.Value[:min(len(s.Value), 12)]
				}
			}
		}
	}
	return fmt.Sprintf("%s (%s, %s/%s, base16384 kernel %s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH, base16384.Kernel())
}

// args checks positional arguments, reporting a misuse as a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

func newCodecsCommand(reg *core.Registry, std stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "codecs",
		Short: "List the codecs, one a line: name, then where it comes from",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, e := range reg.List() {
				if _, err := fmt.Fprintf(std.out, "%s\t%s\n", e.Codec.Name(), e.Origin); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
