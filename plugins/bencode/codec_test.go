package bencode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/testing/longtest"
)

// A form runs one direction of a codec over a whole input, through one of
// the stream forms.
type form struct {
	name string
	run  func(c core.Codec, encode bool, in []byte) ([]byte, error)
}

func readerForm(name string, wrap func(io.Reader) io.Reader) form {
	return form{"reader/" + name, func(c core.Codec, encode bool, in []byte) ([]byte, error) {
		src := wrap(bytes.NewReader(in))
		if encode {
			return io.ReadAll(c.NewEncodeReader(src))
		}
		return io.ReadAll(c.NewDecodeReader(src))
	}}
}

func writerForm(name string, chunk int) form {
	return form{"writer/" + name, func(c core.Codec, encode bool, in []byte) ([]byte, error) {
		var out bytes.Buffer
		w := c.NewDecodeWriter(&out)
		if encode {
			w = c.NewEncodeWriter(&out)
		}
		for len(in) > 0 {
			n := min(chunk, len(in))
			if _, err := w.Write(in[:n]); err != nil {
				return out.Bytes(), err
			}
			in = in[n:]
		}
		err := w.Close() // (before out.Bytes: Close may write)
		return out.Bytes(), err
	}}
}

var forms = []form{
	readerForm("plain", func(r io.Reader) io.Reader { return r }),
	readerForm("onebyte", iotest.OneByteReader),
	readerForm("half", iotest.HalfReader),
	readerForm("dataerr", iotest.DataErrReader),
	writerForm("whole", 1<<30),
	writerForm("onebyte", 1),
	writerForm("seven", 7),
}

// bytewiseMax is the longest input the forms that go a byte at a time
// take, a Transform call a byte, unless the long checks are asked for: all
// the corpus but its dozen largest files (which hold 86% of its bytes).
const bytewiseMax = 64 << 10

// transcode runs c in one direction through every form, checks that they
// agree, and returns the result.
func transcode(t *testing.T, c core.Codec, encode bool, in []byte) ([]byte, error) {
	t.Helper()
	want, wantErr := forms[0].run(c, encode, in)
	for _, f := range forms[1:] {
		if strings.HasSuffix(f.name, "/onebyte") && len(in) > bytewiseMax && !longtest.Enabled() {
			continue
		}
		got, err := f.run(c, encode, in)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || (err == nil && !bytes.Equal(got, want)) {
			t.Errorf("%q encode=%v: %s gives %q, %v; %s gives %q, %v", in, encode, f.name, got, err, forms[0].name, want, wantErr)
		}
	}
	return want, wantErr
}

