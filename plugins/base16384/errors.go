package base16384

import "errors"

// Errors that a *core.DataError from this package wraps; match them with
// errors.Is.
var (
	// ErrTruncated: the input ends inside a unit, or a partial group is not
	// followed by its end marker.
	ErrTruncated = errors.New("truncated input")
	// ErrInvalidUnit: a unit lies outside U+4E00..U+8DFF and is no end
	// marker, or the UTF-8 form holds a byte sequence that is no such unit.
	ErrInvalidUnit = errors.New("invalid unit")
	// ErrBadMarker: an end marker with a value outside 1..6, or one that
	// does not match the number of units before it.
	ErrBadMarker = errors.New("bad end marker")
	// ErrInvalidByte: in the UTF-8 form, a byte where a unit should start
	// that starts none (unless garbage=skip).
	ErrInvalidByte = errors.New("invalid byte")
	// ErrUnexpectedByte: in the UTF-8 form, a line break between units with
	// strict=true.
	ErrUnexpectedByte = errors.New("unexpected byte")
	// ErrTrailingData: data after the end marker.
	ErrTrailingData = errors.New("data after the end marker")
	// ErrPadBits: in strict mode, non-zero pad bits in the last data unit.
	ErrPadBits = errors.New("non-zero pad bits")
	// ErrChecksum: with checksums on, the pad bits do not hold the
	// checksum of the decoded data.
	ErrChecksum = errors.New("checksum mismatch")
)
