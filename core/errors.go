package core

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidData is matched by errors.Is for every *DataError.
	ErrInvalidData = errors.New("invalid data")
	// ErrUnknownCodec is returned when a name is not registered.
	ErrUnknownCodec = errors.New("unknown codec")
	// ErrDuplicateCodec is returned when a name is registered twice.
	ErrDuplicateCodec = errors.New("codec already registered")
	// ErrUnknownOption is wrapped by an *OptionError for a key a codec does
	// not know.
	ErrUnknownOption = errors.New("unknown option")
	// ErrBadOptionValue is wrapped by an *OptionError for a value a codec
	// cannot use.
	ErrBadOptionValue = errors.New("bad option value")
	// ErrClosed is returned by Read and Write on a stream after its Close.
	ErrClosed = errors.New("use of closed stream")
	// ErrNoLayout is matched by the error a BlockCodec's Layout returns for
	// a stream that may well decode but whose blocks are not where their
	// sizes say, such as text with line breaks between its blocks, and by
	// the error its WriteLayout returns when the streams it writes have no
	// fixed blocks: callers decode such streams from their start, and write
	// them whole.
	ErrNoLayout = errors.New("no block layout")
)

// A DataError reports input a codec cannot decode (or encode, for codecs
// whose plain form has a syntax, such as bencode's JSON).
type DataError struct {
	Codec  string // the codec's name
	Offset int64  // byte offset in the codec's input where the data went wrong
	Err    error  // what is wrong
}

func (e *DataError) Error() string {
	return fmt.Sprintf("%s: byte offset %d: %v", e.Codec, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *DataError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidData.
func (e *DataError) Is(target error) bool { return target == ErrInvalidData }

// An OptionError reports an option a codec does not know or cannot use.
type OptionError struct {
	Codec string // the codec's name
	Key   string // the option's key
	Value string // the option's value
	Err   error  // ErrUnknownOption, ErrBadOptionValue, or a more specific error
}

func (e *OptionError) Error() string {
	if errors.Is(e.Err, ErrUnknownOption) {
		return fmt.Sprintf("%s: unknown option %q", e.Codec, e.Key)
	}
	return fmt.Sprintf("%s: option %s=%q: %v", e.Codec, e.Key, e.Value, e.Err)
}

// Unwrap returns the underlying error.
func (e *OptionError) Unwrap() error { return e.Err }
