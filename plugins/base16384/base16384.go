// Package base16384 implements base16384, the encoding that turns every
// 7 bytes into 4 CJK characters (UTF-16 code units U+4E00..U+8DFF), as the
// reference C library and the go-base16384 package define it.
//
// The package offers the API of go-base16384 under the same names and
// meanings (Encode, EncodeTo, EncodeToString, Decode, DecodeTo, NewEncoder,
// NewDecoder and the rest), so its users can switch by changing the import
// path. Unlike that package, decoding here checks its input: functions that
// can return an error report a *core.DataError naming the byte offset of the
// first bad unit, and never panic on bad input. Functions whose reference
// signature has no error (Decode, DecodeString, ...) return nil or "" for
// invalid input; AppendDecode and DecodeTo report why.
//
// Every decoding function accepts both text forms: raw UTF-16BE (what Encode
// writes) and UTF-8 (what EncodeToString writes), each with or without a
// leading byte order mark, telling them apart by the first byte.
//
// # Options
//
// An Encoding, made by New with typed Options (UTF8, BOM, Strict,
// Checksum, and for text Wrap, Newline and SkipGarbage), encodes and
// decodes whole buffers in the style of encoding/base64: Encode,
// AppendEncode, Decode, AppendDecode and the length methods. StdEncoding
// is the reference encoding the package functions use. NewCodec(opts...)
// is the same configuration as a core.Codec, for streams and chains; the
// chain options (form=utf8, bom=true, strict=true, checksum=true, wrap=N,
// newline=true, garbage=skip) map onto the same Options. Options never
// contradict each other: New and NewCodec take any of them.
//
// # Text
//
// Decoding skips line breaks (CR, LF) between the units of the UTF-8 form,
// and with SkipGarbage every other byte that starts no unit of the
// alphabet; Strict skips nothing. Nothing is skipped in the raw form.
// Encoding writes line breaks only when asked (Wrap, Newline): the
// defaults give the reference's bytes. A Codec's Text method
// (core.Texter) asks for them as command lines do: the UTF-8 form ending
// with a line break unless newline=false, in lines when the caller says,
// and decoding that skips garbage.
//
// # Streams
//
// NewEncoder and NewDecoder, as in the reference, return pull streams:
// readers of the encoding or decoding of another reader, to be read or
// passed to io.Copy. NewEncodeWriter and NewDecodeWriter return push
// streams: writers whose Close flushes the tail. Close ends every stream
// without closing what it wraps.
//
// # Lengths
//
//	EncodeLen(n)                   reference: raw UTF-16BE bytes that n bytes encode to
//	DecodeLen(n, offset)           reference: bytes that n raw bytes whose end marker holds offset decode to
//	(*Encoding).EncodedLen(n)      bytes Encode writes for n bytes, in the Encoding's form, BOM included
//	(*Encoding).DecodedLen(src)    bytes src decodes to, judged from its length, start and end marker
//	(*Encoding).MaxDecodedLen(n)   at most this many bytes from n encoded bytes, in any form
//	(*Codec).EncodedLen(n)         core.BlockCodec: the blocks of n bytes, without the BOM
package base16384

import (
	"fmt"
	"io"
	"slices"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384/internal/kernel"
)

// Name is the name the codec is registered under.
const Name = "base16384"

// tailUnits[r] is the number of data units that hold a tail of r bytes.
var tailUnits = [7]int{0, 1, 2, 2, 3, 3, 4}

// encodedUnits returns the number of units that n bytes encode to, end
// marker included.
func encodedUnits(n int64) int64 {
	units := n/7*4 + int64(tailUnits[n%7])
	if n%7 != 0 {
		units++ // the end marker
	}
	return units
}

// EncodeLen returns the length in bytes of the raw UTF-16BE encoding of in
// bytes, end marker included.
func EncodeLen(in int) int { return 2 * int(encodedUnits(int64(in))) }

// DecodeLen returns the decoded length of a raw encoding of in bytes whose end
// marker holds offset (the count of bytes in the last, partial group), or 0
// when there is no end marker. It is the inverse of EncodeLen for valid
// arguments.
func DecodeLen(in, offset int) int {
	if offset < 1 || offset > 6 {
		return in / 8 * 7
	}
	return (in-2*(tailUnits[offset]+1))/8*7 + offset
}

// std is the reference encoding, StdEncoding's configuration, for the
// package functions: a variable whose address is a constant.
var std Encoding

// Encode returns the raw UTF-16BE encoding of b.
func Encode(b []byte) []byte {
	out := make([]byte, EncodeLen(len(b)))
	encodeStd(out, b)
	return out
}

// EncodeTo writes the raw UTF-16BE encoding of b to the start of encd, which
// must hold at least EncodeLen(len(b)) bytes.
func EncodeTo(b, encd []byte) error {
	_, err := encodeStd(encd, b)
	return err
}

// shortBuffer returns the error of fn for a destination of have bytes where
// need are needed.
func shortBuffer(fn string, need, have int) error {
	return fmt.Errorf("%s: %s: %w: need %d bytes, have %d", Name, fn, io.ErrShortBuffer, need, have)
}

// AppendEncode appends the raw UTF-16BE encoding of src to dst and returns the
// extended buffer. It is StdEncoding.AppendEncode.
func AppendEncode(dst, src []byte) []byte {
	n := EncodeLen(len(src))
	dst = slices.Grow(dst, n)
	encodeStd(dst[len(dst):len(dst)+n], src)
	return dst[:len(dst)+n]
}

// DecodedLen returns StdEncoding.DecodedLen(b): the length of the decoding of
// b, judged from its length, start and end marker only.
func DecodedLen(b []byte) (int, error) { return std.DecodedLen(b) }

// Decode returns the decoding of b. It returns nil when b is not a valid
// encoding (use AppendDecode to learn why) and an empty, non-nil slice for
// empty b.
func Decode(b []byte) []byte {
	out := make([]byte, decodeRoom(b))
	n, err := decodeStd(out, b)
	if err != nil {
		return nil
	}
	return out[:n:n]
}

// DecodeTo writes the decoding of b to the start of decd, which must hold at
// least DecodedLen(b) bytes. It returns a *core.DataError for invalid input,
// and an error wrapping io.ErrShortBuffer when decd is too small.
func DecodeTo(b, decd []byte) error {
	_, err := decodeStd(decd, b)
	return err
}

// AppendDecode appends the decoding of src to dst and returns the extended
// buffer; it is StdEncoding.AppendDecode. For invalid input it returns dst
// unchanged in length and a *core.DataError naming the byte offset of the
// first bad unit.
func AppendDecode(dst, src []byte) ([]byte, error) {
	if cap(dst)-len(dst) < decodeRoom(src) {
		return std.AppendDecode(dst, src)
	}
	n, err := decodeStd(dst[len(dst):cap(dst)], src)
	if err != nil {
		return dst, err
	}
	return dst[:len(dst)+n], nil
}

// dataError returns the *core.DataError for err at offset.
func dataError(offset int64, err error) error {
	return &core.DataError{Codec: Name, Offset: offset, Err: err}
}

// Kernel returns the name of the block kernel encoding and decoding run on
// this machine: "avx512vbmi", "avx2" or "neon" where the processor has
// those instructions (and the purego build tag is not set), else "generic".
func Kernel() string { return kernel.Name() }
