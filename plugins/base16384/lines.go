package base16384

import (
	"io"

	"github.com/b14fs/b14fs/core"
)

// A lineState puts line breaks (LF) into the UTF-8 form as it passes: one
// after every wrap units but the last, and with newline one after the last
// unit. The byte order mark passes as it is.
type lineState struct {
	wrap    int  // units a line; 0: one line
	newline bool // end the last line with a line break
	header  int  // bytes of the byte order mark still to pass
	col     int  // bytes of units in the current line
	units   bool // a unit has passed
}

func newLineState(cfg config) lineState {
	return lineState{wrap: cfg.wrap, newline: cfg.newline, header: len(cfg.header())}
}

// lineBreaks returns the line breaks that the encoding of n bytes holds.
func (c config) lineBreaks(n int64) int64 {
	units := encodedUnits(n)
	var breaks int64
	if units > 0 && c.wrap > 0 {
		breaks = (units - 1) / int64(c.wrap)
	}
	if units > 0 && c.newline {
		breaks++
	}
	return breaks
}

// fill copies src to dst, putting in line breaks, until either is used up,
// and returns the bytes written and read. dst may overlap src when it
// starts before src by at least the line breaks fill puts in.
func (l *lineState) fill(dst, src []byte) (nDst, nSrc int) {
	for nSrc < len(src) && nDst < len(dst) {
		if l.header > 0 {
			c := copy(dst[nDst:], src[nSrc:nSrc+min(len(src)-nSrc, l.header)])
			l.header -= c
			nDst += c
			nSrc += c
			continue
		}
		if l.wrap > 0 && l.col == 3*l.wrap {
			dst[nDst] = '\n'
			nDst++
			l.col = 0
			continue
		}
		take := len(src) - nSrc
		if l.wrap > 0 {
			take = min(take, 3*l.wrap-l.col)
		}
		c := copy(dst[nDst:], src[nSrc:nSrc+take])
		nDst += c
		nSrc += c
		l.col += c
		l.units = true
	}
	return nDst, nSrc
}

// end writes the final line break, if any, to dst and returns its length.
func (l *lineState) end(dst []byte) int {
	if !l.newline || !l.units {
		return 0
	}
	l.newline = false
	dst[0] = '\n'
	return 1
}

// A lineWriter writes what is written to it to w with line breaks put in.
type lineWriter struct {
	w   io.Writer
	st  lineState
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	if l.buf == nil {
		l.buf = make([]byte, 32<<10)
	}
	total := len(p)
	for len(p) > 0 {
		n, m := l.st.fill(l.buf, p)
		if _, err := l.w.Write(l.buf[:n]); err != nil {
			return total - len(p), err
		}
		p = p[m:]
	}
	return total, nil
}

// A textEncodeWriter is an EncodeWriter whose output gets line breaks.
type textEncodeWriter struct {
	enc    *EncodeWriter
	lines  *lineWriter
	closed bool
}

func newTextEncodeWriter(w io.Writer, cfg config) *textEncodeWriter {
	lines := &lineWriter{w: w, st: newLineState(cfg)}
	return &textEncodeWriter{enc: newEncodeWriter(lines, cfg), lines: lines}
}

func (t *textEncodeWriter) Write(p []byte) (int, error) { return t.enc.Write(p) }

// Close writes the tail, the end marker and the final line break.
func (t *textEncodeWriter) Close() error {
	if t.closed {
		return t.enc.Close()
	}
	t.closed = true
	if err := t.enc.Close(); err != nil {
		return err
	}
	var nl [1]byte
	_, err := t.lines.w.Write(nl[:t.lines.st.end(nl[:])])
	return err
}

// A textEncoder is an Encoder whose output gets line breaks.
type textEncoder struct {
	enc    *Encoder
	st     lineState
	raw    []byte // room for what enc gives at a time
	in     []byte // what enc gave, not yet passed
	buf    []byte // room for the output
	out    []byte // output not yet returned
	err    error  // enc's error
	eof    bool   // enc has ended
	closed bool
}

func newTextEncoder(r io.Reader, cfg config) *textEncoder {
	return &textEncoder{enc: newEncoder(r, cfg), st: newLineState(cfg)}
}

func (t *textEncoder) Read(p []byte) (int, error) {
	if t.closed {
		return 0, core.ErrClosed
	}
	if t.buf == nil {
		t.raw, t.buf = make([]byte, 32<<10), make([]byte, 32<<10)
	}
	for len(t.out) == 0 {
		switch {
		case len(t.in) > 0:
			n, m := t.st.fill(t.buf, t.in)
			t.in, t.out = t.in[m:], t.buf[:n]
		case t.err != nil:
			return 0, t.err
		case t.eof:
			t.out = t.buf[:t.st.end(t.buf)]
			if len(t.out) == 0 {
				return 0, io.EOF
			}
		default:
			n, err := t.enc.Read(t.raw)
			t.in = t.raw[:n]
			if err == io.EOF {
				t.eof = true
			} else if err != nil {
				t.err = err
			}
		}
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}

// Close ends t: Read fails with core.ErrClosed from now on. It does not
// close t's source.
func (t *textEncoder) Close() error {
	t.closed, t.out, t.in = true, nil, nil
	return t.enc.Close()
}
