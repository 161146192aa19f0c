package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newTorrentMagnetCommand(g *globals, t *torrentFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "magnet [FILE|-]",
		Short: "Print the torrent's magnet link",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return runTorrentMagnet(g, *t, a) },
	}
}

// runTorrentMagnet is torrent magnet: it prints the magnet link of the
// torrent a names.
func runTorrentMagnet(g *globals, t torrentFlags, a []string) error {
	m, _, err := t.load(g, a)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(g.std.out, m.Magnet())
	return err
}
