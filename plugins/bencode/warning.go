package bencode

import "strconv"

// A WarningKind names a departure from the strict rules that lenient mode
// accepted.
type WarningKind uint8

// The kinds of warnings.
const (
	// TrailingSpace: spaces, tabs, carriage returns or line feeds after a
	// top-level value (such as the newline an editor adds at the end of a
	// file). Lenient mode skips them; they are not part of any value.
	TrailingSpace WarningKind = iota + 1
	// IgnoredData: bytes other than whitespace after the top-level value,
	// which Unmarshal and Scanner.Finish ignore in lenient mode.
	IgnoredData
	// LeadingSpace: whitespace before the first top-level value (or, in a
	// stream of values, a file of whitespace alone: a stream of no values,
	// as an empty file is). Lenient mode skips it.
	LeadingSpace
)

// A Warning reports input that lenient mode accepted although strict mode
// rejects it. DecodeOptions.Warn receives one for each run of such bytes.
type Warning struct {
	Kind   WarningKind
	Offset int64 // input offset of the first byte concerned
	Len    int64 // how many bytes
}

// String describes the warning, in the manner of a *SyntaxError:
// "bencode: 1 byte of whitespace after the top-level value at byte offset 2".
func (w Warning) String() string {
	what := "of data after the top-level value, ignored,"
	switch w.Kind {
	case TrailingSpace:
		what = "of whitespace after the top-level value"
	case LeadingSpace:
		what = "of whitespace before the top-level value"
	}
	unit := " bytes "
	if w.Len == 1 {
		unit = " byte "
	}
	return "bencode: " + strconv.FormatInt(w.Len, 10) + unit + what + " at byte offset " + strconv.FormatInt(w.Offset, 10)
}

// warn passes w to the caller's Warn function, if any.
func (s *Scanner) warn(w Warning) {
	if s.warnf != nil {
		s.warnf(w)
	}
}
