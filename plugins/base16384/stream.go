package base16384

import (
	"io"

	"github.com/b14fs/b14fs/core"
)

// NewEncoder returns a reader of the raw UTF-16BE encoding of r's content,
// the same bytes as Encode of all of it, to be used as
// io.Copy(w, NewEncoder(r)). Close releases it; it does not close r.
func NewEncoder(r io.Reader) *core.Reader { return newEncoder(r, config{}) }

// NewDecoder returns a reader of the decoding of r's content, in either
// form, with or without a byte order mark. Bad input makes Read return a
// *core.DataError, after the bytes decoded before the bad unit.
func NewDecoder(r io.Reader) *core.Reader { return newDecoder(r, config{}) }

// NewEncodeWriter returns a writer that writes the raw UTF-16BE encoding of
// what is written to it to w. Close writes the tail; it does not close w.
func NewEncodeWriter(w io.Writer) *core.Writer { return newEncodeWriter(w, config{}) }

// NewDecodeWriter returns a writer that writes the decoding of what is
// written to it (either form, with or without a byte order mark) to w. Write
// and Close return a *core.DataError for bad input; Close reports truncated
// input. Close does not close w.
func NewDecodeWriter(w io.Writer) *core.Writer { return newDecodeWriter(w, config{}) }

func newEncoder(r io.Reader, cfg config) *core.Reader { return core.NewReader(r, cfg.encoder()) }

func newDecoder(r io.Reader, cfg config) *core.Reader { return core.NewReader(r, cfg.decoder()) }

func newEncodeWriter(w io.Writer, cfg config) *core.Writer { return core.NewWriter(w, cfg.encoder()) }

func newDecodeWriter(w io.Writer, cfg config) *core.Writer { return core.NewWriter(w, cfg.decoder()) }

// encoder returns the Transformer that encodes with c, line breaks
// included.
func (c config) encoder() core.Transformer {
	if c.wrap == 0 && !c.newline {
		return &encoder{enc: newEncodeState(c)}
	}
	return &lineEncoder{enc: encoder{enc: newEncodeState(c)}, lines: newLineState(c)}
}

// decoder returns the Transformer that decodes with c.
func (c config) decoder() core.Transformer { return &decoder{dec: newDecodeState(c)} }

// An encoder encodes a stream: the byte order mark (if any), whole groups
// as they come, then the tail.
type encoder struct {
	enc     encodeState
	started bool // the byte order mark (if any) is written
}

func (e *encoder) Reset() { e.enc.sum, e.started = checksumInit, false }

func (e *encoder) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	if !e.started {
		h := e.enc.cfg.header()
		if len(dst) < len(h) {
			return 0, 0, core.ErrShortDst
		}
		nDst = copy(dst, h)
		e.started = true
	}
	g, unit := len(src)/7, 8
	if e.enc.cfg.utf8 {
		unit = 12
	}
	if room := len(dst) - nDst; g*unit > room {
		g = room / unit
	}
	if g > 0 {
		nDst += e.enc.groups(dst[nDst:], src[:7*g])
		nSrc = 7 * g
	}
	switch rest := len(src) - nSrc; {
	case rest >= 7:
		return nDst, nSrc, core.ErrShortDst
	case rest == 0:
		return nDst, nSrc, nil
	case !atEOF:
		return nDst, nSrc, core.ErrShortSrc
	case len(dst)-nDst < int(e.enc.cfg.encodedLen(int64(rest))):
		return nDst, nSrc, core.ErrShortDst
	}
	return nDst + e.enc.tail(dst[nDst:], src[nSrc:]), len(src), nil
}

// A lineEncoder is the encoder of the UTF-8 form with line breaks: it
// encodes into a buffer, and puts the line breaks in as it copies out.
type lineEncoder struct {
	enc    encoder
	lines  lineState
	buf    []byte // buf[b0:b1] is encoded and not yet copied out
	b0, b1 int
	ended  bool // the encoder has written the end: the final line break is next
}

func (l *lineEncoder) Reset() {
	l.enc.Reset()
	l.lines, l.b0, l.b1, l.ended = newLineState(l.enc.enc.cfg), 0, 0, false
}

func (l *lineEncoder) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	if l.buf == nil {
		l.buf = make([]byte, 4<<10)
	}
	for {
		if l.b0 < l.b1 {
			n, m := l.lines.fill(dst[nDst:], l.buf[l.b0:l.b1])
			nDst += n
			l.b0 += m
			if l.b0 < l.b1 {
				return nDst, nSrc, core.ErrShortDst
			}
		}
		if l.ended {
			if l.lines.newline && l.lines.units && nDst == len(dst) {
				return nDst, nSrc, core.ErrShortDst
			}
			return nDst + l.lines.end(dst[nDst:]), nSrc, nil
		}
		n, m, err := l.enc.Transform(l.buf, src[nSrc:], atEOF)
		nSrc += m
		l.b0, l.b1 = 0, n
		switch {
		case err == nil && atEOF:
			l.ended = true
		case err != core.ErrShortDst && n == 0:
			return nDst, nSrc, err
		}
	}
}

// A decoder decodes a stream, in either form.
type decoder struct{ dec decodeState }

func (d *decoder) Reset() { d.dec.reset() }

func (d *decoder) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	// decode needs room for the most that its input can decode to.
	in := src
	if maxDecodedLen(len(in)) > len(dst) {
		in = in[:max(len(dst)-7, 0)/7*8]
	}
	nDst, nSrc, err = d.dec.decode(dst, in, atEOF && len(in) == len(src))
	switch {
	case err != nil, nSrc == len(src):
		return nDst, nSrc, err
	case len(in) < len(src):
		return nDst, nSrc, core.ErrShortDst
	}
	return nDst, nSrc, core.ErrShortSrc
}
