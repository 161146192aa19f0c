package base16384

import (
	"fmt"
	"unicode/utf8"
)

// A shape is what the start, the end and the size of an encoded stream tell.
type shape struct {
	header int64 // length of the byte order mark, 0 without one
	utf8   bool  // the UTF-8 form, not raw UTF-16BE
	size   int64 // the decoded size
}

// unitLen returns the encoded length of one unit in the form.
func (s shape) unitLen() int64 {
	if s.utf8 {
		return 3
	}
	return 2
}

// detect tells the form and the byte order mark from the first bytes of a
// stream, head (at most 3 bytes; fewer only at the end of the stream).
func detect(head []byte) (header int64, isUTF8 bool) {
	switch {
	case len(head) >= 2 && head[0] == 0xFE && head[1] == 0xFF:
		return 2, false
	case len(head) >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF:
		return 3, true
	case len(head) >= 1 && head[0] >= 0xE0 && head[0] <= 0xEF:
		return 0, true
	}
	return 0, false
}

// measure returns the shape of an encoded stream of the given size from its
// first and last (up to) 3 bytes. It returns a *core.DataError when the
// length or the end marker show that the stream cannot be valid; it does not
// look at the units in between.
func measure(head, tail []byte, size int64) (shape, error) {
	var s shape
	s.header, s.utf8 = detect(head)
	body := size - s.header
	ul := s.unitLen()
	if body%ul != 0 {
		return s, dataError(size-body%ul, ErrTruncated)
	}
	units := body / ul
	if units == 0 {
		return s, nil
	}
	last := tail[len(tail)-int(ul):]
	marker := size - ul
	u, ok := lastUnit(last, s.utf8)
	if !ok || u>>8 != markerHi {
		if units%4 != 0 {
			return s, dataError(size, fmt.Errorf("%w: no end marker after a partial group", ErrTruncated))
		}
		s.size = units / 4 * 7
		return s, nil
	}
	r := int(u & 0xFF)
	if r < 1 || r > 6 {
		return s, dataError(marker, fmt.Errorf("%w: value %d", ErrBadMarker, r))
	}
	data := units - 1
	if data < int64(tailUnits[r]) || (data-int64(tailUnits[r]))%4 != 0 {
		return s, dataError(marker, fmt.Errorf("%w: %d bytes cannot follow %d units", ErrBadMarker, r, data))
	}
	s.size = (data-int64(tailUnits[r]))/4*7 + int64(r)
	return s, nil
}

// lastUnit returns the unit that b, the last unit's bytes, holds.
func lastUnit(b []byte, isUTF8 bool) (uint16, bool) {
	if !isUTF8 {
		return uint16(b[0])<<8 | uint16(b[1]), true
	}
	r, n := utf8.DecodeRune(b)
	return uint16(r), n == 3 && r != utf8.RuneError
}
