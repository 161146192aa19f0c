package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// An Option is one key=value setting of a codec.
type Option struct {
	Key, Value string
}

// Options are a codec's settings, in the order they were given.
type Options []Option

// String returns the options in chain-spec form: key=value pairs joined by ':'.
func (o Options) String() string {
	parts := make([]string, len(o))
	for i, opt := range o {
		parts[i] = opt.Key + "=" + opt.Value
	}
	return strings.Join(parts, ":")
}

// Bool parses an option value as a boolean for codec, accepting what
// strconv.ParseBool accepts. It returns an *OptionError otherwise.
func (opt Option) Bool(codec string) (bool, error) {
	b, err := strconv.ParseBool(opt.Value)
	if err != nil {
		return false, &OptionError{Codec: codec, Key: opt.Key, Value: opt.Value, Err: fmt.Errorf("%w: want true or false", ErrBadOptionValue)}
	}
	return b, nil
}

// Int parses an option value as a decimal integer for codec, returning an
// *OptionError when it is not one.
func (opt Option) Int(codec string) (int, error) {
	n, err := strconv.Atoi(opt.Value)
	if err != nil {
		return 0, &OptionError{Codec: codec, Key: opt.Key, Value: opt.Value, Err: fmt.Errorf("%w: want an integer", ErrBadOptionValue)}
	}
	return n, nil
}

// IntIn parses an option value as a decimal integer from lo to hi for
// codec, returning an *OptionError when it is not one; hi math.MaxInt sets
// no upper bound.
func (opt Option) IntIn(codec string, lo, hi int) (int, error) {
	n, err := opt.Int(codec)
	if err != nil || lo <= n && n <= hi {
		return n, err
	}
	want := fmt.Sprintf("want %d..%d", lo, hi)
	if hi == math.MaxInt {
		want = fmt.Sprintf("want at least %d", lo)
	}
	return 0, &OptionError{Codec: codec, Key: opt.Key, Value: opt.Value, Err: fmt.Errorf("%w: %s", ErrBadOptionValue, want)}
}

// Unknown returns the *OptionError a codec reports for an option it does
// not know.
func (opt Option) Unknown(codec string) error {
	return &OptionError{Codec: codec, Key: opt.Key, Value: opt.Value, Err: ErrUnknownOption}
}

// OneOf returns the *OptionError a codec reports when the option's value is
// none of the allowed ones, or nil when it is one of them.
func (opt Option) OneOf(codec string, allowed ...string) error {
	for _, a := range allowed {
		if opt.Value == a {
			return nil
		}
	}
	return &OptionError{Codec: codec, Key: opt.Key, Value: opt.Value,
		Err: fmt.Errorf("%w: want one of %s", ErrBadOptionValue, strings.Join(allowed, ", "))}
}

// An OptionDoc describes one option a Configurable codec takes, for help
// and shell completion.
type OptionDoc struct {
	Key    string
	Values []string // the values it takes when they are few, such as "true" and "false"; nil otherwise
	Usage  string   // one line: what it does
}

// An OptionLister is a Configurable codec that lists the options it takes.
type OptionLister interface {
	Configurable
	OptionDocs() []OptionDoc
}
