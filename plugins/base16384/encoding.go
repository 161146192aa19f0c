package base16384

import (
	"errors"
	"sync"

	"github.com/b14fs/b14fs/core"
)

// An Encoding is base16384 with a set of options, in the style of
// encoding/base64's Encoding: its methods encode and decode whole buffers,
// and NewCodec(opts...) is the same configuration as a core.Codec for
// streams and chains. The options of chain specs ("form=utf8:bom=true") map
// onto the same Options. An Encoding is immutable and safe for concurrent
// use.
type Encoding struct {
	cfg config
}

// An Option sets one of an Encoding's or a Codec's options.
type Option struct {
	set func(*config)
}

var (
	// UTF8 encodes to UTF-8 text (3 bytes a unit, what EncodeToString
	// writes) instead of raw UTF-16BE (2 bytes a unit, what Encode writes).
	// Chain option form=utf8.
	UTF8 = Option{func(c *config) { c.utf8 = true }}
	// BOM writes a byte order mark first (FE FF, or EF BB BF for UTF-8), as
	// the C CLI does. Chain option bom=true.
	BOM = Option{func(c *config) { c.bom = true }}
	// Strict rejects non-zero pad bits and line breaks when decoding. Chain
	// option strict=true.
	Strict = Option{func(c *config) { c.strict = true }}
	// Newline ends the UTF-8 form with a line break (LF), as text files
	// end, unless it holds no unit. It selects the UTF-8 form, as UTF8
	// does. Chain option newline=true (with form=utf8).
	Newline = Option{func(c *config) { c.utf8, c.newline = true, true }}
	// SkipGarbage makes decoding skip every byte of the UTF-8 form where a
	// unit should start that starts none of the alphabet (U+4E00..U+8DFF,
	// U+3D01..U+3D06), as base64 -i does; line breaks are skipped anyway.
	// Strict overrides it: strict decoding skips nothing. Chain option
	// garbage=skip (not with strict=true).
	SkipGarbage = Option{func(c *config) { c.skipGarbage = true }}
	// Checksum writes the C CLI's checksum (base16384 -c) in the pad bits
	// and verifies it when decoding. Its blocks depend on the ones before.
	// Chain option checksum=true.
	Checksum = Option{func(c *config) { c.checksum = true }}
)

// Wrap breaks the UTF-8 form into lines of n units (characters), a line
// break (LF) after each line but the last; 0 (or less) breaks no line. It
// selects the UTF-8 form, as UTF8 does. Chain option wrap=N (with
// form=utf8).
func Wrap(n int) Option { return Option{func(c *config) { c.utf8, c.wrap = true, max(n, 0) }} }

// StdEncoding is the reference encoding: raw UTF-16BE without a byte order
// mark, pad bits ignored when decoding. Its methods give what Encode and
// the other package functions give.
var StdEncoding = New()

// New returns the Encoding with the given options; without any, it is the
// reference encoding, StdEncoding. Options never contradict each other, in
// any order: Wrap and Newline select the UTF-8 form, and Strict overrides
// SkipGarbage.
func New(opts ...Option) *Encoding { return &Encoding{cfg: configure(opts)} }

// configure returns the config of opts.
func configure(opts []Option) config {
	var c config
	for _, o := range opts {
		o.set(&c)
	}
	c.skipGarbage = c.skipGarbage && !c.strict
	return c
}

// check returns the key of the option that contradicts the others, and
// why.
func (c config) check() (key string, err error) {
	switch {
	case c.wrap < 0:
		return "wrap", errors.New("negative")
	case c.wrap > 0 && !c.utf8:
		return "wrap", errors.New("lines need form=utf8")
	case c.newline && !c.utf8:
		return "newline", errors.New("lines need form=utf8")
	case c.skipGarbage && c.strict:
		return "garbage", errors.New("garbage=skip contradicts strict=true")
	}
	return "", nil
}

// EncodedLen returns the length in bytes of the encoding of n bytes: what
// Encode writes, byte order mark and end marker included.
func (e *Encoding) EncodedLen(n int) int {
	if e.cfg.plain() {
		return EncodeLen(n)
	}
	return len(e.cfg.header()) + int(e.cfg.bodyLen(int64(n)))
}

