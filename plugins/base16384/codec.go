package base16384

import (
	"fmt"
	"io"

	"github.com/b14fs/b14fs/core"
)

// Codec is base16384 as a core.Codec. It is Configurable (options form,
// bom, strict and checksum, the string forms of the Options), a Suffixer
// (".b14") and a BlockCodec: every 7 plain bytes make one block of 8 encoded
// bytes (12 in the UTF-8 form).
//
// Decoding detects the form and a byte order mark by itself, whatever the
// options, and may start at any block boundary of a stream, unless the
// stream carries a checksum. A Codec is immutable and safe for concurrent
// use.
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

// NewCodec returns the codec with the given options. Without any, it writes
// the raw UTF-16BE form without a byte order mark, pad bits zero, and
// ignores pad bits when decoding.
func NewCodec(opts ...Option) *Codec { return &Codec{cfg: configure(opts)} }

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
func (c *Codec) NewEncodeReader(r io.Reader) io.ReadCloser { return newEncoder(r, c.cfg) }

// NewDecodeReader returns a *Decoder of r with the codec's options.
func (c *Codec) NewDecodeReader(r io.Reader) io.ReadCloser { return newDecoder(r, c.cfg) }

// NewEncodeWriter returns an *EncodeWriter into w with the codec's options.
func (c *Codec) NewEncodeWriter(w io.Writer) io.WriteCloser { return newEncodeWriter(w, c.cfg) }

// NewDecodeWriter returns a *DecodeWriter into w with the codec's options.
func (c *Codec) NewDecodeWriter(w io.Writer) io.WriteCloser { return newDecodeWriter(w, c.cfg) }

// EncodedLen returns the length of the encoding of n bytes in the codec's
// form, without a byte order mark.
func (c *Codec) EncodedLen(n int64) int64 { return c.cfg.encodedLen(n) }

// WriteLayout returns the layout of the streams the codec writes: a byte
// order mark of 2 (UTF-16BE) or 3 (UTF-8) bytes with bom=true, blocks of 7
// plain bytes in 8 (UTF-16BE) or 12 (UTF-8) encoded bytes, independent
// unless checksum=true. The form is "utf16be" or "utf8", followed by "+bom"
// and "+checksum" when those options are set.
func (c *Codec) WriteLayout() core.Layout {
	return c.cfg.layout(c.cfg.utf8, int64(len(c.cfg.header())))
}

// layout returns the layout of a stream of the given text form and header
// written with the options of c (only checksum matters).
func (c config) layout(utf8 bool, header int64) core.Layout {
	l := core.Layout{Header: header, PlainBlock: 7, EncodedBlock: 8, Form: "utf16be", Independent: !c.checksum}
	if utf8 {
		l.EncodedBlock, l.Form = 12, "utf8"
	}
	if header > 0 {
		l.Form += "+bom"
	}
	if c.checksum {
		l.Form += "+checksum"
	}
	return l
}

// Layout returns how the stored encoding in r, of the given size, maps to
// plain data, reading only its first and last 3 bytes. The form and the byte
// order mark come from the stream, not from the options (but an empty stream
// has the options' form); whether it carries a checksum comes from the
// options, as the stream does not tell. Unless it does, a decoder started at
// Layout's block boundaries (past the header) decodes the rest.
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
	isUTF8 := s.utf8 || size == 0 && c.cfg.utf8
	l := c.cfg.layout(isUTF8, s.header)
	l.Size = s.size
	return l, nil
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
