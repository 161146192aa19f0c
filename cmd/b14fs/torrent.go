package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/remote"
	"github.com/b14fs/b14fs/plugins/bencode"
	"github.com/b14fs/b14fs/torrent"
)

// maxTorrentSize bounds the .torrent files read: the largest real ones (v2,
// with piece layers) are tens of MiB.
const maxTorrentSize = 256 << 20

func newTorrentCommand(reg *core.Registry, std stdio) *cobra.Command {
	var lenient bool
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
	cmd.PersistentFlags().BoolVar(&lenient, "lenient", false, "accept unsorted and repeated keys and data after the value (reported on standard error)")
	load := func(a []string) (*torrent.MetaInfo, string, error) {
		name := "-"
		if len(a) > 0 {
			name = a[0]
		}
		m, err := loadTorrent(std, name, lenient)
		return m, name, err
	}

	var asJSON bool
	show := &cobra.Command{
		Use:   "show [--json] [FILE|-]",
		Short: "Show a torrent: name, info-hashes, magnet, trackers, web seeds, pieces, files",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE: func(_ *cobra.Command, a []string) error {
			m, _, err := load(a)
			if err != nil {
				return err
			}
			s := summarize(m)
			w := bufio.NewWriterSize(std.out, 64<<10)
			if asJSON {
				err = s.writeJSON(w, &m.Info)
			} else {
				err = s.write(w, &m.Info)
			}
			if err != nil {
				return err
			}
			return w.Flush()
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print JSON (stable field names; see docs/torrent.md)")

	var onlyV1, onlyV2 bool
	infohash := &cobra.Command{
		Use:   "infohash [--v1|--v2] [FILE|-]",
		Short: "Print the info-hash: v1 (SHA-1), v2 (SHA-256), or both for a hybrid torrent, one a line",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE: func(_ *cobra.Command, a []string) error {
			if onlyV1 && onlyV2 {
				return usageError{errors.New("--v1 and --v2 exclude each other")}
			}
			m, name, err := load(a)
			if err != nil {
				return err
			}
			v1, v2 := m.InfoHashes()
			switch {
			case onlyV1 && v1 == "":
				return fmt.Errorf("%s: not a v1 torrent: no v1 info-hash", name)
			case onlyV2 && v2 == "":
				return fmt.Errorf("%s: not a v2 torrent: no v2 info-hash", name)
			}
			for _, h := range []string{v1, v2} {
				if h != "" && !(onlyV1 && h == v2) && !(onlyV2 && h == v1) {
					if _, err := fmt.Fprintln(std.out, h); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
	infohash.Flags().BoolVar(&onlyV1, "v1", false, "only the v1 info-hash")
	infohash.Flags().BoolVar(&onlyV2, "v2", false, "only the v2 info-hash")

	magnet := &cobra.Command{
		Use:   "magnet [FILE|-]",
		Short: "Print the torrent's magnet link",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE: func(_ *cobra.Command, a []string) error {
			m, _, err := load(a)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(std.out, m.Magnet())
			return err
		},
	}

	var progress string
	var data dataFlags
	verify := &cobra.Command{
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
		RunE: func(cmd *cobra.Command, a []string) error {
			delay, err := progressDelayFor(progress, std.err, false)
			if err != nil {
				return err
			}
			fsys, done, err := data.open(cmd, reg, a[1])
			if err != nil {
				return err
			}
			defer done()
			m, _, err := load(a[:1])
			if err != nil {
				return err
			}
			return verifyData(std, m, fsys, delay)
		},
	}
	data.add(verify, "DATA-DIR")
	verify.Flags().StringVar(&progress, "progress", "auto", "show progress on standard error: auto (on a terminal), always, never")

	cmd.AddCommand(newTorrentCreateCommand(reg, std), show, infohash, magnet, verify)
	return cmd
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
// it, never out of it): as it is, or seen through fsx with the codecs of
// the chain, as 'b14fs mount' shows it; and the function that closes it.
func (d *dataFlags) open(cmd *cobra.Command, reg *core.Registry, dir string) (fs.FS, func(), error) {
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
		if base, err = view.build(cmd, reg, base); err != nil {
			closer.Close()
			return nil, nil, err
		}
	}
	return afero.NewIOFS(base), func() { closer.Close() }, nil
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

// A summary is what show prints; its JSON form is the stable machine form.
// show streams the files (see writeJSON); Files is for reading that form.
type summary struct {
	Name         text       `json:"name"`
	Version      string     `json:"version"` // "v1", "v2" or "hybrid"
	InfoHashV1   string     `json:"info_hash_v1,omitempty"`
	InfoHashV2   string     `json:"info_hash_v2,omitempty"`
	Magnet       string     `json:"magnet"`
	Trackers     [][]text   `json:"trackers"`
	WebSeeds     []text     `json:"web_seeds"`
	HTTPSeeds    []text     `json:"http_seeds"` // BEP 17
	Private      bool       `json:"private"`
	CreationDate *int64     `json:"creation_date,omitempty"` // seconds since 1970 UTC
	CreatedBy    *text      `json:"created_by,omitempty"`
	Comment      *text      `json:"comment,omitempty"`
	PieceLength  int64      `json:"piece_length"`
	Pieces       int64      `json:"pieces"`
	TotalSize    int64      `json:"total_size"` // padding files left out
	Files        []fileInfo `json:"files"`      // the last field

	files, pads int64 // the files, padding files included, and the padding files
	padBytes    int64 // the size of the padding files
}

type fileInfo struct {
	Path         text   `json:"path"`          // where a client stores it: torrent.FileEntry.LocalPath
	PathElements []text `json:"path_elements"` // the path as the torrent has it, name first
	Length       int64  `json:"length"`
	Pad          bool   `json:"pad,omitempty"`
	Attr         string `json:"attr,omitempty"`
}

// text is a string that is JSON text when it is valid UTF-8, and
// "base64:" and its bytes in base64 otherwise (or when it starts with
// "base64:"), as the bencode codec writes strings.
type text string

func (t text) MarshalJSON() ([]byte, error) {
	s := string(t)
	if !utf8.ValidString(s) || strings.HasPrefix(s, "base64:") {
		s = "base64:" + base64.StdEncoding.EncodeToString([]byte(s))
	}
	return json.Marshal(s)
}

// summarize returns the summary of m but for its files, which it counts.
func summarize(m *torrent.MetaInfo) *summary {
	in := &m.Info
	v1, v2 := m.InfoHashes()
	s := &summary{
		Name: text(in.Name), InfoHashV1: v1, InfoHashV2: v2, Magnet: m.Magnet(),
		Trackers: [][]text{}, WebSeeds: []text{}, HTTPSeeds: []text{}, Private: in.Private,
		PieceLength: in.PieceLength, Pieces: in.NumPieces(), Files: []fileInfo{},
	}
	switch {
	case in.IsHybrid():
		s.Version = "hybrid"
	case in.HasV2():
		s.Version = "v2"
	default:
		s.Version = "v1"
	}
	for _, tier := range m.Trackers() {
		t := make([]text, len(tier))
		for i, u := range tier {
			t[i] = text(u)
		}
		s.Trackers = append(s.Trackers, t)
	}
	for _, u := range m.WebSeeds() {
		s.WebSeeds = append(s.WebSeeds, text(u))
	}
	for _, u := range m.HTTPSeeds() {
		s.HTTPSeeds = append(s.HTTPSeeds, text(u))
	}
	if m.CreationDate != 0 {
		s.CreationDate = &m.CreationDate
	}
	if m.CreatedBy != "" {
		s.CreatedBy = (*text)(&m.CreatedBy)
	}
	if m.Comment != "" {
		s.Comment = (*text)(&m.Comment)
	}
	for f := range in.Walk() {
		s.files++
		if f.Pad {
			s.pads++
			s.padBytes += f.Length
		} else {
			s.TotalSize += f.Length
		}
	}
	return s
}

// newFileInfo returns what show says of the file f.
func newFileInfo(f *torrent.FileEntry) *fileInfo {
	elems := make([]text, len(f.Path))
	for i, e := range f.Path {
		elems[i] = text(e)
	}
	return &fileInfo{Path: text(shownPath(f)), PathElements: elems, Length: f.Length, Pad: f.Pad, Attr: f.Attr}
}

// shownPath returns where a client stores f, or f's path as the torrent
// has it when a client would not store it.
func shownPath(f *torrent.FileEntry) string {
	if p, ok := f.LocalPath(); ok {
		return p
	}
	return strings.Join(f.Path, "/")
}

// writeJSON writes s, with the files of in, as JSON: as an encoding/json
// Encoder indenting by two spaces writes s with its Files, one file at a
// time.
func (s *summary) writeJSON(w *bufio.Writer, in *torrent.Info) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return err
	}
	// s.Files is empty, and last: the files go in its place.
	head, ok := bytes.CutSuffix(buf.Bytes(), []byte("[]\n}\n"))
	if !ok || len(s.Files) > 0 {
		return fmt.Errorf("torrent show: the JSON form does not end with the files: %q", buf.Bytes())
	}
	w.Write(head)
	// A file, at the depth of an item of "files".
	enc = json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	sep := "[\n    "
	for f := range in.Walk() {
		buf.Reset()
		if err := enc.Encode(newFileInfo(&f)); err != nil {
			return err
		}
		w.WriteString(sep)
		w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		sep = ",\n    "
	}
	if sep[0] == '[' {
		_, err := w.WriteString("[]\n}\n")
		return err
	}
	_, err := w.WriteString("\n  ]\n}\n")
	return err
}

// fieldWidth is the width of the field names of show's output.
const fieldWidth = 14

// write prints s, with the files of in, for people.
func (s *summary) write(w *bufio.Writer, in *torrent.Info) error {
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
	fmt.Fprintf(w, "\nFiles (%d", s.files-s.pads)
	if s.pads > 0 {
		fmt.Fprintf(w, "; padding files not listed: %d, of %s", s.pads, plural(s.padBytes, "byte"))
	}
	w.WriteString("):\n")
	for f := range in.Walk() {
		if !f.Pad {
			fmt.Fprintf(w, "  %10s %14d  %s\n", shortSize(f.Length), f.Length, joinShown([]string{shownPath(&f)}))
		}
	}
	return nil
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

// plural writes n and noun, with an s unless n is 1: "1 byte", "2 bytes".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
