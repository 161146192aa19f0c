package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/torrent"
)

// showFlags are the flags of torrent show.
type showFlags struct {
	json bool
}

func newTorrentShowCommand(g *globals, t *torrentFlags) *cobra.Command {
	var f showFlags
	cmd := &cobra.Command{
		Use:   "show [--json] [FILE|-]",
		Short: "Show a torrent: name, info-hashes, magnet, trackers, web seeds, pieces, files",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return runTorrentShow(g, *t, f, a) },
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON (stable field names; see docs/torrent.md)")
	return cmd
}

// runTorrentShow is torrent show: it prints the torrent a names, for
// people or, with --json, as a torrent.Summary in JSON.
func runTorrentShow(g *globals, t torrentFlags, f showFlags, a []string) error {
	m, _, err := t.load(g, a)
	if err != nil {
		return err
	}
	if f.json {
		return torrent.WriteSummaryJSON(g.std.out, m)
	}
	w := bufio.NewWriterSize(g.std.out, 64<<10)
	writeSummary(w, m)
	return w.Flush()
}

// fieldWidth is the width of the field names of show's output.
const fieldWidth = 14

// writeSummary prints the summary of m, with its files, for people.
func writeSummary(w *bufio.Writer, m *torrent.MetaInfo) {
	s := torrent.Summarize(m)
	field := func(name, value string) { fmt.Fprintf(w, "%-*s%s\n", fieldWidth, name+":", value) }
	field("Name", joinShown([]string{string(s.Name)}))
	if s.InfoHashV1 != "" {
		field("Info-hash v1", s.InfoHashV1)
	}
	if s.InfoHashV2 != "" {
		field("Info-hash v2", s.InfoHashV2)
	}
	field("Magnet", s.Magnet)
	field("Version", s.Version)
	field("Private", map[bool]string{false: "no", true: "yes"}[s.Private])
	if s.CreationDate != nil {
		field("Created on", time.Unix(*s.CreationDate, 0).UTC().Format("2006-01-02 15:04:05 MST"))
	}
	if s.CreatedBy != nil {
		field("Created by", joinShown([]string{string(*s.CreatedBy)}))
	}
	if s.Comment != nil {
		// A line each, under one another.
		lines := strings.Split(strings.ReplaceAll(string(*s.Comment), "\r\n", "\n"), "\n")
		for i, line := range lines {
			lines[i] = joinShown([]string{line})
		}
		field("Comment", strings.Join(lines, "\n"+strings.Repeat(" ", fieldWidth)))
	}
	field("Piece length", humanSize(s.PieceLength))
	field("Pieces", strconv.FormatInt(s.Pieces, 10))
	field("Total size", humanSize(s.TotalSize))
	w.WriteString("\nTrackers:\n")
	if len(s.Trackers) == 0 {
		w.WriteString("  none\n")
	}
	for i, tier := range s.Trackers {
		for _, u := range tier {
			fmt.Fprintf(w, "  tier %d: %s\n", i+1, joinShown([]string{string(u)}))
		}
	}
	if len(s.WebSeeds)+len(s.HTTPSeeds) > 0 {
		w.WriteString("\nWeb seeds:\n")
		for _, u := range s.WebSeeds {
			fmt.Fprintf(w, "  %s\n", joinShown([]string{string(u)}))
		}
		for _, u := range s.HTTPSeeds {
			fmt.Fprintf(w, "  %s (BEP 17 HTTP seed)\n", joinShown([]string{string(u)}))
		}
	}
	var files, pads, padBytes int64
	for f := range m.Info.Walk() {
		files++
		if f.Pad {
			pads++
			padBytes += f.Length
		}
	}
	fmt.Fprintf(w, "\nFiles (%d", files-pads)
	if pads > 0 {
		fmt.Fprintf(w, "; padding files not listed: %d, of %s", pads, plural(padBytes, "byte"))
	}
	w.WriteString("):\n")
	for f := range m.Info.Walk() {
		if !f.Pad {
			fmt.Fprintf(w, "  %10s %14d  %s\n", shortSize(f.Length), f.Length, joinShown([]string{string(torrent.SummarizeFile(&f).Path)}))
		}
	}
}

// humanSize writes a size with a binary unit and exactly.
func humanSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	return shortSize(n) + " (" + strconv.FormatInt(n, 10) + " bytes)"
}

// shortSize writes a size with a binary unit.
func shortSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
