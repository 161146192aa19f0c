package base16384

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/b14fs/b14fs/core"
)

// Codec is base16384 as a core.Codec, one type for every set of options.
// It is Configurable (the string forms of the Options: form, bom, strict,
// checksum, wrap, newline, garbage), a Suffixer (".b14"), a Texter (its
// UTF-8 form is text for people) and a BlockCodec: every 7 plain bytes
// make one block of 8 encoded bytes (12 in the UTF-8 form). With the
// options for text (Wrap, Newline, SkipGarbage) its streams have no fixed
// blocks, which WriteLayout reports with core.ErrNoLayout.
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
	_ core.OptionLister = (*Codec)(nil)
	_ core.Texter       = (*Codec)(nil)
)

// NewCodec returns the codec with the given options, the configuration
// New(opts...) has. Without any, it writes the raw UTF-16BE form without a
// byte order mark, pad bits zero, and ignores pad bits when decoding. It
// takes every combination of Options (see New): they do not contradict
// each other.
func NewCodec(opts ...Option) *Codec { return &Codec{cfg: configure(opts)} }

// Name returns "base16384".
func (c *Codec) Name() string { return Name }

// Suffix returns ".b14".
func (c *Codec) Suffix() string { return ".b14" }

// WithOptions returns the codec configured with opts:
//
//	form=utf16be|utf8    the encoder's output form (default utf16be)
//	bom=true|false       the encoder writes a byte order mark first
//	strict=true|false    the decoder rejects non-zero pad bits and line breaks
//	checksum=true|false  the encoder writes the C CLI's checksum (base16384
//	                     -c) in the pad bits and the decoder verifies it
//	wrap=N               the encoder breaks lines after every N units (form=utf8)
//	newline=true|false   the encoder ends its output with a line break (form=utf8)
//	garbage=reject|skip  the decoder skips bytes outside the alphabet in the
//	                     UTF-8 form (not with strict=true)
//
// It returns a *Codec. An unknown key, a bad value or options that
// contradict each other (wrap or newline=true without form=utf8,
// garbage=skip with strict=true) give a *core.OptionError.
func (c *Codec) WithOptions(opts core.Options) (core.Codec, error) {
	return configured(c.cfg, opts)
}

// optionDocs are the options of Codec.
var optionDocs = []core.OptionDoc{
	{Key: "form", Values: []string{"utf16be", "utf8"}, Usage: "the encoder's form: raw UTF-16BE or UTF-8 text"},
	{Key: "bom", Values: []string{"true", "false"}, Usage: "write a byte order mark first"},
	{Key: "strict", Values: []string{"true", "false"}, Usage: "reject non-zero pad bits and line breaks"},
	{Key: "checksum", Values: []string{"true", "false"}, Usage: "write and verify the C CLI's checksum"},
	{Key: "wrap", Usage: "break UTF-8 text into lines of N characters"},
	{Key: "newline", Values: []string{"true", "false"}, Usage: "end UTF-8 text with a line break"},
	{Key: "garbage", Values: []string{"reject", "skip"}, Usage: "skip bytes outside the alphabet when decoding text"},
}

// OptionDocs lists the options WithOptions takes.
func (c *Codec) OptionDocs() []core.OptionDoc { return optionDocs }

// configured returns the codec of cfg changed by opts.
func configured(cfg config, opts core.Options) (core.Codec, error) {
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
		case "wrap":
			cfg.wrap, err = opt.IntIn(Name, 0, math.MaxInt)
		case "newline":
			cfg.newline, err = opt.Bool(Name)
			cfg.newlineOff = !cfg.newline
		case "garbage":
			err = opt.OneOf(Name, "reject", "skip")
			cfg.skipGarbage = opt.Value == "skip"
		default:
			err = opt.Unknown(Name)
		}
		if err != nil {
			return nil, err
		}
	}
	return cfg.codec(func(key string) string {
		value := ""
		for _, opt := range opts {
			if opt.Key == key {
				value = opt.Value
			}
		}
		return value
	})
}

