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
func Encode(dst, src []byte) int { return encode(dst, src) }

// Decode decodes the whole 8-byte groups of src (raw UTF-16BE units) into dst,
// 7 bytes a group, stopping before the first group that holds a unit outside
// U+4E00..U+8DFF. It returns the number of groups decoded. dst must hold at
// least 7*(len(src)/8) bytes. The group at the returned index (if any) is
// the one holding the first bad unit. Bytes of dst[:7*(len(src)/8)] past the
// decoded groups may be overwritten.
func Decode(dst, src []byte) int { return decode(dst, src) }

// EncodeGeneric is the portable implementation of Encode.
func EncodeGeneric(dst, src []byte) int {
	n := len(src) / 7
	dst = dst[:8*n]
	for i := 0; i < n; i++ {
		s := src[7*i : 7*i+7]
		v := uint64(s[0])<<48 | uint64(s[1])<<40 | uint64(s[2])<<32 | uint64(s[3])<<24 |
			uint64(s[4])<<16 | uint64(s[5])<<8 | uint64(s[6])
		// Four 14-bit fields, most significant first, each + 0x4E00.
		w := (v>>42&0x3FFF)<<48 | (v>>28&0x3FFF)<<32 | (v>>14&0x3FFF)<<16 | v&0x3FFF
		binary.BigEndian.PutUint64(dst[8*i:], w+0x4E004E004E004E00)
	}
	return n
}

// DecodeGeneric is the portable implementation of Decode.
func DecodeGeneric(dst, src []byte) int {
	n := len(src) / 8
	dst = dst[:7*n]
	for i := 0; i < n; i++ {
		u := binary.BigEndian.Uint64(src[8*i:])
		if !unitOK(u>>48) || !unitOK(u>>32&0xFFFF) || !unitOK(u>>16&0xFFFF) || !unitOK(u&0xFFFF) {
			return i
		}
		// Every unit is at least 0x4E00, so the subtraction borrows nowhere.
		w := u - 0x4E004E004E004E00
		v := (w>>48&0x3FFF)<<42 | (w>>32&0x3FFF)<<28 | (w>>16&0x3FFF)<<14 | w&0x3FFF
		d := dst[7*i : 7*i+7]
		d[0] = byte(v >> 48)
		d[1] = byte(v >> 40)
		d[2] = byte(v >> 32)
		d[3] = byte(v >> 24)
		d[4] = byte(v >> 16)
		d[5] = byte(v >> 8)
		d[6] = byte(v)
	}
	return n
}

func unitOK(u uint64) bool { return u-0x4E00 < 0x4000 }
