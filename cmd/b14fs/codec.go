package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/transform"
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

func newCodecCommand(reg *core.Registry, std stdio, dir direction) *cobra.Command {
	var (
		chain, output, progress string
	)
	cmd := &cobra.Command{
		Use:   dir.name + " [-c CHAIN] [-o OUT] [FILE|-]",
		Short: dir.verb + " FILE (or standard input) through a chain of codecs",
		Long: dir.verb + ` FILE, or standard input when FILE is '-' or missing, through the
codecs of CHAIN, and write the result to standard output or OUT.

OUT is written through a temporary file in its directory and renamed into
place on success, so a failure never leaves a partial file.`,
		Example: "  b14fs " + dir.name + " photo.jpg > photo.b14\n" +
			"  b14fs " + dir.name + " -c bencode,base16384=form=utf8 -o out in",
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			show, err := progressEnabled(progress, std.err)
			if err != nil {
				return err
			}
			codec, err := transform.New(reg, chain)
			if err != nil {
				return err
			}
			name := "-"
			if len(a) == 1 {
				name = a[0]
			}
			return convert(std, dir, codec, name, output, show)
		},
	}
	cmd.Flags().StringVarP(&chain, "chain", "c", defaultChain, "the chain of codecs")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to `OUT` instead of standard output")
	cmd.Flags().StringVar(&progress, "progress", "auto", "show progress on standard error: auto (on a terminal), always, never")
	return cmd
}

// convert runs the named input through codec in direction dir into output
// (standard output when empty).
func convert(std stdio, dir direction, codec core.Codec, input, output string, showProgress bool) (err error) {
	src := std.in
	size := int64(-1)
	if input != "-" {
		f, err := os.Open(input)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		src = f
	}
	if showProgress {
		p := startProgress(std.err, dir.name, src, size)
		defer p.stop()
		src = p
	}
	dst := std.out
	if output != "" {
		f, cerr := createOutput(output)
		if cerr != nil {
			return cerr
		}
		stop := onInterrupt(std.err, f.Abort)
		defer func() {
			stop()
			if err == nil {
				err = f.Commit()
			} else {
				f.Abort()
			}
		}()
		dst = f
	}
	r := dir.pull(codec, src)
	defer r.Close()
	// Hide dst's ReadFrom so the copy goes through the large buffer.
	_, err = io.CopyBuffer(struct{ io.Writer }{dst}, r, make([]byte, copyBufferSize))
	if err != nil {
		return fmt.Errorf("%s: %w", dir.name, err)
	}
	return nil
}
