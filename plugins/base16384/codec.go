package base16384

import (
	"fmt"
	"io"

	"github.com/b14fs/b14fs/core"
)

// Codec is base16384 as a core.Codec. It is Configurable (options form,
// bom, strict and checksum), a Suffixer (".b14") and a BlockCodec: every 7
// plain bytes make one block of 8 encoded bytes (12 in the UTF-8 form).
//
// Decoding detects the form and a byte order mark by itself, whatever the
// options, and may start at any block boundary of a stream. A Codec is
// immutable and safe for concurrent use.
type Codec struct {
	cfg config
}

var (
	_ core.Configurable = (*Codec)(nil)
	_ core.Suffixer     = (*Codec)(nil)
	_ core.BlockCodec   = (*Codec)(nil)

	_ core.ReaderResetter = (*Encoder)(nil)
	_ core.ReaderResetter = (*Decoder)(nil)
	_ core.WriterResetter = (*EncodeWriter)(nil)
	_ core.WriterResetter = (*DecodeWriter)(nil)
)

// NewCodec returns the codec with default options: the raw UTF-16BE form
// without a byte order mark, pad bits zero on encoding and ignored on
// decoding.
func NewCodec() *Codec { return &Codec{} }

// Name returns "base16384".
func (c *Codec) Name() string { return Name }

// Suffix returns ".b14".
func (c *Codec) Suffix() string { return ".b14" }

// WithOptions returns the codec configured with opts:
//
//	form=utf16be|utf8  the encoder's output form (default utf16be)
//	bom=true|false     the encoder writes a byte order mark first
//	strict=true|false  the decoder rejects non-zero pad bits
//	checksum=true|false the encoder writes the C CLI's checksum (base16384
//	                   -c) in the pad bits and the decoder verifies it
//
// An unknown key or a bad value gives a *core.OptionError.
func (c *Codec) WithOptions(opts core.Options) (core.Codec, error) {
	cfg := c.cfg
	for _, opt := range opts {
		var err error
		switch opt.Key {
		case "form":
			err = opt.OneOf(Name, "utf16be", "utf8")
			cfg.utf8 = opt.Value == "utf8"
		case "bom":
			cfg.bom, err = opt.Bool(Name)
		case "strict":
			cfg.strict, err = opt.Bool(Name)
		case "checksum":
			cfg.checksum, err = opt.Bool(Name)
		default:
			err = opt.Unknown(Name)
		}
		if err != nil {
			return nil, err
		}
	}
	return &Codec{cfg: cfg}, nil
}

// NewEncodeReader returns an *Encoder of r with the codec's options.
func (c *Codec) NewEncodeReader(r io.Reader) io.Reader { return newEncoder(r, c.cfg) }

// NewDecodeReader returns a *Decoder of r with the codec's options.
func (c *Codec) NewDecodeReader(r io.Reader) io.Reader { return newDecoder(r, c.cfg) }

// NewEncodeWriter returns an *EncodeWriter into w with the codec's options.
func (c *Codec) NewEncodeWriter(w io.Writer) io.WriteCloser { return newEncodeWriter(w, c.cfg) }

// NewDecodeWriter returns a *DecodeWriter into w with the codec's options.
func (c *Codec) NewDecodeWriter(w io.Writer) io.WriteCloser { return newDecodeWriter(w, c.cfg) }

// EncodedLen returns the length of the encoding of n bytes in the codec's
// form, without a byte order mark.
func (c *Codec) EncodedLen(n int64) int64 { return c.cfg.encodedLen(n) }

// Layout returns how the stored encoding in r, of the given size, maps to
// plain data, reading only its first and last 3 bytes. The form and the byte
// order mark come from the stream, not from the options (but an empty stream
// has the options' form). A decoder started
// at Layout's block boundaries (past the header) decodes the rest.
func (c *Codec) Layout(r io.ReaderAt, size int64) (core.Layout, error) {
	if size < 0 {
		return core.Layout{}, fmt.Errorf("%s: negative size %d", Name, size)
	}
	n := min(size, 3)
	head := make([]byte, n)
	tail := make([]byte, n)
	if err := readAtFull(r, head, 0); err != nil {
		return core.Layout{}, err
	}
	if err := readAtFull(r, tail, size-n); err != nil {
		return core.Layout{}, err
	}
	s, err := measure(head, tail, size)
	if err != nil {
		return core.Layout{}, err
	}
	block := 8
	if s.utf8 || size == 0 && c.cfg.utf8 {
		block = 12
	}
	return core.Layout{Header: s.header, PlainBlock: 7, EncodedBlock: block, Size: s.size}, nil
}

// readAtFull fills p from r at off; io.EOF only counts as an error when p is
// not filled.
func readAtFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	switch {
	case n == len(p):
		return nil
	case err == nil || err == io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}
