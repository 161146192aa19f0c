package base16384

import "math"

// A lineState puts line breaks (LF) into the UTF-8 form as it passes: one
// after every wrap units but the last, and with newline one after the last
// unit. The byte order mark passes as it is.
type lineState struct {
	width   int  // bytes of units a line (3 a unit); 0: one line
	newline bool // end the last line with a line break
	header  int  // bytes of the byte order mark still to pass
	col     int  // bytes of units in the current line
	units   bool // a unit has passed
}

func newLineState(cfg config) lineState {
	width := 0
	if cfg.wrap > 0 {
		// A line of more bytes than an int counts is one no stream ends.
		width = math.MaxInt
		if cfg.wrap <= math.MaxInt/3 {
			width = 3 * cfg.wrap
		}
	}
	return lineState{width: width, newline: cfg.newline, header: len(cfg.header())}
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
		if l.width > 0 && l.col == l.width {
			dst[nDst] = '\n'
			nDst++
			l.col = 0
			continue
		}
		take := len(src) - nSrc
		if l.width > 0 {
			take = min(take, l.width-l.col)
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
