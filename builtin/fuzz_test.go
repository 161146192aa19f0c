package builtin_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/transform"
)

// FuzzChain checks chain specs over the built-in codecs, options included,
// as users type them: no spec makes transform.New panic, a spec it refuses
// gives a *transform.SpecError, and what a chain encodes decodes back to
// what encodes to the same bytes again (the input itself when every stage
// is base16384, whose decoding is exact; bencode decodes to JSON in its own
// form).
func FuzzChain(f *testing.F) {
	specs := []string{
		"base16384",
		"base16384=form=utf8",
		"base16384=form=utf8:wrap=76:newline=true",
		"base16384=form=utf8:wrap=1:garbage=skip",
		"base16384=bom=true:checksum=true",
		"base16384=strict=true,base16384=form=utf8",
		"bencode",
		"bencode=binary=hex:depth=3",
		"bencode=lenient=true,base16384=form=utf8",
		"bencode,base16384=form=utf8:wrap=9223372036854775807",
		"base16384=form=utf8:wrap=3077000000000000000", // 3 bytes a unit overflowed
		"base16384=wrap=4",
		"base16384=form=utf8:strict=true:garbage=skip",
		"bencode=depth=0",
		"nosuch",
		" base16384 , base16384 ",
		"base16384=",
		"",
	}
	inputs := []string{
		"",
		"hello, world",
		`{"announce":"http://t/","info":{"length":5,"name":"a","piece length":16384}}`,
		`[1,-2,"x",{"":[]}]`,
		"\x00\xff\xfe\x01",
	}
	for _, spec := range specs {
		for _, in := range inputs {
			f.Add(spec, []byte(in))
		}
	}
	reg := builtin.Registry()
	f.Fuzz(func(t *testing.T, spec string, data []byte) {
		c, err := transform.New(reg, spec)
		if err != nil {
			if !errors.Is(err, transform.ErrSpec) {
				t.Fatalf("New(%q): %v, want an error matching ErrSpec", spec, err)
			}
			return
		}
		enc, err := run(c.NewEncodeReader, data)
		if err != nil {
			return // not input this chain encodes (bencode takes JSON)
		}
		dec, err := run(c.NewDecodeReader, enc)
		if err != nil {
			t.Fatalf("%q: decoding what it encoded from %q: %v", spec, data, err)
		}
		again, err := run(c.NewEncodeReader, dec)
		if err != nil || !bytes.Equal(again, enc) {
			t.Fatalf("%q: %q encodes to %q, which decodes to %q, which encodes to %q (%v)", spec, data, enc, dec, again, err)
		}
		if onlyBase16384(spec) && !bytes.Equal(dec, data) {
			t.Fatalf("%q: %q decodes back to %q", spec, data, dec)
		}
	})
}

// run returns all that the reader newReader makes of data reads, and the
// error of reading or closing it.
func run(newReader func(io.Reader) io.ReadCloser, data []byte) ([]byte, error) {
	r := newReader(bytes.NewReader(data))
	out, err := io.ReadAll(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	return out, err
}

// onlyBase16384 reports whether every stage of spec, a spec New took, is
// base16384.
func onlyBase16384(spec string) bool {
	stages, _ := transform.Parse(spec)
	for _, s := range stages {
		if s.Name != "base16384" {
			return false
		}
	}
	return true
}
