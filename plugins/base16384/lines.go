package base16384

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