func configured(t *testing.T, opts ...core.Option) core.Codec {
	t.Helper()
	c, err := core.Configure(NewCodec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	lenient   = core.Option{Key: "lenient", Value: "true"}
	hexBinary = core.Option{Key: "binary", Value: "hex"}
)

// jsonForms pairs bencode with its JSON form, both ways.
var jsonForms = []struct {
	bencode, json string
	lenient       bool
}{
	{"i42e", "42\n", false},
	{"i-99999999999999999999e", "-99999999999999999999\n", false},
	{"0:", `""` + "\n", false},
	{"3:abc", `"abc"` + "\n", false},
	{"6:h\xc3\xa9llo", `"héllo"` + "\n", false},
	{"6:a\"\\\n\t\x01", `"a\"\\\n\t\u0001"` + "\n", false},
	{"2:\xff\xfe", `"base64://4="` + "\n", false},
	{"9:base64:ab", `"base64:YmFzZTY0OmFi"` + "\n", false},
	{"3:\xed\xa0\x80", `"base64:7aCA"` + "\n", false},
	{"le", "[]\n", false},
	{"de", "{}\n", false},
	{"li1e1:bli2eee", `[1,"b",[2]]` + "\n", false},
	{"d1:ali1e1:be1:bde1:cdee", `{"a":[1,"b"],"b":{},"c":{}}` + "\n", false},
	{"d0:i0e2:a\x00i2e2:\xff\xffi1ee", `{"":0,"a\u0000":2,"base64://8=":1}` + "\n", false},
	{"d1:bi1e1:ai2e1:bi3ee", `{"b":1,"a":2,"b":3}` + "\n", true},
	{"i1e3:abcle", "1\n\"abc\"\n[]\n", true},
	{"", "", true},
}

func TestJSONForm(t *testing.T) {
	t.Parallel()
	for _, tt := range jsonForms {
		c := NewCodec()
		if tt.lenient {
			c = configured(t, lenient).(*Codec)
		}
		bothWays(t, c, tt.bencode, tt.json)
	}
}

// bothWays checks that c decodes bencoded to js and encodes js to bencoded.
func bothWays(t *testing.T, c core.Codec, bencoded, js string) {
	t.Helper()
	got, err := transcode(t, c, false, []byte(bencoded))
	if err != nil || string(got) != js {
		t.Errorf("decode %q: got %q, %v; want %q", bencoded, got, err, js)
	}
	back, err := transcode(t, c, true, []byte(js))
	if err != nil || string(back) != bencoded {
		t.Errorf("encode %q: got %q, %v; want %q", js, back, err, bencoded)
	}
}

// hexForms pairs bencode with its JSON form under binary=hex, both ways.
var hexForms = []struct{ bencode, json string }{
	{"2:\xff\xfe", `"hex:fffe"` + "\n"},
	{"3:abc", `"abc"` + "\n"},
	{"0:", `""` + "\n"},
	{"4:hex:", `"hex:6865783a"` + "\n"},       // text that starts with the prefix
	{"6:hex:ab", `"hex:6865783a6162"` + "\n"}, // likewise
	{"9:base64:ab", `"base64:ab"` + "\n"},     // the other form's prefix is text here
	{"3:hex", `"hex"` + "\n"},                 // shorter than the prefix
	{"d2:\x00\xffi1e2:\xffai2ee", `{"hex:00ff":1,"hex:ff61":2}` + "\n"},
	{"20:\x82\x9e\xbc\x8c&\xbe\xc7JW\x9b}\xdcA4u,\xb7\xbc\x91\x87", `"hex:829ebc8c26bec74a579b7ddc4134752cb7bc9187"` + "\n"},
}

func TestHexForm(t *testing.T) {
	c := configured(t, hexBinary)
	for _, tt := range hexForms {
		bothWays(t, c, tt.bencode, tt.json)
	}
	// Either case decodes; errors name the form and the string's offset.
	for _, tt := range []struct {
		json, bencode string
		offset        int64
	}{
		{`"hex:FFfe"`, "2:\xff\xfe", -1},
		{`["hex:abc"]`, "", 1},
		{`["hex:zz"]`, "", 1},
		{`"hex:ab\ncd"`, "", 0},
		{`"hex:ab\r\ncd"`, "", 0},
		{`"hex:=="`, "", 0},
		{`"base64:/w=="`, "11:base64:/w==", -1},
	} {
		got, err := transcode(t, c, true, []byte(tt.json))
		if tt.offset < 0 {
			if err != nil || string(got) != tt.bencode {
				t.Errorf("encode %q: got %q, %v; want %q", tt.json, got, err, tt.bencode)
			}
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.offset || !strings.Contains(err.Error(), `invalid hex after "hex:"`) {
			t.Errorf("encode %q: %v, want invalid hex at %d", tt.json, err, tt.offset)
		}
	}
	if _, err := NewCodec().WithOptions(core.Options{{Key: "binary", Value: "base32"}}); !errors.Is(err, core.ErrBadOptionValue) {
		t.Errorf("binary=base32: %v", err)
	}
	if c, err := NewCodec().WithOptions(core.Options{hexBinary, {Key: "binary", Value: "base64"}}); err != nil || c.(*Codec).binary() != base64Form {
		t.Errorf("binary=base64 after hex: %v", err)
	}
}

func TestEncodeJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json, bencode string
		lenient       bool
	}{
		{" \t\r\n 1 \n", "i1e", false},
		{`"\u00e9\ud83d\ude00\/\b\f\r"`, "10:\xc3\xa9\xf0\x9f\x98\x80/\b\f\r", false},
		{`"\uFFFD"`, "3:\xef\xbf\xbd", false},
		{`{"b":1,"a":{"d":[{"z":1,"y":2}],"c":2}}`, "d1:ad1:ci2e1:dld1:yi2e1:zi1eeee1:bi1ee", false},
		{`{"b":1,"a":2}`, "d1:bi1e1:ai2ee", true},
		{`{"a":1,"a":2}`, "d1:ai1e1:ai2ee", true},
		{`{"base64:Yg==":1,"a":2}`, "d1:ai2e1:bi1ee", false},
		{"1 2 [] {}", "i1ei2elede", true},
		{" ", "", true},
	}
	for _, tt := range tests {
		c := NewCodec()
		if tt.lenient {
			c = configured(t, lenient).(*Codec)
		}
		got, err := transcode(t, c, true, []byte(tt.json))
		if err != nil || string(got) != tt.bencode {
			t.Errorf("encode %q: got %q, %v; want %q", tt.json, got, err, tt.bencode)
		}
	}
}

func TestEncodeJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json    string
		offset  int64
		msg     string
		lenient bool
	}{
		{"", 0, "unexpected end", false},
		{"  ", 2, "unexpected end", false},
		{"true", 0, "no bencoded form", false},
		{"[null]", 1, "no bencoded form", false},
		{"1.5", 0, "fraction", false},
		{"1e3", 0, "exponent", false},
		{"-0", 0, "-0", false},
		{"01", 0, "leading zero", false},
		{"-", 0, "without digits", false},
		{"1 2", 2, "after the top-level value", false},
		{`{"a":1,"a":2}`, 7, "duplicate", false},
		{`{"b":1,"a":2,"b":3}`, 13, "duplicate", false},
		{`{"base64:YQ==":1,"a":2}`, 17, "duplicate", false},
		{`"\ud800"`, 1, "invalid escape", false},
		{`"\ud800\u0041"`, 1, "invalid escape", false},
		{`"\x"`, 1, "invalid escape", false},
		{`"\u12"`, 1, "invalid escape", false},
		{"\"a\x01\"", 2, "control character 0x01 in string", false},
		{"[1\xff]", 2, "invalid character 0xff after a value", false},
		{"\"\xff\"", 0, "UTF-8", false},
		{`"base64:!!"`, 0, "base64", false},
		{`"base64:YQ"`, 0, "base64", false},
		{`"abc`, 4, "unterminated string", false},
		{`{"a":1`, 6, "unexpected end", false},
		{`{"a" 1}`, 5, "after object key", false},
		{`{1:1}`, 1, "object key", false},
		{`{"a":1,}`, 7, "object key", false},
		{`[1,]`, 3, "where a value belongs", false},
		{`[1 2]`, 3, "after a value in an array", false},
		{`[1}`, 2, "after a value in an array", false},
		{`{"a":1]`, 6, "after a value in an object", false},
		{`]`, 0, "where a value belongs", false},
		{"1 2 x", 4, "where a value belongs", true},
	}
	for _, tt := range tests {
		c := NewCodec()
		if tt.lenient {
			c = configured(t, lenient).(*Codec)
		}
		_, err := transcode(t, c, true, []byte(tt.json))
		checkDataError(t, tt.json, err, tt.offset, tt.msg)
	}
}

