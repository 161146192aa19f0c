package bencode

import (
	"io"
	"math"
	"slices"

	"github.com/b14fs/b14fs/core"
)

const codecName = "bencode"

// Codec is the b14fs codec "bencode". Its decoder turns bencode into JSON
// and its encoder turns that JSON back into the same bencode; see
// docs/bencode.md for the JSON form. It is strict unless configured with
// lenient=true, limits nesting to DefaultMaxDepth unless configured with
// depth=N, and writes binary strings as "base64:" and base64 unless
// configured with binary=hex ("hex:" and hexadecimal).
type Codec struct {
	opts DecodeOptions
	form *binaryForm // nil: base64Form
}

var (
	_ core.Configurable = (*Codec)(nil)
	_ core.Suffixer     = (*Codec)(nil)
)

// NewCodec returns the strict bencode codec.
func NewCodec() *Codec {
	return &Codec{}
}

// WithWarn returns the codec with its decoding streams reporting to warn what
// lenient mode accepts although strict mode rejects it (see
// DecodeOptions.Warn), such as a newline after the value. Options set later
// with WithOptions keep it. warn is called in the goroutine that reads or
// writes the stream.
func (c *Codec) WithWarn(warn func(Warning)) *Codec {
	n := *c
	n.opts.Warn = warn
	return &n
}

// binary returns the codec's binary form.
func (c *Codec) binary() *binaryForm {
	if c.form == nil {
		return base64Form
	}
	return c.form
}

// Name returns "bencode".
func (c *Codec) Name() string { return codecName }

// Suffix returns ".torrent", the usual suffix of bencoded files.
func (c *Codec) Suffix() string { return ".torrent" }

// OptionDocs lists the options WithOptions takes.
func (c *Codec) OptionDocs() []core.OptionDoc {
	return []core.OptionDoc{
		{Key: "lenient", Values: []string{"true", "false"}, Usage: "accept unsorted and repeated keys, values back to back and whitespace around them"},
		{Key: "depth", Usage: "the nesting limit, N >= 1"},
		{Key: "binary", Values: []string{"base64", "hex"}, Usage: `the JSON form of strings that are not text: "base64:..." or "hex:..."; encode with the form decoded with`},
	}
}

// WithOptions returns the codec configured with opts: lenient=true|false
// (accept unsorted and repeated keys, and several values one after another,
// keeping them as they are, and whitespace around values), depth=N (the
// nesting limit, N >= 1) and binary=base64|hex (the JSON form of strings that
// are not text, in both directions).
func (c *Codec) WithOptions(opts core.Options) (core.Codec, error) {
	n := *c
	for _, opt := range opts {
		switch opt.Key {
		case "lenient":
			b, err := opt.Bool(codecName)
			if err != nil {
				return nil, err
			}
			n.opts.Lenient = b
		case "depth":
			d, err := opt.IntIn(codecName, 1, math.MaxInt)
			if err != nil {
				return nil, err
			}
			n.opts.MaxDepth = d
		case "binary":
			names := make([]string, len(binaryForms))
			for i, f := range binaryForms {
				names[i] = f.name
			}
			if err := opt.OneOf(codecName, names...); err != nil {
				return nil, err
			}
			n.form = binaryForms[slices.Index(names, opt.Value)]
		default:
			return nil, opt.Unknown(codecName)
		}
	}
	return &n, nil
}

// NewEncodeReader returns a reader of the bencoding of the JSON r holds.
func (c *Codec) NewEncodeReader(r io.Reader) io.ReadCloser {
	return core.NewReader(r, newStep(newToBencode(c.opts, c.binary())))
}

// NewDecodeReader returns a reader of the JSON form of the bencode r holds.
func (c *Codec) NewDecodeReader(r io.Reader) io.ReadCloser {
	return core.NewReader(r, newStep(newToJSON(c.opts, c.binary())))
}

// NewEncodeWriter returns a writer that writes to w the bencoding of the JSON
// written to it.
func (c *Codec) NewEncodeWriter(w io.Writer) io.WriteCloser {
	return core.NewWriter(w, newStep(newToBencode(c.opts, c.binary())))
}

// NewDecodeWriter returns a writer that writes to w the JSON form of the
// bencode written to it.
func (c *Codec) NewDecodeWriter(w io.Writer) io.WriteCloser {
	return core.NewWriter(w, newStep(newToJSON(c.opts, c.binary())))
}
