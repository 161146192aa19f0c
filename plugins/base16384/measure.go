package base16384

import (
	"fmt"
	"unicode/utf8"

	"github.com/b14fs/b14fs/core"
)

// A shape is what the start, the end and the size of an encoded stream tell.
type shape struct {
	header int64 // length of the byte order mark, 0 without one
	utf8   bool  // the UTF-8 form, not raw UTF-16BE
	size   int64 // the decoded size
	end    int64 // where the units end: line breaks may follow
}

// unitLen returns the encoded length of one unit in the form.
func (s shape) unitLen() int64 {
	if s.utf8 {
		return 3
	}
	return 2
}

// detect tells the form and the byte order mark from the first bytes of a
// stream, head (at most 3 bytes; fewer only at the end of the stream). The
// raw form starts with FE FF or a byte in 0x3D..0x8D, the UTF-8 form with
// EF BB BF, a byte in 0xE0..0xEF or a line break; with skipGarbage, any
// byte that starts no raw unit starts the UTF-8 form.
func (cfg config) detect(head []byte) (header int64, isUTF8 bool) {
	switch {
	case len(head) >= 2 && head[0] == 0xFE && head[1] == 0xFF:
		return 2, false
	case len(head) >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF:
		return 3, true
	case len(head) == 0:
		return 0, false
	}
	b := head[0]
	return 0, b&0xF0 == 0xE0 || isLineBreak(b) || cfg.skipGarbage && (b < 0x3D || b > 0x8D)
}

// maxTrailingBreaks is how many line breaks at the end of the UTF-8 form
// measure looks past; it is given the last maxTrailingBreaks+3 bytes.
const maxTrailingBreaks = 5

// measure returns the shape of an encoded stream of the given size from its
// first (up to) 3 and last (up to) maxTrailingBreaks+3 bytes, assuming that
// the units follow each other without a gap. Line breaks at the end of the
// UTF-8 form are not counted, unless strict. It returns a *core.DataError
// when the length or the end marker show that the stream cannot be valid,
// and an error matching core.ErrNoLayout when the line breaks at the end
// hide the last unit; it does not look at the units in between.
func (cfg config) measure(head, tail []byte, size int64) (shape, error) {
	var s shape
	s.header, s.utf8 = cfg.detect(head)
	if s.utf8 && !cfg.strict {
		for len(tail) > 0 && size > s.header && isLineBreak(tail[len(tail)-1]) {
			tail, size = tail[:len(tail)-1], size-1
		}
	}
	s.end = size
	body := size - s.header
	ul := s.unitLen()
	if body%ul != 0 {
		return s, dataError(size-body%ul, ErrTruncated)
	}
	units := body / ul
	if units == 0 {
		return s, nil
	}
	if len(tail) < int(ul) {
		return s, fmt.Errorf("%s: %w: more than %d line breaks at the end", Name, core.ErrNoLayout, maxTrailingBreaks)
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
