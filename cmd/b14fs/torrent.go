package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/internal/remote"
	"github.com/b14fs/b14fs/plugins/bencode"
	"github.com/b14fs/b14fs/torrent"
)

// maxTorrentSize bounds the .torrent files read: the largest real ones (v2,
// with piece layers) are tens of MiB.
const maxTorrentSize = 256 << 20

// torrentFlags are the flags of the torrent command, which its subcommands
// take too.
type torrentFlags struct {
	lenient bool
}

func newTorrentCommand(g *globals) *cobra.Command {
	var t torrentFlags
	cmd := &cobra.Command{
		Use:   "torrent",
		Short: "Make .torrent files and answer questions about them: create, show, infohash, magnet, verify",
		Long: `Make a .torrent file (BitTorrent metainfo: BEP 3, v2 and hybrid torrents of
BEP 52, BEP 12, 19, 27 and 47), and answer the questions torrent tools
answer about one.

FILE '-' (or no FILE, for show, infohash and magnet) reads standard input.
A file that is not valid exits 1 with the byte offset where it went wrong.`,
		Args: args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return usageError{errors.New("torrent: no subcommand given (create, show, infohash, magnet, verify)")}
		},
	}
	cmd.PersistentFlags().BoolVar(&t.lenient, "lenient", false, "accept unsorted and repeated keys and data after the value (reported on standard error)")
	cmd.AddCommand(
		newTorrentCreateCommand(g),
		newTorrentShowCommand(g, &t),
		newTorrentInfohashCommand(g, &t),
		newTorrentMagnetCommand(g, &t),
		newTorrentVerifyCommand(g, &t),
	)
	return cmd
}

// load reads the torrent file that a names (standard input when a is empty
// or "-"), and returns it and its name.
func (t torrentFlags) load(g *globals, a []string) (*torrent.MetaInfo, string, error) {
	name := "-"
	if len(a) > 0 {
		name = a[0]
	}
	m, err := loadTorrent(g.std, name, t.lenient)
	return m, name, err
}

// loadTorrent reads and parses the torrent file name ("-": standard input).
func loadTorrent(std stdio, name string, lenient bool) (*torrent.MetaInfo, error) {
	var r io.Reader = std.in
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := readTorrent(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxTorrentSize {
		return nil, fmt.Errorf("%s: larger than %d MiB: not a torrent file", name, maxTorrentSize>>20)
	}
	// The lists of files stay undecoded in data, and are read when used:
	// a torrent of a million files takes little more memory than its size.
	m, err := torrent.ParseLazy(data, bencode.DecodeOptions{Lenient: lenient, Warn: warner(std.err, name)})
	if err != nil {
		return nil, torrentDataError(name, err)
	}
	return m, nil
}

// readTorrent reads r up to one byte more than maxTorrentSize, into a
// buffer of its size (and a byte, to see the end) when it is a regular
// file, as os.ReadFile does.
func readTorrent(r io.Reader) ([]byte, error) {
	size := 512
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = int(min(fi.Size(), maxTorrentSize)) + 1
		}
	}
	data := make([]byte, 0, size)
	r = io.LimitReader(r, maxTorrentSize+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}

// torrentDataError reports an error about a torrent file's content, as
// decode reports bad data: the file, the byte offset, the message.
func torrentDataError(name string, err error) error {
	var off int64
	var se *bencode.SyntaxError
	var te *torrent.Error
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return fmt.Errorf("%s: %w", name, err)
	}
	msg := strings.TrimSuffix(err.Error(), " at byte offset "+strconv.FormatInt(off, 10))
	return fmt.Errorf("%s: byte offset %d: %s", name, off, msg)
}

// dataFlags are the flags of the commands that read a torrent's data
// (verify, create): through a chain of codecs, in a remote location.
type dataFlags struct {
	chain  string
	remote remote.Options
}

// add defines the flags on cmd, whose data is in what is named place.
func (d *dataFlags) add(cmd *cobra.Command, place string) {
	cmd.Flags().StringVar(&d.chain, "fs-chain", "", "read "+place+"'s files through this `CHAIN` (stored encoded)")
	addRemoteFlags(cmd, &d.remote)
}

// open returns the directory dir, or the remote location dir names, as a
// file system confined to it (a symbolic link may lead to a file inside
// it, never out of it): as it is, or seen through fsx with the chain, made
// of the codecs of g, as 'b14fs mount' shows it; and the function that
// closes it.
func (d *dataFlags) open(g *globals, dir string) (fs.FS, func(), error) {
	view := viewFlags{chain: d.chain, remote: d.remote}
	if d.chain == "" && !remote.IsURL(dir) {
		if fi, err := os.Stat(dir); err != nil {
			return nil, nil, err
		} else if !fi.IsDir() {
			return nil, nil, fmt.Errorf("%s: not a directory", dir)
		}
		// Files opened without waiting on a FIFO put in their place.
		r, err := os.OpenRoot(dir)
		if err != nil {
			return nil, nil, err
		}
		return torrent.RootFS(r), func() { r.Close() }, nil
	}
	base, _, closer, err := view.openBase(dir, true)
	if err != nil {
		return nil, nil, err
	}
	if d.chain != "" {
		if base, err = view.build(g, base); err != nil {
			closer.Close()
			return nil, nil, err
		}
	}
	return afero.NewIOFS(base), func() { closer.Close() }, nil
}

// torrentProgress starts the progress of the work named verb, of total
// bytes (-1: not known), drawn on standard error after delay (never when
// delay is negative), and returns the function that counts bytes done
// (nil for never) and the one that stops the progress.
func torrentProgress(std stdio, verb string, total int64, delay time.Duration) (add func(int64), stop func()) {
	if delay < 0 {
		return nil, func() {}
	}
	p := startProgress(std.err, verb, nil, total, delay)
	return func(n int64) { p.n.Add(n) }, p.stop
}

// stopped reports that a signal stopped the command name (ctx is done
// with the signal as its cause) and returns the error that ends b14fs
// with exitInterrupted.
func stopped(std stdio, name string, ctx context.Context) error {
	fmt.Fprintf(std.err, "b14fs: %s: %v: stopped\n", name, context.Cause(ctx))
	return exitError{exitInterrupted}
}

// joinShown joins a torrent path for display, quoting it when it is not
// plain printable text.
func joinShown(p []string) string {
	s := strings.Join(p, "/")
	for _, r := range s {
		if r == utf8.RuneError || r < ' ' || r == 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}

// plural writes n and noun, with an s unless n is 1: "1 byte", "2 bytes".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
