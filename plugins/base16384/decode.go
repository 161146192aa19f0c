package base16384

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/b14fs/b14fs/plugins/base16384/internal/kernel"
)

// rawChunk is the size of the raw units the UTF-8 form is converted to at a
// time before decoding: 1024 groups.
const rawChunk = 8 * 1024

// A decodeState decodes one stream, whatever the sizes of the pieces it is
// given. The zero value decodes either form, ignoring pad bits.
type decodeState struct {
	cfg     config // strict and checksum matter
	started bool   // the form is known and the byte order mark skipped
	utf8    bool   // the stream is in the UTF-8 form
	done    bool   // the end marker has been seen
	sum     uint32 // the running checksum when cfg.checksum
	err     error  // the first data error, returned from then on
	raw     []byte // scratch for the UTF-8 form's units
	span    gather // the span of the UTF-8 form being decoded
}

func newDecodeState(cfg config) decodeState {
	return decodeState{cfg: cfg, sum: checksumInit}
}

// reset makes d ready for a new stream, keeping its settings and scratch.
func (d *decodeState) reset() {
	*d = decodeState{cfg: d.cfg, sum: checksumInit, raw: d.raw, span: gather{runs: d.span.runs[:0]}}
}

// maxDecodedLen bounds the decoded length of n encoded bytes, and the room
// decode needs for them.
func maxDecodedLen(n int) int { return n/8*7 + 7 }

// decode decodes src into dst, which must hold maxDecodedLen(len(src))
// bytes, and returns the bytes written and the bytes of src consumed. Unless
// final, it may leave a few bytes at the end of src unconsumed until more
// input shows what they are: the caller passes them again, followed by more.
// With final, src ends the stream: it consumes all of src or returns an
// error. Errors are *core.DataError values with the offset in src of the
// first bad unit; once one is found, decode returns it again.
func (d *decodeState) decode(dst, src []byte, final bool) (nDst, nSrc int, err error) {
	if d.err != nil {
		return 0, 0, d.err
	}
	switch {
	case d.started:
	case d.cfg.pinned:
		d.started, d.utf8 = true, d.cfg.utf8
	case len(src) < 3 && !final:
		return 0, 0, nil
	default:
		h, isUTF8 := d.cfg.detect(src[:min(len(src), 3)])
		d.started, d.utf8 = true, isUTF8
		nSrc = int(h)
	}
	var n, bad int
	if d.utf8 {
		nDst, n, bad, err = d.text(dst, src[nSrc:], final)
	} else {
		nDst, n, bad, err = d.units(dst, src[nSrc:], final)
	}
	if err != nil {
		d.err = dataError(int64(nSrc+bad), err)
		return nDst, nSrc + n, d.err
	}
	return nDst, nSrc + n, nil
}

// text decodes the UTF-8 form by gathering its units as raw units a span at
// a time, skipping line breaks (and garbage, with skipGarbage), and decoding
// those. bad is the offset in src of the bad unit or byte when err is not
// nil.
func (d *decodeState) text(dst, src []byte, final bool) (nDst, nSrc, bad int, err error) {
	// The scratch holds rawChunk bytes of units, or all those of a shorter
	// src (3 bytes each), so that decoding a short text takes no 8 KiB; it
	// grows at least twofold, up to rawChunk.
	if need := min(rawChunk, 2*(len(src)/3+1)); len(d.raw) <= need {
		d.raw = make([]byte, min(rawChunk, max(need, 2*len(d.raw)))+1)
	}
	g := &d.span
	for {
		d.cfg.gatherText(d.raw[:len(d.raw)-1], src[nSrc:], final, g)
		last := !g.full && g.stray < 0
		n, m, b, e := d.units(dst[nDst:], g.raw, last && final)
		nDst += n
		if e != nil {
			bad := nSrc + g.offset(b)
			if errors.Is(e, ErrInvalidUnit) {
				// Name the bytes: the unit in the message may stand for a
				// sequence that is no character at all.
				e = fmt.Errorf("%w: bytes % X", ErrInvalidUnit, src[bad:min(bad+3, len(src))])
			}
			return nDst, nSrc + g.offset(m), bad, e
		}
		if g.stray >= 0 {
			return nDst, nSrc + g.offset(m), nSrc + g.stray, g.strayErr
		}
		nSrc += g.offset(m)
		if !g.full {
			return nDst, nSrc, 0, nil
		}
	}
}

