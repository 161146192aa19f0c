package main

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384/kernelinfo"
	"github.com/b14fs/b14fs/transform"
)

// globals are what every command works with: the standard streams, the
// codecs, and the options every chain of codecs is made with. Each
// command's constructor, in a file of its own, declares its flags into a
// struct of its own, and its RunE calls a plain function, runX, with the
// globals, those flags and its arguments.
type globals struct {
	std   stdio
	reg   *core.Registry
	chain []transform.Option
}

// newGlobals returns the globals of a run on std with the codecs of reg:
// the bencode stages of its chains report their warnings on std.err.
func newGlobals(std stdio, reg *core.Registry) *globals {
	return &globals{std: std, reg: reg, chain: []transform.Option{withWarnings(std.err)}}
}

// newChain returns the chain of spec, made of the codecs of g.
func (g *globals) newChain(spec string) (core.Codec, error) {
	return transform.New(g.reg, spec, g.chain...)
}

func newRootCommand(g *globals, setup *pluginSetup) *cobra.Command {
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
	root.SetIn(g.std.in)
	root.SetOut(g.std.out)
	root.SetErr(g.std.err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newCodecCommand(g, encodeDirection),
		newCodecCommand(g, decodeDirection),
		newCodecsCommand(g),
		newPluginsCommand(g, setup),
		newMountCommand(g),
		newServeCommand(g),
		newCompatCommand(g),
	)
	root.AddCommand(newTorrentCommand(g))
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
	return fmt.Sprintf("%s (%s, %s/%s, base16384 kernel %s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH, kernelinfo.Name())
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
