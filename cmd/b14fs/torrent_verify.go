package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/torrent"
)

// verifyFlags are the flags of torrent verify.
type verifyFlags struct {
	progress string
	data     dataFlags
}

func newTorrentVerifyCommand(g *globals, t *torrentFlags) *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify [--fs-chain CHAIN] FILE DATA-DIR|URL",
		Short: "Check the data of a torrent in DATA-DIR against its piece hashes",
		Long: `Check the data of the torrent FILE, in DATA-DIR (the directory it was downloaded
to, which holds the file or directory the torrent names), against its
piece hashes: SHA-1 for v1 torrents, SHA-256 merkle trees for v2, both
for hybrid ones. Each file is listed as complete, incomplete (with its
bad pieces) or missing, with the reason. Exit 0 when everything is
complete, 1 otherwise, 130 after SIGINT or SIGTERM.

No path leads out of DATA-DIR: a symbolic link in it may lead to a file
in it; one that leads out of it is an error for its file, not followed.
A FIFO, socket or device is "not a regular file", never opened.

--fs-chain reads DATA-DIR through that chain, as 'b14fs mount' shows it:
data stored encoded (such as NAME.b14 files with base16384) is checked
without being decoded to disk. DATA-DIR may be remote:
sftp://USER@HOST[:PORT]/PATH or s3://BUCKET/PREFIX; see docs/remote.md.`,
		Example: "  b14fs torrent verify debian.iso.torrent ~/Downloads\n" +
			"  b14fs torrent verify --fs-chain base16384 x.torrent ~/vault\n" +
			"  b14fs torrent verify --fs-chain base16384 x.torrent sftp://me@nas.example/srv/vault",
		Args: args(cobra.ExactArgs(2)),
		RunE: func(_ *cobra.Command, a []string) error { return runTorrentVerify(g, *t, f, a[0], a[1]) },
	}
	f.data.add(cmd, "DATA-DIR")
	cmd.Flags().StringVar(&f.progress, "progress", "auto", "show progress on standard error: auto (on a terminal), always, never")
	return cmd
}

// runTorrentVerify is torrent verify: it checks the data of the torrent
// file in dir.
func runTorrentVerify(g *globals, t torrentFlags, f verifyFlags, file, dir string) error {
	delay, err := progressDelayFor(f.progress, g.std.err, false)
	if err != nil {
		return err
	}
	fsys, done, err := f.data.open(g, dir)
	if err != nil {
		return err
	}
	defer done()
	m, _, err := t.load(g, []string{file})
	if err != nil {
		return err
	}
	return verifyData(g.std, m, fsys, delay)
}

// verifyData verifies m's data in fsys and prints what it found, a line
// for each file as soon as it is known. Progress shows after delay, unless
// delay is negative.
func verifyData(std stdio, m *torrent.MetaInfo, fsys fs.FS, delay time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var out *bufio.Writer
	var held bytes.Buffer
	if delay >= 0 && isTerminal(std.out) {
		// The lines wait for the progress to end, not to cross it.
		out = bufio.NewWriter(&held)
	} else {
		out = bufio.NewWriterSize(std.out, 64<<10)
	}
	complete, files := 0, 0
	o := &torrent.VerifyOptions{File: func(f torrent.FileResult) {
		if f.Pad {
			return
		}
		files++
		line := joinShown(f.Path) + ": " + f.Status.String()
		var details []string
		if len(f.Bad) > 0 {
			details = append(details, "bad pieces "+formatRanges(f.Bad))
		}
		if f.Err != nil {
			details = append(details, f.Err.Error())
		}
		if f.Status == torrent.Complete {
			complete++
		} else if len(details) > 0 {
			line += " (" + strings.Join(details, "; ") + ")"
		}
		out.WriteString(line + "\n")
	}}
	var stopProgress func()
	o.Progress, stopProgress = torrentProgress(std, "verify", m.Info.TotalLength(), delay)
	r, err := torrent.Verify(ctx, m, fsys, o)
	stopProgress()
	if ctx.Err() != nil {
		out.Flush()
		std.out.Write(held.Bytes())
		return stopped(std, "torrent verify", ctx)
	}
	if err != nil {
		return err
	}
	good := r.Pieces - r.NumBad()
	fmt.Fprintf(out, "pieces: %d of %d good; files: %d of %d complete\n", good, r.Pieces, complete, files)
	if err := out.Flush(); err != nil {
		return err
	}
	if _, err := std.out.Write(held.Bytes()); err != nil {
		return err
	}
	if !r.OK() {
		return fmt.Errorf("torrent verify: %s, %d of %s not complete", plural(r.NumBad(), "bad piece"), files-complete, plural(int64(files), "file"))
	}
	return nil
}

// formatRanges writes piece ranges as "5, 7-9".
func formatRanges(rs []torrent.Range) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(r.First, 10))
		if r.End-r.First > 1 {
			b.WriteString("-" + strconv.FormatInt(r.End-1, 10))
		}
	}
	return b.String()
}
