package base16384

import "encoding/binary"

const (
	unitBase = 0x4E00 // the first data unit
	markerHi = 0x3D   // the high byte of an end marker, 0x3D01..0x3D06
)

// padBits[r] is the number of low bits of the last data unit that carry no
// data after a tail of r bytes.
var padBits = [7]int{0, 6, 12, 4, 10, 2, 8}

// isData reports whether u is a data unit, U+4E00..U+8DFF.
func isData(u uint16) bool { return u-unitBase < 0x4000 }

// packTail returns the 56-bit group value whose first len(b) bytes are b and
// whose other bits are zero.
func packTail(b []byte) uint64 {
	var v uint64
	for i, c := range b {
		v |= uint64(c) << (48 - 8*i)
	}
	return v
}

// groupValue returns the 56-bit group value of up to four data units, the
// missing ones counting as zero.
func groupValue(units []uint16) uint64 {
	var v uint64
	for i, u := range units {
		v |= uint64(u-unitBase) << (42 - 14*i)
	}
	return v
}

// groupUnit returns the i-th 14-bit field of the 56-bit group value v as a
// unit.
func groupUnit(v uint64, i int) uint16 { return uint16(v>>(42-14*i)&0x3FFF) + unitBase }

// putUnit writes u at the start of dst, raw or as UTF-8, and returns the
// bytes written.
func putUnit(dst []byte, u uint16, isUTF8 bool) int {
	if !isUTF8 {
		binary.BigEndian.PutUint16(dst, u)
		return 2
	}
	dst[0] = 0xE0 | byte(u>>12)
	dst[1] = 0x80 | byte(u>>6)&0x3F
	dst[2] = 0x80 | byte(u)&0x3F
	return 3
}

// expandUTF8 rewrites whole groups of raw units as UTF-8: raw holds g groups
// (8g bytes) and dst has room for 12g bytes. raw may be the last 8g bytes of
// dst: every group is read before its output overwrites it.
func expandUTF8(dst, raw []byte) {
	g := len(raw) / 8
	dst = dst[:12*g]
	for i := 0; i < g; i++ {
		putUTF8Group(dst[12*i:12*i+12], binary.BigEndian.Uint64(raw[8*i:8*i+8]))
	}
}