// text returns the codec of cfg set out for people as o says (see
// core.Texter): the UTF-8 form ending with a line break unless the options
// said newline=false, o's lines, and decoding that skips garbage when o
// asks.
func (cfg config) text(o core.TextOptions) (core.Codec, error) {
	if o.WrapSet {
		cfg.wrap = o.Wrap
	}
	cfg.newline = cfg.newline || cfg.utf8 && !cfg.newlineOff
	cfg.skipGarbage = cfg.skipGarbage || o.SkipGarbage
	return cfg.codec(func(key string) string {
		if key == "wrap" {
			return strconv.Itoa(cfg.wrap)
		}
		return "skip" // garbage: the one other key check names here
	})
}

// codec returns the *Codec of cfg. When options contradict each other, it
// returns the *core.OptionError of the one check names, with the value that
// value gives for its key.
func (cfg config) codec(value func(key string) string) (core.Codec, error) {
	if key, err := cfg.check(); err != nil {
		return nil, &core.OptionError{Codec: Name, Key: key, Value: value(key), Err: fmt.Errorf("%w: %w", core.ErrBadOptionValue, err)}
	}
	return &Codec{cfg: cfg}, nil
}

// WritesText reports whether the encoder writes the UTF-8 form (form=utf8),
// which is text, rather than raw UTF-16BE (core.Texter).
func (c *Codec) WritesText() bool { return c.cfg.utf8 }

// Text returns the codec set out for people (core.Texter): the UTF-8 form
// ends with a line break (newline=true) unless the options said
// newline=false, o.Wrap sets its lines (wrap=N) and o.SkipGarbage makes
// decoding skip garbage (garbage=skip). What o asks for that the options
// contradict, such as lines of the raw form, is a *core.OptionError.
func (c *Codec) Text(o core.TextOptions) (core.Codec, error) { return c.cfg.text(o) }

// NewEncodeReader returns a reader of the encoding of r with the codec's
// options.
func (c *Codec) NewEncodeReader(r io.Reader) io.ReadCloser { return newEncoder(r, c.cfg) }

// NewDecodeReader returns a reader of the decoding of r with the codec's
// options.
func (c *Codec) NewDecodeReader(r io.Reader) io.ReadCloser { return newDecoder(r, c.cfg) }

// NewFormDecodeReader returns a reader of the decoding of r, the blocks of
// a stream of the given form (as Layout gives it: "utf8" or "utf16be",
// with "+bom" and "+checksum" when those apply) from a block boundary past
// the byte order mark on (core.FormDecoder). Its units are decoded in
// that form whatever their first bytes look like: a unit of the other form
// is a *core.DataError, as when the stream is decoded from its start.
func (c *Codec) NewFormDecodeReader(r io.Reader, form string) (io.ReadCloser, error) {
	cfg := c.cfg
	base, _, _ := strings.Cut(form, "+")
	switch base {
	case "utf8":
		cfg.utf8 = true
	case "utf16be":
		cfg.utf8 = false
	default:
		return nil, fmt.Errorf("%s: no form %q", Name, form)
	}
	cfg.pinned = true
	return newDecoder(r, cfg), nil
}

// NewEncodeWriter returns a writer of the encoding into w with the codec's
// options.
func (c *Codec) NewEncodeWriter(w io.Writer) io.WriteCloser { return newEncodeWriter(w, c.cfg) }

// NewDecodeWriter returns a writer of the decoding into w with the codec's
// options.
func (c *Codec) NewDecodeWriter(w io.Writer) io.WriteCloser { return newDecodeWriter(w, c.cfg) }

// EncodedLen returns the length of the encoding of n bytes in the codec's
// form, line breaks included, without a byte order mark.
func (c *Codec) EncodedLen(n int64) int64 { return c.cfg.bodyLen(n) }

