package base16384

import "strings"

// EncodeToString returns the encoding of b as UTF-8 text: the units of
// Encode(b), 3 bytes each, without a byte order mark.
func EncodeToString(b []byte) string { return encodeString(b, true) }

// EncodeString returns the encoding of the bytes of s as UTF-8 text.
func EncodeString(s string) string { return EncodeToString([]byte(s)) }

// EncodeFromString returns the raw UTF-16BE encoding of the bytes of s.
func EncodeFromString(s string) []byte { return Encode([]byte(s)) }

// DecodeToString returns the decoding of b as a string, or "" when b is not
// a valid encoding.
func DecodeToString(b []byte) string { return decodeString(b) }

// DecodeFromString returns the decoding of the encoded text s (UTF-8 or raw),
// or nil when s is not a valid encoding.
func DecodeFromString(s string) []byte { return Decode([]byte(s)) }

// DecodeString returns the decoding of the encoded text s (UTF-8 or raw) as a
// string, or "" when s is not a valid encoding.
func DecodeString(s string) string { return decodeString([]byte(s)) }

// stringChunk is the most plain bytes encodeString and decodeString handle
// on the stack: 64 groups.
const stringChunk = 7 * 64

// encodeString returns the encoding of src, in the UTF-8 form or raw, as a
// string: a chunk at a time through a buffer on the stack, so that the
// string is the one allocation.
func encodeString(src []byte, isUTF8 bool) string {
	var buf [stringChunk/7*12 + 15]byte // a chunk and a tail
	encode := func(dst, src []byte) int {
		if isUTF8 {
			return encodeUTF8(dst, src)
		}
		n, _ := std.encodeTo(dst, src)
		return n
	}
	if len(src) <= stringChunk {
		return string(buf[:encode(buf[:], src)])
	}
	var sb strings.Builder
	cfg := config{utf8: isUTF8}
	sb.Grow(int(cfg.encodedLen(int64(len(src)))))
	for len(src) > 0 {
		c := src[:min(len(src), stringChunk)]
		sb.Write(buf[:encode(buf[:], c)])
		src = src[len(c):]
	}
	return sb.String()
}

// decodeString returns the decoding of b, in either form, as a string, or
// "" when b is not a valid encoding: small ones through a buffer on the
// stack, so that the string is its one allocation (DecodeString's copy of
// its argument aside). It calls the Go code, whose arguments do not escape
// (the assembly's would).
func decodeString(b []byte) string {
	var buf [stringChunk + 8]byte
	d := buf[:]
	if room := decodeRoom(b); room > len(buf) {
		d = make([]byte, room)
	}
	n, err := std.decodeTo(d, b)
	if err != nil {
		return ""
	}
	return string(d[:n])
}
