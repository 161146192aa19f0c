package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// compatName is the name that makes b14fs the C base16384 CLI: as argv[0]
// (a symbolic link named base16384) and as the command b14fs base16384.
const compatName = "base16384"

// The exit statuses of the C CLI (2.2.2, and 2.3.2 for the checksum).
const (
	compatUsage    = 255 // a wrong command line (2.2.2 exits -1)
	compatInput    = 1   // the input cannot be opened (base16384_err_get_file_size)
	compatOutput   = 2   // the output cannot be opened (base16384_err_fopen_output_file)
	compatWrite    = 4   // writing failed, or the data cannot be decoded (base16384_err_write_file)
	compatMap      = 6   // the input cannot be read, such as a directory (base16384_err_map_input_file)
	compatChecksum = 10  // -c: the checksum does not match (base16384_err_invalid_decoding_checksum)
)

// compatUsageText is what the C CLI prints, on standard output, for a
// wrong command line.
const compatUsageText = `b14fs as base16384: the C base16384 CLI's interface (2.3.2).
Usage:
base16384 -[ed][t][n][cC] inputfile outputfile
  -e		encode
  -d		decode
  -t		show spend time
  -n		don't write utf16be file header (0xFEFF)
  -c		embed or validate checksum in remainder
  -C		do -c forcely
  inputfile	pass - to read from stdin
  outputfile	pass - to write to stdout
`

// An exitError ends b14fs with its code, its message already printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// newCompatCommand is b14fs base16384: the C CLI's interface, its flags
// parsed by runCompat rather than cobra.
func newCompatCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:                compatName + " -[ed][t][n][cC] INPUT OUTPUT",
		Short:              "Act as the C base16384 CLI: same flags, output and exit statuses",
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, a []string) error {
			if code := runCompat(a, g.std); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}

// compatFlags are the letters of the C CLI's flag word.
type compatFlags struct {
	decode, timed, noBOM, checksum bool
}

// parseCompatFlags parses a flag word such as "-e", "-dt" or "-enc": a dash,
// e or d, then t, n, c and C, each at most once, in any order.
func parseCompatFlags(word string) (compatFlags, bool) {
	var f compatFlags
	if len(word) < 2 || word[0] != '-' {
		return f, false
	}
	seen := map[rune]bool{}
	modes := 0
	for _, c := range word[1:] {
		if seen[c] || !strings.ContainsRune("edtncC", c) {
			return f, false
		}
		seen[c] = true
		switch c {
		case 'e':
			modes++
		case 'd':
			modes++
			f.decode = true
		case 't':
			f.timed = true
		case 'n':
			f.noBOM = true
		case 'c', 'C':
			f.checksum = true
		}
	}
	return f, modes == 1 && !(seen['c'] && seen['C'])
}

// runCompat runs the C CLI's command line args and returns its exit
// status: the output is byte for byte the C CLI's for valid input.
func runCompat(args []string, std stdio) int {
	f, ok := compatFlags{}, len(args) == 3
	if ok {
		f, ok = parseCompatFlags(args[0])
	}
	if !ok {
		fmt.Fprint(std.out, compatUsageText)
		return compatUsage
	}
	start := time.Now()
	src := std.in
	if args[1] != "-" {
		in, err := os.Open(args[1])
		if err != nil {
			fmt.Fprintf(std.err, "%s: %v\n", compatName, err)
			return compatInput
		}
		defer in.Close()
		src = in
	}
	if args[2] == "" {
		// openOutput takes "" for standard output; the C CLI fails to
		// open a file of that name.
		fmt.Fprintf(std.err, "%s: open : %v\n", compatName, syscall.ENOENT)
		return compatOutput
	}
	out, err := openOutput(std, args[2])
	if errors.Is(err, fs.ErrPermission) {
		// No temporary file can be made beside OUTPUT (a directory this
		// user cannot write), but OUTPUT itself may be writable: the C CLI
		// writes it in place, and so does the drop-in then.
		if o, ierr := openInPlace(args[2]); ierr == nil {
			out, err = o, nil
		}
	}
	if err != nil {
		fmt.Fprintf(std.err, "%s: %v\n", compatName, err)
		return compatOutput
	}
	var opts []base16384.Option
	if !f.noBOM {
		opts = append(opts, base16384.BOM)
	}
	if f.checksum {
		opts = append(opts, base16384.Checksum)
	}
	codec := base16384.NewCodec(opts...)
	r := codec.NewEncodeReader(src)
	if f.decode {
		r = codec.NewDecodeReader(src)
	}
	defer r.Close()
	_, err = io.Copy(out.w, r)
	if err = out.finish(err); err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, compatName+": ") { // a data error names the codec
			msg = compatName + ": " + msg
		}
		fmt.Fprintln(std.err, msg)
		return compatStatus(err)
	}
	if f.timed && args[2] != "-" {
		fmt.Fprintf(std.out, "spend time: %dms\n", time.Since(start).Milliseconds())
	}
	return 0
}

// compatStatus returns the C CLI's exit status for err, which ended a
// conversion.
func compatStatus(err error) int {
	switch {
	case errors.Is(err, base16384.ErrChecksum):
		return compatChecksum
	case errors.Is(err, syscall.EISDIR):
		return compatMap
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "read" {
		return compatMap
	}
	return compatWrite
}