// WriteLayout returns the layout of the streams the codec writes: a byte
// order mark of 2 (UTF-16BE) or 3 (UTF-8) bytes with bom=true, blocks of 7
// plain bytes in 8 (UTF-16BE) or 12 (UTF-8) encoded bytes, independent
// unless checksum=true. The form is "utf16be" or "utf8", followed by "+bom"
// and "+checksum" when those options are set. With wrap, newline=true or
// garbage=skip the streams have no fixed blocks (line breaks move them, or
// decoding skips what it reads as garbage): it returns an error matching
// core.ErrNoLayout.
func (c *Codec) WriteLayout() (core.Layout, error) {
	if c.cfg.wrap > 0 || c.cfg.newline || c.cfg.skipGarbage {
		return core.Layout{}, fmt.Errorf("%s: %w: wrap, newline=true or garbage=skip", Name, core.ErrNoLayout)
	}
	return c.cfg.layout(c.cfg.utf8, int64(len(c.cfg.header()))), nil
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
// plain data. For the raw form it reads only the first and last few bytes.
// The UTF-8 form may hold line breaks, which decoding skips: Layout reads
// it whole to find them. Line breaks at its end are no matter; elsewhere
// they move the blocks, and Layout returns an error matching
// core.ErrNoLayout (with strict=true, a *core.DataError). With
// garbage=skip, the UTF-8 form has no layout either: what decoding skips
// shows only in decoding.
//
// The form and the byte order mark come from the stream, not from the
// options (but an empty stream has the options' form); after a byte order
// mark, a first unit of the other form is a *core.DataError, as a decoder
// started past the mark would take that form; whether it carries a
// checksum comes from the options, as the stream does not tell. Unless it
// does, a decoder started at Layout's block boundaries (past the header)
// decodes the rest.
func (c *Codec) Layout(r io.ReaderAt, size int64) (core.Layout, error) {
	if size < 0 {
		return core.Layout{}, fmt.Errorf("%s: negative size %d", Name, size)
	}
	head := make([]byte, min(size, 3))
	tail := make([]byte, min(size, maxTrailingBreaks+3))
	if err := readAtFull(r, head, 0); err != nil {
		return core.Layout{}, err
	}
	if err := readAtFull(r, tail, size-int64(len(tail))); err != nil {
		return core.Layout{}, err
	}
	s, err := c.cfg.measure(head, tail, size)
	if err == nil && s.header > 0 && s.end > s.header {
		// A decoder started past the byte order mark tells the form from
		// the first unit: it must be the form the mark names.
		first := make([]byte, min(2, s.end-s.header))
		if err := readAtFull(r, first, s.header); err != nil {
			return core.Layout{}, err
		}
		switch _, isUTF8 := c.cfg.detect(first[:1]); {
		case isUTF8 == s.utf8:
		case s.utf8:
			return core.Layout{}, dataError(s.header, fmt.Errorf("%w 0x%02x", ErrInvalidByte, first[0]))
		default:
			return core.Layout{}, dataError(s.header, fmt.Errorf("%w: bytes % X", ErrInvalidUnit, first))
		}
	}
	if s.utf8 && c.cfg.skipGarbage {
		return core.Layout{}, fmt.Errorf("%s: %w: garbage=skip in the UTF-8 form", Name, core.ErrNoLayout)
	}
	if s.utf8 && !errors.Is(err, core.ErrNoLayout) {
		// Line breaks move the units, so they explain a bad length or end
		// marker too.
		if berr := c.cfg.noBreaks(io.NewSectionReader(r, s.header, s.end-s.header), s.header); berr != nil {
			err = berr
		}
	}
	if err != nil {
		return core.Layout{}, err
	}
	isUTF8 := s.utf8 || size == 0 && c.cfg.utf8
	l := c.cfg.layout(isUTF8, s.header)
	l.Size = s.size
	return l, nil
}

// noBreaks reads r, the units of a stream from offset base on, and returns
// an error when it holds a line break: one matching core.ErrNoLayout, or
// with strict, which rejects line breaks, a *core.DataError.
func (c config) noBreaks(r io.Reader, base int64) error {
	buf := make([]byte, 64<<10)
	for off := base; ; {
		n, err := io.ReadFull(r, buf)
		if i := indexLineBreak(buf[:n]); i >= 0 {
			if c.strict {
				return dataError(off+int64(i), lineBreakError(buf[i]))
			}
			return fmt.Errorf("%s: %w: a line break at byte offset %d", Name, core.ErrNoLayout, off+int64(i))
		}
		off += int64(n)
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			return nil
		default:
			return err
		}
	}
}

// indexLineBreak returns the index of the first CR or LF in b, or -1.
func indexLineBreak(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		i = len(b)
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	if i == len(b) {
		return -1
	}
	return i
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