// MaxDecodedLen returns the most bytes an encoding of n bytes, in any form,
// can decode to: the room Decode needs when the encoding is not known yet.
func (e *Encoding) MaxDecodedLen(n int) int { return maxDecodedLen(n) }

// DecodedLen returns the length of the decoding of src (in either text
// form, with or without a byte order mark), judging from its length, its
// start and its end marker only, unless src is in the UTF-8 form with line
// breaks before its end (or the Encoding skips garbage): then it decodes
// src to count. It returns a *core.DataError when src cannot be a valid
// encoding; a nil error does not mean that src is valid.
func (e *Encoding) DecodedLen(src []byte) (int, error) {
	s, err := e.cfg.measure(src[:min(len(src), 3)], src[max(len(src)-maxTrailingBreaks-3, 0):], int64(len(src)))
	if s.utf8 && (e.cfg.skipGarbage || errors.Is(err, core.ErrNoLayout) || !e.cfg.strict && indexLineBreak(src[:s.end]) >= 0) {
		return e.cfg.count(src)
	}
	return int(s.size), err
}

// count returns the length of the decoding of src by decoding it.
func (c config) count(src []byte) (int, error) {
	k := counters.Get().(*counter)
	defer counters.Put(k)
	k.w.Reset(&k.n)
	k.n, k.d.dec.cfg = 0, c
	k.d.dec.reset()
	_, err := k.w.Write(src)
	if err == nil {
		err = k.w.Close()
	}
	return int(k.n), err
}

// A counter is a push stream that decodes to count, with its buffers. count
// takes one from counters, so that DecodedLen (and AppendDecode and
// DecodeString, which call it) do not allocate the stream's 40 KiB each
// time.
type counter struct {
	n countWriter
	d decoder
	w *core.Writer
}

var counters = sync.Pool{New: func() any {
	k := new(counter)
	k.w = core.NewWriter(&k.n, &k.d)
	return k
}}

// A countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// Encode writes the encoding of src to dst, which must hold at least
// EncodedLen(len(src)) bytes, and returns the bytes written. It panics when
// dst is shorter.
func (e *Encoding) Encode(dst, src []byte) int {
	n, err := encodeRaw(e, dst, src)
	if err != nil {
		panic(err)
	}
	return n
}

// AppendEncode appends the encoding of src to dst and returns the extended
// buffer.
func (e *Encoding) AppendEncode(dst, src []byte) []byte { return appendEncode(e, dst, src) }

// EncodeToString returns the encoding of src as a string.
func (e *Encoding) EncodeToString(src []byte) string {
	if e.cfg.plain() || e.cfg == (config{utf8: true}) {
		return encodeString(src, e.cfg.utf8)
	}
	return string(e.AppendEncode(nil, src))
}

// Decode writes the decoding of src to dst, which must hold at least
// DecodedLen(src) bytes, and returns the bytes written. It returns a
// *core.DataError naming the byte offset of the first bad unit for invalid
// input, and an error wrapping io.ErrShortBuffer when dst is too small.
func (e *Encoding) Decode(dst, src []byte) (int, error) {
	return decodeRaw(e, dst, src)
}

// AppendDecode appends the decoding of src to dst and returns the extended
// buffer. For invalid input it returns dst unchanged in length and a
// *core.DataError naming the byte offset of the first bad unit.
func (e *Encoding) AppendDecode(dst, src []byte) ([]byte, error) {
	return appendDecode(e, dst, src)
}

// DecodeString returns the decoding of the encoded text s.
func (e *Encoding) DecodeString(s string) ([]byte, error) {
	return e.AppendDecode(nil, []byte(s))
}

// firstError returns the error at the first bad unit of src, whose length
// or end marker measure found wrong (measureErr): the units before the end
// may hold an earlier fault.
func (e *Encoding) firstError(src []byte, measureErr error) error {
	d := newDecodeState(e.cfg)
	if _, _, err := d.decode(make([]byte, maxDecodedLen(len(src))), src, true); err != nil {
		return err
	}
	return measureErr
}
