// Package base16384 implements base16384, the encoding that turns every
// 7 bytes into 4 CJK characters (UTF-16 code units U+4E00..U+8DFF), as the
// reference C library and the go-base16384 package define it.
//
// The package offers the API of go-base16384 under the same names and
// meanings, so its users can switch by changing the import path. Unlike
// that package, decoding here checks its input: functions that can return
// an error report a *core.DataError naming the byte offset of the first bad
// unit, and never panic on bad input. Functions whose reference signature
// has no error (Decode, DecodeString, ...) return nil or "" for invalid
// input; DecodeTo and StdEncoding's methods report why.
//
// Every decoding function accepts both text forms: raw UTF-16BE (what Encode
// writes) and UTF-8 (what EncodeToString writes), each with or without a
// leading byte order mark, telling them apart by the first byte.
//
// # The reference API
//
//	EncodeLen(n)                    raw UTF-16BE bytes that n bytes encode to
//	DecodeLen(n, offset)            bytes that n raw bytes whose end marker holds offset decode to
//	Encode, EncodeTo                the raw UTF-16BE form, new or into a buffer
//	EncodeToString, EncodeString    the UTF-8 form of bytes, of a string
//	EncodeFromString                the raw form of a string
//	Decode, DecodeTo                the decoding, new (nil for bad input) or into a buffer (an error)
//	DecodeToString                  the decoding of bytes as a string ("" for bad input)
//	DecodeString, DecodeFromString  the decoding of a string, as a string or bytes
//	NewEncoder, NewDecoder          pull streams: readers of the encoding or decoding of a reader
//
// # Streams
//
// NewEncoder and NewDecoder, as in the reference, return pull streams:
// readers of the encoding or decoding of another reader, to be read or
// passed to io.Copy. NewEncodeWriter and NewDecodeWriter return push
// streams: writers whose Close flushes the tail. Close ends every stream
// without closing what it wraps; Reset reuses one. Over a byte slice b,
// the pull streams are NewEncoder(bytes.NewReader(b)) and
// NewDecoder(bytes.NewReader(b)).
//
// # Encoding and Options
//
// An Encoding, made by New with typed Options, encodes and decodes whole
// buffers in the style of encoding/base64: its methods Encode,
// AppendEncode, EncodeToString, Decode, AppendDecode, DecodeString and the
// lengths EncodedLen, DecodedLen and MaxDecodedLen. StdEncoding is the
// reference encoding, what the package functions use.
//
// An Option is one of UTF8, BOM, Strict and Checksum, and for text Wrap,
// Newline and SkipGarbage. They never contradict each other, in any order:
// Wrap and Newline select the UTF-8 form, and Strict overrides
// SkipGarbage. New and NewCodec take any of them and never panic.
//
// # The codec
//
// NewCodec(opts...) is the configuration of New(opts...) as a Codec, the
// core.Codec registered under Name, for streams, chains and file systems:
// one type for every option set. Besides its four stream constructors
// (NewEncodeReader, NewDecodeReader, NewEncodeWriter, NewDecodeWriter) it
// is core.Configurable (WithOptions, with the chain options form=utf8,
// bom=true, strict=true, checksum=true, wrap=N, newline=true and
// garbage=skip, which map onto the same Options), a core.OptionLister
// (OptionDocs), a core.Suffixer (Suffix: ".b14"), a core.Texter
// (WritesText, Text) and a core.BlockCodec (Layout, WriteLayout,
// EncodedLen). With the options for text its streams have no fixed blocks:
// WriteLayout returns an error matching core.ErrNoLayout.
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
// # Errors
//
// A *core.DataError from this package wraps one of ErrTruncated,
// ErrInvalidUnit, ErrBadMarker, ErrInvalidByte, ErrUnexpectedByte,
// ErrTrailingData, ErrPadBits and ErrChecksum.
//
// # Lengths
//
//	EncodeLen(n)                   reference: raw UTF-16BE bytes that n bytes encode to
//	DecodeLen(n, offset)           reference: bytes that n raw bytes whose end marker holds offset decode to
//	(*Encoding).EncodedLen(n)      bytes Encode writes for n bytes, in the Encoding's form, BOM included
//	(*Encoding).DecodedLen(src)    bytes src decodes to, judged from its length, start and end marker
//	(*Encoding).MaxDecodedLen(n)   at most this many bytes from n encoded bytes, in any form
//	(*Codec).EncodedLen(n)         core.BlockCodec: the encoding of n bytes, without the BOM
package base16384

import (
	"fmt"
	"io"

	"github.com/b14fs/b14fs/core"
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

// Decode returns the decoding of b. It returns nil when b is not a valid
// encoding (DecodeTo and StdEncoding.Decode say why) and an empty, non-nil
// slice for empty b.
func Decode(b []byte) []byte {
	out := make([]byte, decodeRoom(b))
	n, err := decodeStd(out, b)
	if err != nil {
		return nil
	}
	return out[:n:n]
}

// DecodeTo writes the decoding of b to the start of decd, which must hold at
// least StdEncoding.DecodedLen(b) bytes. It returns a *core.DataError for invalid input,
// and an error wrapping io.ErrShortBuffer when decd is too small.
func DecodeTo(b, decd []byte) error {
	_, err := decodeStd(decd, b)
	return err
}

// dataError returns the *core.DataError for err at offset.
func dataError(offset int64, err error) error {
	return &core.DataError{Codec: Name, Offset: offset, Err: err}
}
