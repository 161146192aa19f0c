package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/internal/remote"
	"github.com/b14fs/b14fs/torrent"
)

// Piece lengths that -l takes: 2^14 (16 KiB, the least of BEP 52) to
// 2^28 (mktorrent's greatest).
const (
	minPieceExp = 14
	maxPieceExp = 28
)

// createFlags are the flags of 'b14fs torrent create'.
type createFlags struct {
	announce, webSeeds                        []string
	comment, name, output, source, format, pl string
	createdBy, progress                       string
	private, noDate, force                    bool
	threads                                   int
	data                                      dataFlags
}

func newTorrentCreateCommand(g *globals) *cobra.Command {
	var f createFlags
	cmd := &cobra.Command{
		Use:   "create [flags] PATH|URL",
		Short: "Make a torrent of a file or directory, as mktorrent (v1) and libtorrent (v2, hybrid) make it",
		Long: `Make a torrent of PATH, a file or a directory, and write it to NAME.torrent
(or OUT). The flags are mktorrent's; with the same ones, a v1 torrent has
the info-hash mktorrent 1.1 gives, and a v2 or hybrid one those of
libtorrent's create_torrent (as in qBittorrent), so that they join the
same swarms.

Symbolic links inside PATH are followed, as mktorrent follows them; one
that leads out of PATH (or is absolute) is an error. FIFOs, sockets and
devices are left out, with a warning. Progress shows on standard error
when it is a terminal.

--fs-chain reads PATH through that chain, as 'b14fs mount' shows it: a
directory of files stored encoded (such as NAME.b14 files with base16384)
makes the torrent of their decoded content, without decoding them to disk;
PATH may also name one file of such a directory as it is shown (NAME). PATH
may be a remote directory: sftp://USER@HOST[:PORT]/PATH or
s3://BUCKET/PREFIX; see docs/remote.md.`,
		Example: "  b14fs torrent create -a udp://tracker.example:6969/announce -o photos.torrent photos\n" +
			"  b14fs torrent create --format hybrid -p -s MYTRACKER -l 1M data\n" +
			"  b14fs torrent create -d -l 18 -a http://a.example/announce,http://b.example/announce -a udp://c.example:80 iso/debian.iso\n" +
			"  b14fs torrent create --fs-chain base16384 -o photos.torrent ~/vault/photos",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, a []string) error { return runTorrentCreate(g, f, a[0]) },
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.announce, "announce", "a", nil, "a tier of trackers, `URL[,URL...]`; repeat for backup tiers")
	fl.StringVarP(&f.comment, "comment", "c", "", "the torrent's comment")
	fl.StringVarP(&f.pl, "piece-length", "l", "", "pieces of 2^`N` bytes (14 to 28, as mktorrent's -l), or a size such as 256K or 1M (default: by total size, as libtorrent)")
	fl.StringVarP(&f.name, "name", "n", "", "the torrent's `NAME` (default: PATH's base name)")
	fl.StringVarP(&f.output, "output", "o", "", "write to `OUT` (default NAME.torrent; - is standard output)")
	fl.BoolVarP(&f.force, "force", "f", false, "overwrite OUT if it exists; write to a terminal")
	fl.BoolVarP(&f.private, "private", "p", false, "private torrent: peers from the trackers only (BEP 27)")
	fl.StringVarP(&f.source, "source", "s", "", "the info dictionary's source, which some private trackers ask for")
	fl.StringArrayVarP(&f.webSeeds, "web-seed", "w", nil, "web seeds, `URL[,URL...]` (BEP 19); repeatable")
	fl.BoolVarP(&f.noDate, "no-date", "d", false, "write no creation date")
	fl.IntVarP(&f.threads, "threads", "t", runtime.NumCPU(), "hash on `N` threads (at most the number of CPUs)")
	fl.StringVar(&f.format, "format", "v1", "the torrent's format: v1, v2 or hybrid (v1 and v2)")
	fl.StringVar(&f.createdBy, "created-by", createdBy(), "the torrent's creator")
	fl.StringVar(&f.progress, "progress", "auto", "show progress on standard error: auto (on a terminal), always, never")
	f.data.add(cmd, "PATH")
	return cmd
}

// createdBy returns the default creator: "b14fs" and its version, when
// the build has one.
func createdBy() string {
	v, _, _ := strings.Cut(version(), " ")
	if v == "unknown" || v == "(devel)" {
		return "b14fs"
	}
	return "b14fs " + v
}

// options returns the options of Create that the flags give, for a
// torrent of path.
func (f *createFlags) options(path string) (torrent.CreateOptions, error) {
	o := torrent.CreateOptions{Comment: f.comment, CreatedBy: f.createdBy, Private: f.private, Source: f.source, Threads: f.threads}
	var err error
	if o.Version, err = parseFormat(f.format); err != nil {
		return o, err
	}
	if o.PieceLength, err = parsePieceLength(f.pl); err != nil {
		return o, err
	}
	if f.threads < 1 {
		return o, usageError{fmt.Errorf("--threads %d: want 1 or more", f.threads)}
	}
	if o.Trackers, err = splitURLs("--announce", f.announce); err != nil {
		return o, err
	}
	seeds, err := splitURLs("--web-seed", f.webSeeds)
	if err != nil {
		return o, err
	}
	for _, s := range seeds {
		o.WebSeeds = append(o.WebSeeds, s...)
	}
	if o.Name = f.name; o.Name == "" {
		o.Name = baseName(path)
	}
	if o.Name == "" || o.Name == "." || o.Name == ".." || o.Name == "/" || strings.ContainsRune(o.Name, '/') {
		return o, usageError{fmt.Errorf("%q is not a torrent name: name it with -n NAME", o.Name)}
	}
	if !f.noDate {
		o.CreationDate = time.Now().Unix()
	}
	return o, nil
}

