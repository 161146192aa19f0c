package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/remote"
)

// direction is encoding or decoding.
type direction struct {
	name string
	verb string
	pull func(c core.Codec, r io.Reader) io.ReadCloser
}

var (
	encodeDirection = direction{"encode", "Encode", core.Codec.NewEncodeReader}
	decodeDirection = direction{"decode", "Decode", core.Codec.NewDecodeReader}
)

// defaultChain is the chain encode and decode use without -c.
const defaultChain = "base16384"

// copyBufferSize is the size of the buffer data moves through: large, so
// vectorised codecs work on long spans.
const copyBufferSize = 1 << 20

// convertFlags are the flags of encode and decode that shape a conversion.
type convertFlags struct {
	progress string // --progress: auto, always or never
	force    bool   // -f: write binary to a terminal all the same
	binary   bool   // the output is binary whatever the input
	remote   remote.Options
}

// codecFlags are the flags of encode and decode.
type codecFlags struct {
	chain, output string
	text          textFlags
	convert       convertFlags
}

func newCodecCommand(g *globals, dir direction) *cobra.Command {
	var f codecFlags
	example := "  b14fs encode photo.jpg -o photo.b14\n" +
		"  b14fs encode -c base16384=form=utf8 -w 38 notes.txt\n" +
		"  b14fs encode -c bencode,base16384=form=utf8 -o out.txt in.json"
	if dir.name == decodeDirection.name {
		example = "  b14fs decode photo.b14 -o photo.jpg\n" +
			"  b14fs decode -i pasted.txt\n" +
			"  b14fs decode -c bencode file.torrent | jq .info.name"
	}
	cmd := &cobra.Command{
		Use:   dir.name + " [-c CHAIN] [-o OUT] [FILE|-]",
		Short: dir.verb + " FILE (or standard input) through a chain of codecs",
		Long: dir.verb + ` FILE, or standard input when FILE is '-' or missing, through the
codecs of CHAIN, and write the result to standard output or OUT.

OUT is written through a temporary file in its directory and renamed into
place on success, so a failure never leaves a partial file. Binary output
to a terminal is refused unless -f.

FILE and OUT may be remote: sftp://USER@HOST[:PORT]/PATH or
s3://BUCKET/KEY (an object is stored whole, on success only); see
docs/remote.md.`,
		Example: example,
		Args:    args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			f.text.wrapSet = cmd.Flags().Changed("wrap")
			name := "-"
			if len(a) == 1 {
				name = a[0]
			}
			return runCodec(g, dir, f, name)
		},
	}
	cmd.Flags().StringVarP(&f.chain, "chain", "c", defaultChain, "the chain of codecs")
	cmd.Flags().StringVarP(&f.output, "output", "o", "", "write to `OUT` instead of standard output ('-': standard output)")
	cmd.Flags().StringVar(&f.convert.progress, "progress", "auto", "show progress on standard error: auto (after a second, on a terminal, output elsewhere), always, never")
	cmd.Flags().BoolVarP(&f.convert.force, "force", "f", false, "write binary data to a terminal all the same")
	if dir.name == encodeDirection.name {
		cmd.Flags().IntVarP(&f.text.wrap, "wrap", "w", 0, "break base16384 text (form=utf8) into lines of `N` characters (0: one line)")
	} else {
		cmd.Flags().BoolVarP(&f.text.ignoreGarbage, "ignore-garbage", "i", false, "skip characters outside the base16384 alphabet (line breaks are skipped anyway)")
	}
	addRemoteFlags(cmd, &f.convert.remote)
	registerCompletions(cmd, g.reg)
	return cmd
}

// runCodec runs encode or decode, as dir says, on the file name ("-":
// standard input).
func runCodec(g *globals, dir direction, f codecFlags, name string) error {
	codec, binary, err := textChain(g, f.chain, dir, f.text)
	if err != nil {
		return err
	}
	f.convert.binary = binary
	return convert(g.std, dir, codec, name, f.output, f.convert)
}

// convert runs the named input through codec in direction dir into the
// output that -o names (standard output when empty or "-").
func convert(std stdio, dir direction, codec core.Codec, input, outPath string, flags convertFlags) (err error) {
	src := std.in
	size := int64(-1)
	if input != "-" {
		f, err := openInput(input, flags.remote)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		src = f
	}
	var out *output
	if remote.IsURL(outPath) {
		out, err = openRemoteOutput(std, outPath, flags.remote)
	} else {
		out, err = openOutput(std, outPath)
	}
	if err != nil {
		return err
	}
	defer func() { err = out.finish(err) }()
	if out.terminal && !flags.force && flags.binary {
		return fmt.Errorf("%s: %w", dir.name, usageError{errBinaryToTerminal})
	}
	delay, err := progressDelayFor(flags.progress, std.err, out.terminal)
	if err != nil {
		return err
	}
	if delay >= 0 {
		p := startProgress(std.err, dir.name, src, size, delay)
		defer p.stop()
		src = p
	}
	// Hide dst's ReadFrom so the copy goes through the large buffer.
	dst := struct{ io.Writer }{out.w}
	if out.terminal && !flags.force {
		dst.Writer = &textGuard{w: out.w}
	}
	r := dir.pull(codec, src)
	defer r.Close()
	_, err = io.CopyBuffer(dst, r, make([]byte, copyBufferSize))
	if err != nil {
		return fmt.Errorf("%s: %w", dir.name, err)
	}
	return nil
}
