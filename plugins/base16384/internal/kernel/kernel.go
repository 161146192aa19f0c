// Package kernel holds the base16384 block kernels: whole 7-byte groups to
// whole 8-byte groups of raw UTF-16BE units and back. The package base16384
// handles tails, markers, text forms and error reporting on top of them.
//
// Encode and Decode pick the fastest implementation this machine supports;
// the generic ones are always available for tests and comparison.
package kernel

import "encoding/binary"

// Encode encodes the whole 7-byte groups of src into dst as raw UTF-16BE
// base16384 units and returns the number of groups encoded, len(src)/7.
// dst must hold at least 8*(len(src)/7) bytes; bytes past a trailing partial
// group of src are not read.
func Encode(dst, src []byte) int {
	if len(src) < 7*selected.genericBelow {
		return EncodeGeneric(dst, src)
	}
	return encodeSelected(dst, src)
}

// Decode decodes the whole 8-byte groups of src (raw UTF-16BE units) into dst,
// 7 bytes a group, stopping before the first group that holds a unit outside
// U+4E00..U+8DFF. It returns the number of groups decoded. dst must hold at
// least 7*(len(src)/8) bytes. The group at the returned index (if any) is
// the one holding the first bad unit. Bytes of dst[:7*(len(src)/8)] past the
// decoded groups may be overwritten.
func Decode(dst, src []byte) int {
	if len(src) < 8*selected.genericBelow {
		return DecodeGeneric(dst, src)
	}
	return decodeSelected(dst, src)
}

// EncodeGeneric is the portable implementation of Encode.
func EncodeGeneric(dst, src []byte) int {
	n := len(src) / 7
	d, s := dst[:8*n], src
	// Four groups a step, loading 8 bytes a group (the loads overlap by
	// one byte), while the last load stays inside src.
	for len(s) >= 32 && len(d) >= 32 {
		a := binary.BigEndian.Uint64(s[0:8])
		b := binary.BigEndian.Uint64(s[7:15])
		c := binary.BigEndian.Uint64(s[14:22])
		e := binary.BigEndian.Uint64(s[21:29])
		binary.BigEndian.PutUint64(d[0:8], Units(a))
		binary.BigEndian.PutUint64(d[8:16], Units(b))
		binary.BigEndian.PutUint64(d[16:24], Units(c))
		binary.BigEndian.PutUint64(d[24:32], Units(e))
		s, d = s[28:], d[32:]
	}
	for len(s) >= 8 && len(d) >= 8 {
		binary.BigEndian.PutUint64(d[0:8], Units(binary.BigEndian.Uint64(s[0:8])))
		s, d = s[7:], d[8:]
	}
	if len(s) >= 7 && len(d) >= 8 {
		// The last group, with no byte after it to load.
		x := uint64(binary.BigEndian.Uint32(s))<<32 | uint64(binary.BigEndian.Uint16(s[4:]))<<16 | uint64(s[6])<<8
		binary.BigEndian.PutUint64(d, Units(x))
	}
	return n
}

// Units returns the four units, first unit in the high 16 bits, of the group
// in the high 56 bits of x (the low 8 bits are ignored): four 14-bit fields,
// most significant first, each plus 0x4E00.
func Units(x uint64) uint64 {
	// Split the 56 bits, h<<28 | l, into two 28-bit halves 32 bits apart:
	// plus h<<32 - h<<28.
	t := x>>8 + (x>>36)*0xF0000000
	// Then each half, a<<14 | b, into two 14-bit fields 16 bits apart:
	// plus 3 a<<14.
	return t + 3*(t&0x0FFFC0000FFFC000) + UnitBase
}

// UnitBase is 0x4E00 in each 16-bit lane: the first unit.
const UnitBase = 0x4E004E004E004E00

// BadBits are the bits of a lane that are set, after UnitBase is subtracted
// from the group, when any lane of the group is outside U+4E00..U+8DFF. A
// lane below 0x4E00 wraps to 0xB1FF or more and sets them itself; a lane
// above 0x8DFF sets them unless the lane below it borrowed, and a lane
// that borrows is itself below 0x4E00.
const BadBits = 0xC000C000C000C000

// Fields returns the 56 bits of a group, shifted left 8 (the low 8 bits are
// zero), from w, its four units minus UnitBase: the inverse of Units. The
// result is right only when w&BadBits is zero.
func Fields(w uint64) uint64 {
	// Each 32-bit half, a<<16 | b, becomes a<<14 | b: minus 3 a<<14.
	t := w - 3*(w>>2&0x0FFFC0000FFFC000)
	// Then t, h<<32 | l, becomes h<<36 | l<<8: l<<8 - l<<4 is 240 l.
	return t<<4 + uint64(uint32(t))*240
}

// DecodeGeneric is the portable implementation of Decode.
func DecodeGeneric(dst, src []byte) int {
	n := len(src) / 8
	d, s := dst[:7*n], src[:8*n]
	// Eight groups a step, each stored as 8 bytes as soon as it is
	// decoded: a group's last byte is a zero that the next group's store
	// overwrites. So only one group is in registers at a time, beside the
	// units of all eight ORed together, checked once the step is stored: a
	// step with a bad unit is left to the loop below, which decodes it
	// again and finds its group. The step indexes arrays, not slices that
	// it shortens, so that their lengths stay out of the registers.
	i, j := 0, 0
	for ; i+64 <= len(s) && j+57 <= len(d); i, j = i+64, j+56 {
		p, q := (*[64]byte)(s[i:i+64]), (*[57]byte)(d[j:j+57])
		a := binary.BigEndian.Uint64(p[0:8]) - UnitBase
		binary.BigEndian.PutUint64(q[0:8], Fields(a))
		b := binary.BigEndian.Uint64(p[8:16]) - UnitBase
		binary.BigEndian.PutUint64(q[7:15], Fields(b))
		c := binary.BigEndian.Uint64(p[16:24]) - UnitBase
		binary.BigEndian.PutUint64(q[14:22], Fields(c))
		e := binary.BigEndian.Uint64(p[24:32]) - UnitBase
		binary.BigEndian.PutUint64(q[21:29], Fields(e))
		f := binary.BigEndian.Uint64(p[32:40]) - UnitBase
		binary.BigEndian.PutUint64(q[28:36], Fields(f))
		g := binary.BigEndian.Uint64(p[40:48]) - UnitBase
		binary.BigEndian.PutUint64(q[35:43], Fields(g))
		h := binary.BigEndian.Uint64(p[48:56]) - UnitBase
		binary.BigEndian.PutUint64(q[42:50], Fields(h))
		k := binary.BigEndian.Uint64(p[56:64]) - UnitBase
		binary.BigEndian.PutUint64(q[49:57], Fields(k))
		if (a|b|c|e|f|g|h|k)&BadBits != 0 {
			break
		}
	}
	s, d = s[i:], d[j:]
	i /= 8
	for ; len(s) >= 8; i++ {
		w := binary.BigEndian.Uint64(s[0:8]) - UnitBase
		if w&BadBits != 0 {
			return i
		}
		v := Fields(w)
		if len(d) >= 8 {
			binary.BigEndian.PutUint64(d[0:8], v)
		} else {
			binary.BigEndian.PutUint32(d, uint32(v>>32))
			binary.BigEndian.PutUint16(d[4:], uint16(v>>16))
			d[6] = byte(v >> 8)
		}
		s, d = s[8:], d[7:]
	}
	return i
}
