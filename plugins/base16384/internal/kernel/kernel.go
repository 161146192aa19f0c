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
	if len(src) < 7*genericBelow {
		return EncodeGeneric(dst, src)
	}
	return encode(dst, src)
}

// Decode decodes the whole 8-byte groups of src (raw UTF-16BE units) into dst,
// 7 bytes a group, stopping before the first group that holds a unit outside
// U+4E00..U+8DFF. It returns the number of groups decoded. dst must hold at
// least 7*(len(src)/8) bytes. The group at the returned index (if any) is
// the one holding the first bad unit. Bytes of dst[:7*(len(src)/8)] past the
// decoded groups may be overwritten.
func Decode(dst, src []byte) int {
	if len(src) < 8*genericBelow {
		return DecodeGeneric(dst, src)
	}
	return decode(dst, src)
}

// genericBelow is the input size, in groups, below which Encode and Decode
// call the generic code directly, a call less than through a kernel that
// would hand such an input to the generic code anyway.
var genericBelow = 0

// EncodeGeneric is the portable implementation of Encode.
func EncodeGeneric(dst, src []byte) int {
	n := len(src) / 7
	dst = dst[:8*n]
	i := 0
	// Load 8 bytes a group while a byte follows the group.
	for ; 7*i+8 <= len(src); i++ {
		binary.BigEndian.PutUint64(dst[8*i:], units(binary.BigEndian.Uint64(src[7*i:])>>8))
	}
	if i < n {
		s := src[7*i : 7*i+7]
		v := uint64(binary.BigEndian.Uint32(s))<<24 | uint64(binary.BigEndian.Uint16(s[4:]))<<8 | uint64(s[6])
		binary.BigEndian.PutUint64(dst[8*i:], units(v))
	}
	return n
}

// units returns the four units of the 56-bit group value v, first unit in
// the high 16 bits: four 14-bit fields, most significant first, each plus
// 0x4E00.
func units(v uint64) uint64 {
	return (v>>42&0x3FFF)<<48 | (v>>28&0x3FFF)<<32 | (v>>14&0x3FFF)<<16 | v&0x3FFF + 0x4E004E004E004E00
}

// DecodeGeneric is the portable implementation of Decode.
func DecodeGeneric(dst, src []byte) int {
	n := len(src) / 8
	dst = dst[:7*n]
	for i := 0; i < n; i++ {
		u := binary.BigEndian.Uint64(src[8*i:])
		// Adding 0xB2 to a high byte subtracts 0x4E modulo 256, leaving
		// it below 0x40 exactly for units in U+4E00..U+8DFF; the carries
		// land in the cleared low bytes.
		if (u&0xFF00FF00FF00FF00+0xB200B200B200B200)&0xC000C000C000C000 != 0 {
			return i
		}
		// Every unit is at least 0x4E00, so the subtraction borrows nowhere.
		w := u - 0x4E004E004E004E00
		v := (w>>48&0x3FFF)<<42 | (w>>32&0x3FFF)<<28 | (w>>16&0x3FFF)<<14 | w&0x3FFF
		if 7*i+8 <= len(dst) {
			binary.BigEndian.PutUint64(dst[7*i:], v<<8)
			continue
		}
		d := dst[7*i : 7*i+7]
		binary.BigEndian.PutUint32(d, uint32(v>>24))
		binary.BigEndian.PutUint16(d[4:], uint16(v>>8))
		d[6] = byte(v)
	}
	return n
}