// units decodes raw UTF-16BE units: whole groups through the kernel, then the
// group where the kernel stopped, one at a time. bad is the offset in src of
// the bad unit when err is not nil.
func (d *decodeState) units(dst, src []byte, final bool) (nDst, nSrc, bad int, err error) {
	for {
		rest := src[nSrc:]
		if d.done {
			if len(rest) > 0 {
				return nDst, nSrc, nSrc, ErrTrailingData
			}
			return nDst, nSrc, 0, nil
		}
		// Keep the unit after the last whole group in view: the kernel takes
		// four data units for a whole group, but followed by an end marker
		// they are a tail, which group decodes.
		if n := beforeMarker(rest, (len(rest)-2)/8); n > 0 {
			out := dst[nDst : nDst+7*n]
			g := beforeMarker(rest, kernel.Decode(out, rest[:8*n]))
			if d.cfg.checksum {
				d.sum = checksum(d.sum, out[:7*g])
			}
			nDst += 7 * g
			nSrc += 8 * g
			rest = src[nSrc:]
		}
		n, m, b, e := d.group(dst[nDst:], rest, final)
		nDst += n
		if e != nil {
			return nDst, nSrc, nSrc + b, e
		}
		if m == 0 {
			return nDst, nSrc, 0, nil
		}
		nSrc += m
	}
}

// beforeMarker returns g, a number of whole groups at the start of src, less
// the last one when an end marker follows it, so that only groups that are
// whole whatever comes next go to the kernel. src holds more than 8*g bytes.
func beforeMarker(src []byte, g int) int {
	if g > 0 && src[8*g] == markerHi {
		return g - 1
	}
	return g
}

// group decodes the group at the start of src: four data units, or the tail
// and its end marker. It returns the bytes written and consumed; 0 consumed
// and no error means src ends before the group does (and not final), or src
// is empty. bad is the offset in src of the bad unit when err is not nil.
func (d *decodeState) group(dst, src []byte, final bool) (nDst, nSrc, bad int, err error) {
	var units [4]uint16
	k := 0
	for k < 4 && 2*k+2 <= len(src) {
		u := binary.BigEndian.Uint16(src[2*k:])
		if !isData(u) {
			break
		}
		units[k] = u
		k++
	}
	if 2*k+2 > len(src) {
		switch {
		case !final:
			return 0, 0, 0, nil
		case len(src)%2 != 0:
			return 0, 0, len(src) - 1, ErrTruncated
		case k == 0:
			return 0, 0, 0, nil
		case k < 4:
			return 0, 0, len(src), fmt.Errorf("%w: no end marker after a partial group", ErrTruncated)
		}
		return d.put(dst, groupValue(units[:]), 7), 8, 0, nil
	}
	u := binary.BigEndian.Uint16(src[2*k:])
	if k == 4 && u != markerHi<<8|6 {
		// A whole group, not a 6-byte tail: what follows is the next
		// group's business, as it is when the kernel decodes this one.
		return d.put(dst, groupValue(units[:]), 7), 8, 0, nil
	}
	if u>>8 != markerHi {
		return 0, 0, 2 * k, fmt.Errorf("%w: U+%04X", ErrInvalidUnit, u)
	}
	r := int(u & 0xFF)
	if r < 1 || r > 6 || tailUnits[r] != k {
		return 0, 0, 2 * k, fmt.Errorf("%w: value %d after %d data units", ErrBadMarker, r, k)
	}
	v := groupValue(units[:k])
	pad := uint32(v>>(56-14*k)) & (1<<padBits[r] - 1)
	n := d.put(dst, v, r)
	switch {
	case d.cfg.checksum && pad != d.sum>>(32-padBits[r]):
		return 0, 0, 2 * (k - 1), ErrChecksum
	case !d.cfg.checksum && d.cfg.strict && pad != 0:
		return 0, 0, 2 * (k - 1), ErrPadBits
	}
	d.done = true
	return n, 2*k + 2, 0, nil
}

// put writes the first n bytes of the 56-bit group value v into dst, adds
// them to the checksum and returns n.
func (d *decodeState) put(dst []byte, v uint64, n int) int {
	for i := 0; i < n; i++ {
		dst[i] = byte(v >> (48 - 8*i))
	}
	if d.cfg.checksum {
		d.sum = checksum(d.sum, dst[:n])
	}
	return n
}
