package transform_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/internal/testing/testcodec"
	"github.com/b14fs/b14fs/transform"
)

func TestParse(t *testing.T) {
	opt := func(k, v string) core.Option { return core.Option{Key: k, Value: v} }
	tests := []struct {
		spec string
		want []transform.Stage
	}{
		{"base16384", []transform.Stage{{Name: "base16384"}}},
		{"bencode,base16384=form=utf8", []transform.Stage{{Name: "bencode"}, {Name: "base16384", Options: core.Options{opt("form", "utf8")}}}},
		{"a=x=1:y=2,b", []transform.Stage{{Name: "a", Options: core.Options{opt("x", "1"), opt("y", "2")}}, {Name: "b"}}},
		{" a , b ", []transform.Stage{{Name: "a"}, {Name: "b"}}},
		{"a=k=", []transform.Stage{{Name: "a", Options: core.Options{opt("k", "")}}}},
		{"a=k=v=w", []transform.Stage{{Name: "a", Options: core.Options{opt("k", "v=w")}}}},
	}
	for _, tt := range tests {
		got, err := transform.Parse(tt.spec)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.spec, got, err, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		spec   string
		stage  int
		offset int
		msg    string
	}{
		{"", 0, 0, "empty codec name"},
		{"a,", 1, 2, "empty codec name"},
		{"a,,b", 1, 2, "empty codec name"},
		{"a,b=", 1, 2, "'=' with no options"},
		{"a,b=form", 1, 2, `option "form" is not key=value`},
		{"a=x=1:=2", 0, 0, "empty key"},
		{"a=x=1:", 0, 0, `option "" is not key=value`},
		{"a b", 0, 0, "bad codec name"},
		{"a,b=form=utf8:form=utf16be", 1, 2, `option "form" given twice`},
		{"=x=1", 0, 0, "empty codec name"},
	}
	for _, tt := range tests {
		_, err := transform.Parse(tt.spec)
		var se *transform.SpecError
		if !errors.As(err, &se) || !errors.Is(err, transform.ErrSpec) {
			t.Errorf("Parse(%q): error %v, want a *SpecError", tt.spec, err)
			continue
		}
		if se.Stage != tt.stage || se.Offset != tt.offset || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q): %v (stage %d offset %d); want stage %d offset %d, %q", tt.spec, err, se.Stage, se.Offset, tt.stage, tt.offset, tt.msg)
		}
	}
}

func registry(t *testing.T) *core.Registry {
	var r core.Registry
	for _, c := range []core.Codec{codectest.Hex{}, testcodec.Xor{Key: 0x5A}} {
		if err := r.Register(c, core.OriginBuiltin); err != nil {
			t.Fatal(err)
		}
	}
	return &r
}

func TestNewErrors(t *testing.T) {
	reg := registry(t)
	tests := []struct {
		spec   string
		stage  int
		is     error
		substr string
	}{
		{"hex,nope", 1, core.ErrUnknownCodec, `stage 2 ("nope" at byte 4): unknown codec: "nope"`},
		{"hex=a=b", 0, core.ErrUnknownOption, `hex: unknown option "a"`},
		{"hex,xor=key=300,hex", 1, core.ErrBadOptionValue, `want 0..255`},
		{"hex,xor=level=1", 1, core.ErrUnknownOption, `stage 2 ("xor=level=1" at byte 4)`},
	}
	for _, tt := range tests {
		_, err := transform.New(reg, tt.spec)
		var se *transform.SpecError
		if !errors.As(err, &se) || se.Stage != tt.stage || !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.substr) {
			t.Errorf("New(%q) = %v; want stage %d, %v, containing %q", tt.spec, err, tt.stage, tt.is, tt.substr)
			continue
		}
		// Configure says the same of the stages, in spec form.
		stages, perr := transform.Parse(tt.spec)
		if perr != nil {
			t.Fatal(perr)
		}
		if _, cerr := transform.Configure(reg, stages); cerr == nil || cerr.Error() != err.Error() || !errors.Is(cerr, tt.is) {
			t.Errorf("Configure(%v) = %v; want %v", stages, cerr, err)
		}
	}
}

func TestSingleStageIsTheCodec(t *testing.T) {
	c, err := transform.New(registry(t), "hex")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(codectest.Hex); !ok {
		t.Errorf("one-stage chain is %T, want the stage's codec itself", c)
	}
}

