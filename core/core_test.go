package core_test

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
)

// named is a codec that does nothing but have a name.
type named string

func (n named) Name() string                             { return string(n) }
func (named) NewEncodeReader(r io.Reader) io.ReadCloser  { return io.NopCloser(r) }
func (named) NewDecodeReader(r io.Reader) io.ReadCloser  { return io.NopCloser(r) }
func (named) NewEncodeWriter(w io.Writer) io.WriteCloser { return nopCloser{w} }
func (named) NewDecodeWriter(w io.Writer) io.WriteCloser { return nopCloser{w} }

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func TestRegistry(t *testing.T) {
	var r core.Registry
	for _, name := range []string{"zeta", "alpha", "mid"} {
		if err := r.Register(named(name), core.OriginBuiltin); err != nil {
			t.Fatalf("Register(%q): %v", name, err)
		}
	}
	if err := r.Register(named("alpha"), "/bin/other"); !errors.Is(err, core.ErrDuplicateCodec) {
		t.Errorf("duplicate Register: got %v, want ErrDuplicateCodec", err)
	}
	for _, bad := range []string{"", "a,b", "a=b", "a:b", "a b"} {
		if err := r.Register(named(bad), core.OriginBuiltin); err == nil {
			t.Errorf("Register(%q) accepted a bad name", bad)
		}
	}
	var names []string
	for _, e := range r.List() {
		names = append(names, e.Codec.Name()+"@"+e.Origin)
	}
	if got, want := strings.Join(names, " "), "alpha@builtin mid@builtin zeta@builtin"; got != want {
		t.Errorf("List = %s, want %s", got, want)
	}
	if c, err := r.Lookup("mid"); err != nil || c.Name() != "mid" {
		t.Errorf("Lookup(mid) = %v, %v", c, err)
	}
	if _, err := r.Lookup("nope"); !errors.Is(err, core.ErrUnknownCodec) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Lookup(nope) error = %v, want ErrUnknownCodec naming it", err)
	}
}

func TestRegistryConcurrent(t *testing.T) {
	var r core.Registry
	done := make(chan bool)
	for i := range 8 {
		go func() {
			r.Register(named(fmt.Sprint("c", i)), core.OriginBuiltin)
			r.Lookup("c0")
			r.List()
			done <- true
		}()
	}
	for range 8 {
		<-done
	}
	if n := len(r.List()); n != 8 {
		t.Errorf("%d codecs registered, want 8", n)
	}
}

func TestConfigure(t *testing.T) {
	c := named("plain")
	if got, err := core.Configure(c, nil); err != nil || got != c {
		t.Errorf("Configure with no options = %v, %v; want the codec itself", got, err)
	}
	_, err := core.Configure(c, core.Options{{Key: "level", Value: "9"}})
	var oe *core.OptionError
	if !errors.As(err, &oe) || !errors.Is(err, core.ErrUnknownOption) || oe.Key != "level" || oe.Codec != "plain" {
		t.Fatalf("Configure of an option-less codec: got %v", err)
	}
	if got, want := err.Error(), `plain: unknown option "level"`; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestOptionParsing(t *testing.T) {
	tests := []struct {
		opt     core.Option
		parse   func(core.Option) (any, error)
		want    any
		wantErr string
	}{
		{core.Option{Key: "bom", Value: "true"}, boolOf, true, ""},
		{core.Option{Key: "bom", Value: "0"}, boolOf, false, ""},
		{core.Option{Key: "bom", Value: "yes"}, boolOf, nil, `c: option bom="yes": bad option value: want true or false`},
		{core.Option{Key: "depth", Value: "64"}, intOf, 64, ""},
		{core.Option{Key: "depth", Value: "x"}, intOf, nil, `c: option depth="x": bad option value: want an integer`},
		{core.Option{Key: "shift", Value: "25"}, intIn1To25, 25, ""},
		{core.Option{Key: "shift", Value: "0"}, intIn1To25, nil, `c: option shift="0": bad option value: want 1..25`},
		{core.Option{Key: "shift", Value: "x"}, intIn1To25, nil, `c: option shift="x": bad option value: want an integer`},
		{core.Option{Key: "depth", Value: "0"}, intAtLeast1, nil, `c: option depth="0": bad option value: want at least 1`},
		{core.Option{Key: "depth", Value: "1"}, intAtLeast1, 1, ""},
		{core.Option{Key: "form", Value: "utf8"}, oneOf, nil, ""},
		{core.Option{Key: "form", Value: "utf32"}, oneOf, nil, `c: option form="utf32": bad option value: want one of utf8, utf16be`},
	}
	for _, tt := range tests {
		got, err := tt.parse(tt.opt)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr || !errors.Is(err, core.ErrBadOptionValue) {
				t.Errorf("%v: error %v, want %q wrapping ErrBadOptionValue", tt.opt, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%v: got %v, %v; want %v", tt.opt, got, err, tt.want)
		}
	}
	if got := (core.Options{{"a", "1"}, {"b", ""}}).String(); got != "a=1:b=" {
		t.Errorf("Options.String = %q", got)
	}
}

func boolOf(o core.Option) (any, error) { b, err := o.Bool("c"); return orNil(b, err) }
func intOf(o core.Option) (any, error)  { n, err := o.Int("c"); return orNil(n, err) }
func intIn1To25(o core.Option) (any, error) {
	n, err := o.IntIn("c", 1, 25)
	return orNil(n, err)
}
func intAtLeast1(o core.Option) (any, error) {
	n, err := o.IntIn("c", 1, math.MaxInt)
	return orNil(n, err)
}
func oneOf(o core.Option) (any, error) { return nil, o.OneOf("c", "utf8", "utf16be") }

func orNil(v any, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

func TestDataError(t *testing.T) {
	inner := errors.New("unit out of range")
	var err error = fmt.Errorf("reading: %w", &core.DataError{Codec: "base16384", Offset: 42, Err: inner})
	if !errors.Is(err, core.ErrInvalidData) || !errors.Is(err, inner) {
		t.Errorf("errors.Is fails through %v", err)
	}
	var de *core.DataError
	if !errors.As(err, &de) || de.Offset != 42 {
		t.Fatalf("errors.As: %v", err)
	}
	if got, want := de.Error(), "base16384: byte offset 42: unit out of range"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestLayoutEncodedOffset(t *testing.T) {
	l := core.Layout{Header: 2, PlainBlock: 7, EncodedBlock: 8, Size: 100}
	for _, tt := range []struct{ off, enc, plain int64 }{
		{0, 2, 0}, {6, 2, 0}, {7, 10, 7}, {99, 2 + 14*8, 98},
	} {
		if enc, plain := l.EncodedOffset(tt.off); enc != tt.enc || plain != tt.plain {
			t.Errorf("EncodedOffset(%d) = %d, %d; want %d, %d", tt.off, enc, plain, tt.enc, tt.plain)
		}
	}
}
