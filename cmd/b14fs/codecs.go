package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newCodecsCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "codecs",
		Short: "List the codecs, one a line: name, then where it comes from",
		Args:  args(cobra.NoArgs),
		RunE:  func(*cobra.Command, []string) error { return runCodecs(g) },
	}
}

// runCodecs is the codecs command.
func runCodecs(g *globals) error {
	for _, e := range g.reg.List() {
		if _, err := fmt.Fprintf(g.std.out, "%s\t%s\n", e.Codec.Name(), e.Origin); err != nil {
			return err
		}
	}
	return nil
}