func checkDataError(t *testing.T, in string, err error, offset int64, msg string) {
	t.Helper()
	var de *core.DataError
	var se *SyntaxError
	switch {
	case !errors.As(err, &de) || !errors.Is(err, core.ErrInvalidData):
		t.Errorf("%q: got %v, want a *core.DataError", in, err)
	case de.Codec != "bencode" || de.Offset != offset || !strings.Contains(err.Error(), msg):
		t.Errorf("%q: got %v (offset %d), want %q at offset %d", in, err, de.Offset, msg, offset)
	case !errors.As(err, &se) || se.Offset != offset:
		t.Errorf("%q: %v does not wrap the *SyntaxError", in, err)
	case strings.Count(err.Error(), "offset") != 1:
		t.Errorf("%q: %q repeats the offset", in, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		offset  int64
		msg     string
		lenient bool
	}{
		{"", 0, "unexpected end", false},
		{"i1ei2e", 3, "after the top-level value", false},
		{"d1:bi1e1:ai2ee", 7, "out of order", false},
		{"li1e", 4, "unexpected end", false},
		{"i1ei01e", 3, "leading zero", true},
		{"5:ab", 0, "runs past the end", false},
		{"lllle", 3, "nesting deeper than 3", false},
	}
	for _, tt := range tests {
		c := configured(t, core.Option{Key: "depth", Value: "3"})
		if tt.lenient {
			c = configured(t, lenient)
		}
		_, err := transcode(t, c, false, []byte(tt.in))
		checkDataError(t, tt.in, err, tt.offset, tt.msg)
	}
}

func TestCodecOptions(t *testing.T) {
	c := NewCodec()
	if c.Name() != "bencode" || c.Suffix() != ".torrent" {
		t.Errorf("Name, Suffix = %q, %q", c.Name(), c.Suffix())
	}
	good := []core.Options{
		{{Key: "lenient", Value: "true"}},
		{{Key: "lenient", Value: "false"}, {Key: "depth", Value: "64"}},
	}
	for _, opts := range good {
		if _, err := c.WithOptions(opts); err != nil {
			t.Errorf("%v: %v", opts, err)
		}
	}
	bad := []struct {
		opt  core.Option
		want error
	}{
		{core.Option{Key: "strict", Value: "true"}, core.ErrUnknownOption},
		{core.Option{Key: "lenient", Value: "maybe"}, core.ErrBadOptionValue},
		{core.Option{Key: "depth", Value: "x"}, core.ErrBadOptionValue},
		{core.Option{Key: "depth", Value: "0"}, core.ErrBadOptionValue},
	}
	for _, tt := range bad {
		_, err := c.WithOptions(core.Options{tt.opt})
		var oe *core.OptionError
		if !errors.As(err, &oe) || !errors.Is(err, tt.want) || oe.Codec != "bencode" || oe.Key != tt.opt.Key {
			t.Errorf("%v: got %v, want an *OptionError wrapping %v", tt.opt, err, tt.want)
		}
	}
	// WithOptions leaves the receiver as it was.
	if _, err := c.WithOptions(core.Options{lenient}); err != nil || c.opts.Lenient {
		t.Errorf("WithOptions changed its receiver: %v", err)
	}
}

func TestCodecReadError(t *testing.T) {
	t.Parallel()
	for _, encode := range []bool{false, true} {
		c := NewCodec()
		r := c.NewDecodeReader(iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader("li1ee"))))
		if encode {
			r = c.NewEncodeReader(iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader("[1]"))))
		}
		if _, err := io.ReadAll(r); err != iotest.ErrTimeout {
			t.Errorf("encode=%v: got %v, want %v", encode, err, iotest.ErrTimeout)
		}
	}
}

