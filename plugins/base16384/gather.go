package base16384

import "fmt"

// A gather is a span of the UTF-8 form turned into raw UTF-16BE units, with
// what is needed to map a unit back to its offset in the text: the units
// follow each other in the text but where bytes were skipped (line breaks,
// and with garbage=skip bytes outside the alphabet).
type gather struct {
	raw  []byte // the units, raw; one odd byte at the end for a cut character
	runs []run  // where the units after skipped bytes start
	end  int    // the offset in the text where the span ends
	cut  int    // the offset of the cut character raw ends in, or -1
	full bool   // the span stopped because raw was full, not at the text's end

	stray    int   // the offset of a byte that stops decoding, or -1
	strayErr error // what is wrong with it
}

// A run is a unit and its offset in the text; the units after it, up to the
// next run, follow it 3 bytes apart.
type run struct{ unit, off int }

// isLineBreak reports whether b is CR or LF.
func isLineBreak(b byte) bool { return b == '\n' || b == '\r' }

// lineBreakError is the error for the line break b with strict=true.
func lineBreakError(b byte) error {
	return fmt.Errorf("%w 0x%02x: a line break (strict=true)", ErrUnexpectedByte, b)
}

// inAlphabet reports whether u is a data unit or an end marker 1..6.
func inAlphabet(u uint16) bool { return isData(u) || u>>8 == markerHi && u&0xFF >= 1 && u&0xFF <= 6 }

// utf8Unit returns the unit that the 3-byte UTF-8 sequence b holds, or 0,
// which no decoder accepts, when b is no such sequence.
func utf8Unit(b []byte) uint16 {
	b0, b1, b2 := b[0], b[1], b[2]
	if b0&0xF0 != 0xE0 || b1&0xC0 != 0x80 || b2&0xC0 != 0x80 {
		return 0
	}
	return uint16(b0&0x0F)<<12 | uint16(b1&0x3F)<<6 | uint16(b2&0x3F)
}

// gatherText converts the units at the start of the text src into g.raw, at
// most len(raw)/2 of them, skipping line breaks unless strict and, with
// skipGarbage, any byte that starts no unit of the alphabet. It stops at a
// byte it may not skip (g.stray), and, unless final, before a character
// that src cuts. A character that a final src cuts is passed on as one odd
// byte, so that the raw decoder reports it as truncated.
func (cfg config) gatherText(raw []byte, src []byte, final bool, g *gather) {
	*g = gather{runs: g.runs[:0], cut: -1, stray: -1}
	max := len(raw) / 2 * 2
	n, i, skipped := 0, 0, false
	for i < len(src) {
		if n == max {
			g.full = true
			break
		}
		b := src[i]
		if b&0xF0 == 0xE0 {
			if i+3 > len(src) {
				if !final {
					break
				}
				if cfg.skipGarbage {
					i, skipped = len(src), true
					break
				}
				if skipped || len(g.runs) == 0 {
					g.runs = append(g.runs, run{n / 2, i})
				}
				g.cut = i
				raw[n] = 0
				n++
				i = len(src)
				break
			}
			u := utf8Unit(src[i : i+3])
			if cfg.skipGarbage && !inAlphabet(u) {
				i, skipped = i+1, true
				continue
			}
			if skipped || len(g.runs) == 0 {
				g.runs = append(g.runs, run{n / 2, i})
				skipped = false
			}
			raw[n], raw[n+1] = byte(u>>8), byte(u)
			n += 2
			i += 3
			continue
		}
		switch {
		case isLineBreak(b) && cfg.strict:
			g.stray, g.strayErr = i, lineBreakError(b)
		case isLineBreak(b) || cfg.skipGarbage:
			i, skipped = i+1, true
			continue
		default:
			g.stray, g.strayErr = i, fmt.Errorf("%w 0x%02x", ErrInvalidByte, b)
		}
		break
	}
	g.raw, g.end = raw[:n], i
}

// offset returns the offset in the text of the unit at raw offset b: the
// end of the span for b at the end of the units, the cut character for the
// odd byte.
func (g *gather) offset(b int) int {
	if b >= len(g.raw)/2*2 {
		if g.cut >= 0 {
			return g.cut
		}
		return g.end
	}
	u := b / 2
	r := run{0, 0}
	for _, next := range g.runs {
		if next.unit > u {
			break
		}
		r = next
	}
	return r.off + 3*(u-r.unit)
}