// baseName returns the last name of path, a file's path or a remote
// location ("" for the login directory of sftp://HOST/~, the bucket of
// s3://BUCKET).
func baseName(path string) string {
	if !remote.IsURL(path) {
		return filepath.Base(filepath.Clean(path))
	}
	u, err := url.Parse(path)
	if err != nil {
		return ""
	}
	dir := strings.TrimRight(u.Path, "/")
	switch name := dir[strings.LastIndexByte(dir, '/')+1:]; name {
	case "":
		return u.Host
	case "~":
		return ""
	default:
		return name
	}
}

// runTorrentCreate is torrent create: it makes the torrent of path.
func runTorrentCreate(g *globals, f createFlags, path string) error {
	std := g.std
	o, err := f.options(path)
	if err != nil {
		return err
	}
	out := f.output
	if out == "" {
		out = o.Name + ".torrent"
	}
	toTerminal := out == "-" && isTerminal(std.out)
	delay, err := progressDelayFor(f.progress, std.err, toTerminal)
	if err != nil {
		return err
	}
	switch {
	case toTerminal && !f.force:
		return errBinaryToTerminal
	case out != "-" && !f.force:
		if _, err := os.Lstat(out); err == nil {
			return fmt.Errorf("%s: the file exists: -f overwrites it", out)
		}
	}

	fsys, base, done, err := openCreateData(g, path, &f.data)
	if err != nil {
		return err
	}
	defer done()
	// shown names a file of fsys as the user knows it.
	shown := func(name string) string { return filepath.Join(path, name) }
	switch {
	case base != ".":
		shown = func(string) string { return path }
	case remote.IsURL(path):
		shown = func(name string) string { return strings.TrimSuffix(path, "/") + "/" + name }
	}
	o.Skipped = func(name string, mode fs.FileMode) {
		fmt.Fprintf(std.err, "b14fs: warning: %s: %s, not a regular file: left out\n", shown(name), fileKind(mode))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var stopProgress func()
	o.Progress, stopProgress = torrentProgress(std, "hash", -1, delay)
	m, err := torrent.Create(ctx, fsys, base, o)
	stopProgress()
	if ctx.Err() != nil {
		return stopped(std, "torrent create", ctx)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("torrent create: %s: %w", shown(pe.Path), pe.Err)
		}
		return fmt.Errorf("torrent create: %w", err)
	}
	stop()
	data, err := m.Marshal()
	if err != nil {
		return err
	}
	w, err := openOutput(std, out)
	if err != nil {
		return err
	}
	_, err = w.w.Write(data)
	return w.finish(err)
}

// openCreateData opens what create reads path through, as the flags of
// data say (see dataFlags.open), and returns it with the name of path in
// it: the directory path names (after links), and "." in it; or, for a
// file, the directory that holds it, and its name there (the name shown
// of a file stored encoded). A remote location is a directory.
func openCreateData(g *globals, path string, data *dataFlags) (fs.FS, string, func(), error) {
	dir, base := path, "."
	switch {
	case remote.IsURL(path):
	case data.chain == "":
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, "", nil, err
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, "", nil, err
		}
		dir = real
		if !fi.IsDir() {
			dir, base = filepath.Dir(real), filepath.Base(real)
		}
	default:
		// A file stored encoded is not there under the name it is
		// shown with.
		if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
			dir, base = filepath.Dir(path), filepath.Base(path)
		}
	}
	fsys, done, err := data.open(g, dir)
	return fsys, base, done, err
}

// fileKind names the type of a file that is not a regular file.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}

// parseFormat parses --format.
func parseFormat(s string) (torrent.Version, error) {
	switch s {
	case "v1":
		return torrent.V1, nil
	case "v2":
		return torrent.V2, nil
	case "hybrid":
		return torrent.Hybrid, nil
	}
	return 0, usageError{fmt.Errorf("--format %q: want v1, v2 or hybrid", s)}
}

// parsePieceLength parses -l: "" (0, chosen by size), an exponent N for
// 2^N bytes as mktorrent takes it, or a size with a binary unit (K, M or
// G, alone or followed by "iB" or "B").
func parsePieceLength(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	bad := usageError{fmt.Errorf("--piece-length %q: want an exponent from %d to %d (pieces of 2^N bytes) or a power of two from 16K to 256M, such as 256K", s, minPieceExp, maxPieceExp)}
	if n, err := strconv.Atoi(s); err == nil {
		if n < minPieceExp || n > maxPieceExp {
			return 0, bad
		}
		return 1 << n, nil
	}
	num := strings.TrimRight(s, "KkMmGgiB")
	unit := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(s[len(num):], "B"), "i"))
	shift := map[string]int{"K": 10, "M": 20, "G": 30}[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if shift == 0 || err != nil || n <= 0 || n > 1<<maxPieceExp>>shift {
		return 0, bad
	}
	if n <<= shift; n < 1<<minPieceExp || n&(n-1) != 0 {
		return 0, bad
	}
	return n, nil
}

// splitURLs splits each value of a repeatable URL flag at its commas, as
// mktorrent does (for -a, each value is a tier).
func splitURLs(flag string, values []string) ([][]string, error) {
	var out [][]string
	for _, v := range values {
		var urls []string
		for u := range strings.SplitSeq(v, ",") {
			if u = strings.TrimSpace(u); u == "" {
				return nil, usageError{fmt.Errorf("%s %q: an empty URL", flag, v)}
			}
			urls = append(urls, u)
		}
		out = append(out, urls)
	}
	return out, nil
}
