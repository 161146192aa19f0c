package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// infohashFlags are the flags of torrent infohash.
type infohashFlags struct {
	v1, v2 bool
}

func newTorrentInfohashCommand(g *globals, t *torrentFlags) *cobra.Command {
	var f infohashFlags
	cmd := &cobra.Command{
		Use:   "infohash [--v1|--v2] [FILE|-]",
		Short: "Print the info-hash: v1 (SHA-1), v2 (SHA-256), or both for a hybrid torrent, one a line",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return runTorrentInfohash(g, *t, f, a) },
	}
	cmd.Flags().BoolVar(&f.v1, "v1", false, "only the v1 info-hash")
	cmd.Flags().BoolVar(&f.v2, "v2", false, "only the v2 info-hash")
	return cmd
}

// runTorrentInfohash is torrent infohash: it prints the info-hashes of the
// torrent a names, or the one --v1 or --v2 asks for.
func runTorrentInfohash(g *globals, t torrentFlags, f infohashFlags, a []string) error {
	if f.v1 && f.v2 {
		return usageError{errors.New("--v1 and --v2 exclude each other")}
	}
	m, name, err := t.load(g, a)
	if err != nil {
		return err
	}
	v1, v2 := m.InfoHashes()
	switch {
	case f.v1 && v1 == "":
		return fmt.Errorf("%s: not a v1 torrent: no v1 info-hash", name)
	case f.v2 && v2 == "":
		return fmt.Errorf("%s: not a v2 torrent: no v2 info-hash", name)
	}
	for _, h := range []string{v1, v2} {
		if h != "" && !(f.v1 && h == v2) && !(f.v2 && h == v1) {
			if _, err := fmt.Fprintln(g.std.out, h); err != nil {
				return err
			}
		}
	}
	return nil
}