var inputs = [][]byte{nil, []byte("a"), []byte("hello, chain"), bytes.Repeat([]byte{0, 1, 2, 0xFF}, 3000)}

func TestChainContract(t *testing.T) {
	for _, spec := range []string{"hex,xor", "xor=key=1,hex,hex", "hex,xor=key=7,hex"} {
		c, err := transform.New(registry(t), spec)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(spec, func(t *testing.T) { codectest.TestCodec(t, c, inputs...) })
	}
}

func TestChainOrder(t *testing.T) {
	c, err := transform.New(registry(t), "xor=key=1,hex")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "xor,hex" {
		t.Errorf("Name = %q", c.Name())
	}
	got, err := io.ReadAll(c.NewEncodeReader(strings.NewReader("ab")))
	if want := "6063"; err != nil || string(got) != want { // 'a'^1 = 0x60, 'b'^1 = 0x63, then hex
		t.Errorf("encode = %q, %v; want %q", got, err, want)
	}
	var buf bytes.Buffer
	w := c.NewDecodeWriter(&buf)
	io.WriteString(w, "6063")
	if err := w.Close(); err != nil || buf.String() != "ab" {
		t.Errorf("decode writer = %q, %v; want ab", buf.String(), err)
	}
}

func TestChainDataErrors(t *testing.T) {
	c, err := transform.New(registry(t), "xor=key=0,hex")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(c.NewDecodeReader(strings.NewReader("00zz")))
	var de *core.DataError
	if !errors.As(err, &de) || de.Codec != "hex" || de.Offset != 2 {
		t.Errorf("pull decode of bad hex: %v; want a hex DataError at offset 2", err)
	}
	var buf bytes.Buffer
	w := c.NewDecodeWriter(&buf)
	if _, err := io.WriteString(w, "000"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.As(err, &de) || de.Offset != 2 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("push decode of truncated hex: Close = %v; want a DataError at offset 2", err)
	}
}

func TestConfigure(t *testing.T) {
	stages := []transform.Stage{{Name: "xor", Options: core.Options{{Key: "key", Value: "1"}}}, {Name: "hex"}}
	codecs, err := transform.Configure(registry(t), stages)
	if err != nil {
		t.Fatal(err)
	}
	if len(codecs) != 2 || codecs[0] != (testcodec.Xor{Key: 1}) || codecs[1] != (codectest.Hex{}) {
		t.Fatalf("Configure = %#v; want xor with key 1, then hex", codecs)
	}
	// A codec of the caller's takes a stage's place.
	codecs[0] = testcodec.Xor{Key: 2}
	got, err := io.ReadAll(transform.Compose(codecs...).NewEncodeReader(strings.NewReader("a")))
	if want := "63"; err != nil || string(got) != want { // 'a'^2 = 0x63
		t.Errorf("encode = %q, %v; want %q", got, err, want)
	}
}

// MapStages passes each stage's codec, configured, through its functions
// in the order given, in New and in Configure alike.
func TestMapStages(t *testing.T) {
	var seen []core.Codec
	note := transform.MapStages(func(c core.Codec) core.Codec {
		seen = append(seen, c)
		return c
	})
	flip := transform.MapStages(func(c core.Codec) core.Codec {
		if x, ok := c.(testcodec.Xor); ok {
			return testcodec.Xor{Key: ^x.Key}
		}
		return c
	})
	c, err := transform.New(registry(t), "xor=key=1,hex", note, flip)
	if err != nil {
		t.Fatal(err)
	}
	if want := []core.Codec{testcodec.Xor{Key: 1}, codectest.Hex{}}; !reflect.DeepEqual(seen, want) {
		t.Errorf("MapStages saw %v; want %v", seen, want)
	}
	got, err := io.ReadAll(c.NewEncodeReader(strings.NewReader("a")))
	if want := "9f"; err != nil || string(got) != want { // 'a'^0xFE = 0x9f
		t.Errorf("encode = %q, %v; want %q", got, err, want)
	}
	codecs, err := transform.Configure(registry(t), []transform.Stage{{Name: "xor"}}, flip)
	if err != nil || codecs[0] != (testcodec.Xor{Key: ^byte(0x5A)}) {
		t.Errorf("Configure with MapStages = %v, %v; want xor with key ^0x5A", codecs, err)
	}
}