func TestCodecWriter(t *testing.T) {
	t.Parallel()
	c := NewCodec()
	var out bytes.Buffer
	w := c.NewDecodeWriter(&out)
	if _, err := w.Write([]byte("li1e")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close accepted a truncated list")
	}
	w = c.NewEncodeWriter(&out)
	if err := w.Close(); err == nil {
		t.Error("Close accepted no JSON value in strict mode")
	}
	w = c.NewDecodeWriter(&out)
	w.Write([]byte("i1e"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := w.Write([]byte("i1e")); err == nil {
		t.Error("Write after Close succeeded")
	}
	w = c.NewDecodeWriter(failWriter{})
	if _, err := w.Write([]byte("i1e")); err == nil {
		t.Error("the underlying writer's error was lost")
	}
	w = c.NewDecodeWriter(&out)
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("bad data accepted")
	}
	if _, err := w.Write([]byte("i1e")); err == nil {
		t.Error("Write after an error succeeded")
	}
}

// lenientFiles are the malformed corpus files that only break the rules
// lenient mode relaxes: key order, the number of values (several, or none:
// the empty files, and one of a newline alone), whitespace outside values
// (most of them a final newline: the file, less it, is valid).
var lenientFiles = []string{
	"synthetic-malformed__empty.bin",
	"b14fs__empty.bin",
	"anacrolix-torrent__The.Shadow.Effect.2017.720p.10bit.BluRay.6CH.x265.HEVC-PSA-365577.torrent", // a newline alone
	"synthetic-malformed__dict_duplicate_keys.bin",
	"synthetic-malformed__two_top_level_values.bin",
	"libtorrent__unordered.torrent",
	"libtorrent__v2_unordered_files.torrent",
	"libtorrent__invalid_file_size.torrent",
	"libtorrent__negative_file_size.torrent",
	"libtorrent__pad_file_no_path.torrent",
	"anacrolix-torrent-fuzz-raw__b83176c6cec6b92f5c66774ae105efbc87c9aee44b9a55dba7f1789d8d862f45.bin",
	"anacrolix-torrent__minimal-trailing-newline.torrent",
	"libtorrent__duplicate_files2.torrent",
	"libtorrent__large_piece_size.torrent",
	"libtorrent__v2_invalid_piece_layer_root.torrent",
	"libtorrent__v2_unknown_piece_layer_entry.torrent",
	"parse-torrent__pride.torrent",
	"b14fs__unsorted_keys.bin",
	"b14fs__duplicate_keys.bin",
	"b14fs__two_top_level_values.bin",
	"b14fs__trailing_newline.bin",
}

func TestCodecCorpus(t *testing.T) {
	t.Parallel()
	strict, lax, hexForm := NewCodec(), configured(t, lenient), configured(t, hexBinary)
	for _, class := range []string{"valid", "edge"} {
		for _, f := range corpus(t, class) {
			for _, c := range []core.Codec{strict, lax, hexForm} {
				js, err := transcode(t, c, false, f.data)
				if err != nil {
					t.Errorf("%s/%s: %v", class, f.name, err)
					continue
				}
				back, err := transcode(t, c, true, js)
				if err != nil || !bytes.Equal(back, f.data) {
					t.Errorf("%s/%s: JSON round trip differs (%v)", class, f.name, err)
				}
			}
		}
	}
	for _, f := range corpus(t, "malformed") {
		_, err := transcode(t, strict, false, f.data)
		var de *core.DataError
		if !errors.As(err, &de) {
			t.Errorf("malformed/%s: got %v, want a *core.DataError", f.name, err)
		}
	}
	// Lenient mode accepts exactly the lenient files; the round trip gives
	// them back less the whitespace it reports.
	for _, f := range corpus(t, "malformed") {
		var warnings []Warning
		c := &Codec{opts: DecodeOptions{Lenient: true, Warn: func(w Warning) { warnings = append(warnings, w) }}}
		js, err := forms[0].run(c, false, f.data)
		if want := slices.Contains(lenientFiles, f.name); (err == nil) != want {
			t.Errorf("lenient malformed/%s: error %v, want an error: %v", f.name, err, !want)
		}
		if err != nil {
			continue
		}
		back, err := transcode(t, lax, true, js)
		if err != nil || !bytes.Equal(back, withoutWarned(t, f.data, warnings)) {
			t.Errorf("lenient malformed/%s: JSON round trip differs (%v)", f.name, err)
		}
		if n := len(f.data) - len(bytes.TrimRight(f.data, " \t\r\n")); n > 0 && len(warnings) == 0 {
			t.Errorf("lenient malformed/%s: %d bytes of whitespace at the end, no warning", f.name, n)
		}
	}
}

func TestCodecReset(t *testing.T) {
	t.Parallel()
	inputs := [][]byte{[]byte("d1:ali1eee"), []byte("x"), []byte("d1:ai1e"), []byte("l2:\xff\xfee")}
	for _, c := range []core.Codec{NewCodec(), configured(t, lenient)} {
		for _, encode := range []bool{false, true} {
			var r io.Reader
			var w io.WriteCloser
			var out bytes.Buffer
			for _, in := range inputs {
				if encode {
					in, _ = io.ReadAll(c.NewDecodeReader(bytes.NewReader(in)))
				}
				want, wantErr := forms[0].run(c, encode, in)
				if r == nil {
					r, w = c.NewDecodeReader(nil), c.NewDecodeWriter(nil)
					if encode {
						r, w = c.NewEncodeReader(nil), c.NewEncodeWriter(nil)
					}
				}
				r.(core.ReaderResetter).Reset(bytes.NewReader(in))
				got, err := io.ReadAll(r)
				if !bytes.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("reader Reset on %q: %q, %v; want %q, %v", in, got, err, want, wantErr)
				}
				out.Reset()
				w.(core.WriterResetter).Reset(&out)
				_, err = w.Write(in)
				if err == nil {
					err = w.Close()
				}
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || (err == nil && !bytes.Equal(out.Bytes(), want)) {
					t.Errorf("writer Reset on %q: %q, %v; want %q, %v", in, out.Bytes(), err, want, wantErr)
				}
			}
		}
	}
}
