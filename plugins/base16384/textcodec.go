package base16384

import (
	"io"

	"github.com/b14fs/b14fs/core"
)

// TextCodec is base16384 as a core.Codec configured for text meant for
// people: the UTF-8 form broken into lines (wrap=N) or ending with a line
// break (newline=true), or decoding that skips garbage (garbage=skip).
// Such streams have no fixed-size blocks, so a TextCodec is no
// core.BlockCodec; it is Configurable and a Suffixer like Codec, and its
// decoders are Codec's. A TextCodec is immutable and safe for concurrent
// use.
type TextCodec struct {
	cfg config
}

var (
	_ core.Configurable = (*TextCodec)(nil)
	_ core.Suffixer     = (*TextCodec)(nil)
	_ core.OptionLister = (*TextCodec)(nil)
	_ core.Texter       = (*TextCodec)(nil)
)

// OptionDocs lists the options WithOptions takes.
func (c *TextCodec) OptionDocs() []core.OptionDoc { return optionDocs }

// NewTextCodec returns the codec with the given options, which may include
// Wrap, Newline and SkipGarbage. It panics when they contradict each other.
func NewTextCodec(opts ...Option) *TextCodec { return &TextCodec{cfg: mustConfigure(opts)} }

// Name returns "base16384".
func (c *TextCodec) Name() string { return Name }

// Suffix returns ".b14".
func (c *TextCodec) Suffix() string { return ".b14" }

// WithOptions returns the codec configured with opts, as Codec.WithOptions
// does: a *Codec when the options leave no line breaks and no garbage to
// skip.
func (c *TextCodec) WithOptions(opts core.Options) (core.Codec, error) {
	return configured(c.cfg, opts)
}

// WritesText reports whether the encoder writes the UTF-8 form, as
// Codec.WritesText does.
func (c *TextCodec) WritesText() bool { return c.cfg.utf8 }

// Text returns the codec set out for people, as Codec.Text does.
func (c *TextCodec) Text(o core.TextOptions) (core.Codec, error) { return c.cfg.text(o) }

// NewEncodeReader returns a reader of the encoding of r, with the line
// breaks the options ask for.
func (c *TextCodec) NewEncodeReader(r io.Reader) io.ReadCloser { return newEncoder(r, c.cfg) }

// NewDecodeReader returns a reader of the decoding of r with the codec's
// options.
func (c *TextCodec) NewDecodeReader(r io.Reader) io.ReadCloser { return newDecoder(r, c.cfg) }

// NewEncodeWriter returns a writer of the encoding into w, with the line
// breaks the options ask for.
func (c *TextCodec) NewEncodeWriter(w io.Writer) io.WriteCloser { return newEncodeWriter(w, c.cfg) }

// NewDecodeWriter returns a writer of the decoding into w with the codec's
// options.
func (c *TextCodec) NewDecodeWriter(w io.Writer) io.WriteCloser { return newDecodeWriter(w, c.cfg) }
