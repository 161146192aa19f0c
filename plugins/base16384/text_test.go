package base16384

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
)

// Texts the tests below put together: u7 is the UTF-8 form of "1234567"
// (4 units, 12 bytes), u8 that of "12345678" (6 units, 18 bytes).
var (
	u7 = EncodeToString([]byte("1234567"))
	u8 = EncodeToString([]byte("12345678"))
)

// textVariants returns text, the UTF-8 form, with line breaks and garbage
// put in: a CRLF after its first unit and an LF at its end; a stray byte
// and a character outside the alphabet after its second unit.
func textVariants(text []byte) [][]byte {
	at := func(i int) int { return min(i, len(text)) }
	return [][]byte{
		slices.Concat(text[:at(3)], []byte("\r\n"), text[at(3):], []byte("\n")),
		slices.Concat(text[:at(6)], []byte("\xff。"), text[at(6):]),
	}
}

// TestDecodeText decodes the UTF-8 form with line breaks and garbage under
// each setting, one-shot and in every stream form.
func TestDecodeText(t *testing.T) {
	skip, strict := config{skipGarbage: true}, config{strict: true}
	tests := []struct {
		name string
		cfg  config
		in   string
		want string // the plain text, or the error's message
	}{
		{"trailing LF", config{}, u7 + "\n", "1234567"},
		{"trailing CRLF", config{}, u8 + "\r\n", "12345678"},
		{"leading LF", config{}, "\n" + u7, "1234567"},
		{"LF in a group", config{}, u7[:6] + "\n" + u7[6:] + "\n\n", "1234567"},
		{"lines", config{}, u8[:12] + "\r\n" + u8[12:] + "\r\n", "12345678"},
		{"BOM then LF", config{}, "\uFEFF\n" + u7, "1234567"},
		{"only LF", config{}, "\n\r\n", ""},
		{"garbage byte", config{}, u7 + "\xff", "byte offset 12: invalid byte 0xff"},
		{"ASCII in a group", config{}, u7[:6] + "x" + u7[6:], "byte offset 6: invalid byte 0x78"},
		{"continuation byte", config{}, u7[:5], "byte offset 3: truncated input"},
		{"stray continuation", config{}, u7[:3] + u7[4:], "byte offset 3: invalid byte 0x84"},
		{"CJK outside the alphabet", config{}, u7[:6] + "。" + u7[6:], "byte offset 6: invalid unit: bytes E3 80 82"},
		{"LF in a character", config{}, u7[:4] + "\n", "byte offset 3: truncated input"},
		{"strict trailing LF", strict, u7 + "\n", "byte offset 12: unexpected byte 0x0a: a line break (strict=true)"},
		{"strict CR", strict, u7[:3] + "\r" + u7[3:], "byte offset 3: unexpected byte 0x0d: a line break (strict=true)"},
		{"skip garbage", skip, " " + u7[:6] + "\t。\xff" + u7[6:] + "x\n", "1234567"},
		{"skip a cut character", skip, u7 + u7[:2], "1234567"},
		{"skip 3D07", skip, u8[:15] + "\u3d07" + u8[15:], "12345678"},
		{"skip keeps bad markers of the alphabet", skip, u7[:3] + "\u3d02", "byte offset 3: bad end marker: value 2 after 1 data units"},
		{"skip, then data after the end", skip, u8 + "\n" + u7, "byte offset 19: data after the end marker"},
	}
	for _, tc := range tests {
		want, wantErr := []byte(tc.want), error(nil)
		if strings.HasPrefix(tc.want, "byte offset") {
			want = nil
		}
		out, err := oneShot(tc.cfg, []byte(tc.in))
		if err != nil {
			wantErr = err
			if !strings.HasSuffix(err.Error(), tc.want) || !errors.Is(err, core.ErrInvalidData) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			}
		} else if !bytes.Equal(out, want) {
			t.Errorf("%s: decoded %q, want %q", tc.name, out, tc.want)
		}
		// Every stream form says the same for every split of the input.
		in := []byte(tc.in)
		dw, d := newDecodeWriter(nil, tc.cfg), newDecoder(nil, tc.cfg)
		for _, at := range cuts(len(in)) {
			var buf bytes.Buffer
			dw.Reset(&buf)
			err := writePieces(dw, cut(in, at))
			if !sameResult(buf.Bytes(), err, out, wantErr) {
				t.Errorf("%s: DecodeWriter, cuts %v: %q, %v", tc.name, at, buf.Bytes(), err)
				break
			}
			if len(at) == 1 {
				d.Reset(piecesReader(cut(in, at)))
				got, err := readAll(d)
				if !sameResult(got, err, out, wantErr) {
					t.Errorf("%s: Decoder, cut %v: %q, %v", tc.name, at, got, err)
					break
				}
			}
		}
		if tc.cfg == (config{}) && !appendDecodeMatches(in, out, wantErr) {
			t.Errorf("%s: AppendDecode differs from the streams", tc.name)
		}
	}
}

// TestEncodeLines checks the line breaks of wrap and newline, one-shot and
// in both stream forms, and that the text decodes back.
func TestEncodeLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opts []Option
		in   string
		want string
	}{
		{[]Option{UTF8, Newline}, "1234567", u7 + "\n"},
		{[]Option{UTF8, Newline}, "", ""},
		{[]Option{UTF8, Newline, BOM}, "", "\uFEFF"},
		{[]Option{UTF8, Newline, BOM}, "1234567", "\uFEFF" + u7 + "\n"},
		{[]Option{UTF8, Wrap(2)}, "1234567", u7[:6] + "\n" + u7[6:]},
		{[]Option{UTF8, Wrap(2), Newline}, "1234567", u7[:6] + "\n" + u7[6:] + "\n"},
		{[]Option{UTF8, Wrap(4), Newline}, "1234567", u7 + "\n"},
		{[]Option{UTF8, Wrap(5), Newline, BOM}, "12345678", "\uFEFF" + u8[:15] + "\n" + u8[15:] + "\n"},
		{[]Option{UTF8, Wrap(1)}, "1", EncodeToString([]byte("1"))[:3] + "\n" + EncodeToString([]byte("1"))[3:]},
		{[]Option{UTF8, Wrap(0), Newline}, "12345678", u8 + "\n"},
		// Lines longer than an int counts bytes: 3 bytes a unit overflows
		// from math.MaxInt/3 + 1 units (FuzzChain found wrap=3077000000000000000).
		{[]Option{UTF8, Wrap(math.MaxInt / 3), Newline}, "12345678", u8 + "\n"},
		{[]Option{UTF8, Wrap(math.MaxInt/3 + 1), Newline}, "12345678", u8 + "\n"},
		{[]Option{UTF8, Wrap(3077000000000000000)}, "0", EncodeToString([]byte("0"))},
		{[]Option{UTF8, Wrap(math.MaxInt)}, "12345678", u8},
	}
	for _, tc := range tests {
		e := New(tc.opts...)
		if got := e.EncodeToString([]byte(tc.in)); got != tc.want {
			t.Errorf("%+v: EncodeToString(%q) = %q, want %q", e.cfg, tc.in, got, tc.want)
		}
		if n := e.EncodedLen(len(tc.in)); n != len(tc.want) {
			t.Errorf("%+v: EncodedLen(%d) = %d, want %d", e.cfg, len(tc.in), n, len(tc.want))
		}
		c := NewCodec(tc.opts...)
		if n := int64(len(c.cfg.header())) + c.EncodedLen(int64(len(tc.in))); n != int64(len(tc.want)) {
			t.Errorf("%+v: header + Codec.EncodedLen(%d) = %d, want %d", e.cfg, len(tc.in), n, len(tc.want))
		}
		if got := encodeWithCodec(t, c, []byte(tc.in)); string(got) != tc.want {
			t.Errorf("%+v: push encoder wrote %q, want %q", e.cfg, got, tc.want)
		}
		if got, err := readAll(c.NewEncodeReader(strings.NewReader(tc.in))); err != nil || string(got) != tc.want {
			t.Errorf("%+v: pull encoder read %q, %v; want %q", e.cfg, got, err, tc.want)
		}
		if got, err := e.DecodeString(tc.want); err != nil || string(got) != tc.in {
			t.Errorf("%+v: DecodeString(%q) = %q, %v", e.cfg, tc.want, got, err)
		}
	}
	// Long input: the streams' chunks, wrapped, match one-shot.
	for _, src := range streamInputs() {
		for _, wrap := range []int{1, 38, 1000} {
			opts := []Option{UTF8, Wrap(wrap), Newline}
			want := New(opts...).AppendEncode(nil, src)
			c := NewCodec(opts...)
			for _, size := range []int{1, 1000, 1 << 20} {
				var buf bytes.Buffer
				if err := writeInPieces(c.NewEncodeWriter(&buf), src, size); err != nil || !bytes.Equal(buf.Bytes(), want) {
					t.Errorf("wrap %d, %d bytes in %d-byte writes: differs from one-shot (err %v)", wrap, len(src), size, err)
				}
			}
			if got, err := readAll(c.NewEncodeReader(bytes.NewReader(src))); err != nil || !bytes.Equal(got, want) {
				t.Errorf("wrap %d, %d bytes: pull encoder differs from one-shot (err %v)", wrap, len(src), err)
			}
			if got, err := New().AppendDecode(nil, want); err != nil || !bytes.Equal(got, src) {
				t.Errorf("wrap %d, %d bytes: does not decode back: %v", wrap, len(src), err)
			}
		}
	}
}

// TestTextOptions checks the chain options for text: the codec they make
// and the combinations that are refused.
func TestTextOptions(t *testing.T) {
	opt := func(kv ...string) core.Options {
		var o core.Options
		for i := 0; i < len(kv); i += 2 {
			o = append(o, core.Option{Key: kv[i], Value: kv[i+1]})
		}
		return o
	}
	tests := []struct {
		opts    core.Options
		blocks  bool
		wantKey string // the key an error names, "" for none
	}{
		{opt("form", "utf8", "wrap", "0"), true, ""},
		{opt("form", "utf8", "newline", "false"), true, ""},
		{opt("form", "utf8", "wrap", "76"), false, ""},
		{opt("form", "utf8", "newline", "true"), false, ""},
		{opt("garbage", "skip"), false, ""},
		{opt("garbage", "reject", "strict", "true"), true, ""},
		{opt("wrap", "76"), false, "wrap"},
		{opt("form", "utf8", "wrap", "-1"), false, "wrap"},
		{opt("form", "utf8", "wrap", "x"), false, "wrap"},
		{opt("newline", "true"), false, "newline"},
		{opt("form", "utf8", "newline", "true", "form", "utf16be"), false, "newline"},
		{opt("garbage", "skip", "strict", "true"), false, "garbage"},
		{opt("garbage", "maybe"), false, "garbage"},
	}
	for _, tc := range tests {
		c, err := NewCodec().WithOptions(tc.opts)
		var oe *core.OptionError
		switch {
		case tc.wantKey != "":
			if !errors.As(err, &oe) || oe.Key != tc.wantKey || !errors.Is(err, core.ErrBadOptionValue) {
				t.Errorf("%v: %v, want a bad value of %s", tc.opts, err, tc.wantKey)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.opts, err)
		default:
			if _, err := c.(*Codec).WriteLayout(); (err == nil) != tc.blocks || err != nil && !errors.Is(err, core.ErrNoLayout) {
				t.Errorf("%v: WriteLayout: %v, want blocks %v", tc.opts, err, tc.blocks)
			}
			// Without the text options, the streams have blocks again.
			again, err := c.(core.Configurable).WithOptions(opt("wrap", "0", "newline", "false", "garbage", "reject"))
			if err != nil {
				t.Errorf("%v: reconfiguring: %v", tc.opts, err)
			} else if _, err := again.(*Codec).WriteLayout(); err != nil {
				t.Errorf("%v: reconfigured without text options: WriteLayout: %v", tc.opts, err)
			}
		}
	}
}

// TestNewCodecResolves checks that New and NewCodec take the Options that
// contradict each other as chain options (wrap or newline without
// form=utf8, garbage=skip with strict=true) without panicking: Wrap and
// Newline select the UTF-8 form, a Wrap below 1 breaks no line, and Strict
// overrides SkipGarbage in either order.
func TestNewCodecResolves(t *testing.T) {
	garbage := u7[:6] + " " + u7[6:]
	tests := []struct {
		opts []Option
		want string // the encoding of "1234567", or the error decoding garbage
	}{
		{[]Option{Wrap(3)}, u7[:9] + "\n" + u7[9:]},
		{[]Option{Newline}, u7 + "\n"},
		{[]Option{Wrap(-1)}, u7},
		{[]Option{Wrap(0), BOM}, "\uFEFF" + u7},
		{[]Option{SkipGarbage, Strict}, "byte offset 6: invalid byte 0x20"},
		{[]Option{Strict, SkipGarbage}, "byte offset 6: invalid byte 0x20"},
		{[]Option{SkipGarbage}, "1234567"},
	}
	for _, tc := range tests {
		var c *Codec
		if p := panics(func() { c = NewCodec(tc.opts...) }); p || panics(func() { New(tc.opts...) }) {
			t.Errorf("%+v: New or NewCodec panics", tc.opts)
			continue
		}
		got := string(encodeWithCodec(t, c, []byte("1234567")))
		if c.cfg.skipGarbage || c.cfg.strict {
			out, err := decodeWithCodec(c, []byte(garbage))
			if got = string(out); err != nil {
				got = strings.TrimPrefix(err.Error(), Name+": ")
			}
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.opts, got, tc.want)
		}
		if ec := New(tc.opts...).cfg; ec != c.cfg {
			t.Errorf("%+v: New's options %+v, NewCodec's %+v", tc.opts, ec, c.cfg)
		}
	}
}

// panics reports whether f panics.
func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// TestLayoutText checks Layout on the UTF-8 form with line breaks: at the
// end they are no matter, elsewhere they leave no layout, and strict
// rejects them. With garbage=skip the UTF-8 form has no layout, the raw
// form keeps its own.
func TestLayoutText(t *testing.T) {
	bom := "\uFEFF"
	tests := []struct {
		name   string
		strict bool
		in     string
		size   int64 // the decoded size, or -1
		header int64
		err    error
	}{
		{"LF", false, u7 + "\n", 7, 0, nil},
		{"CRLF", false, u8 + "\r\n", 8, 0, nil},
		{"BOM and LF", false, bom + u8 + "\n", 8, 3, nil},
		{"five LFs", false, u8 + "\n\n\n\n\n", 8, 0, nil},
		{"six LFs", false, u8 + "\n\n\n\n\n\n", -1, 0, core.ErrNoLayout},
		{"LF only", false, "\n", 0, 0, nil},
		{"wrapped", false, u8[:9] + "\n" + u8[9:] + "\n", -1, 0, core.ErrNoLayout},
		{"wrapped, lengths that fit", false, u8[:3] + "\n\n\n" + u8[3:], -1, 0, core.ErrNoLayout},
		{"strict LF", true, u7 + "\n", -1, 0, ErrUnexpectedByte},
		{"strict wrapped", true, u8[:3] + "\n\n\n" + u8[3:], -1, 0, ErrUnexpectedByte},
	}
	for _, tc := range tests {
		c := NewCodec()
		if tc.strict {
			c = NewCodec(Strict)
		}
		l, err := c.Layout(strings.NewReader(tc.in), int64(len(tc.in)))
		switch {
		case tc.err != nil:
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: Layout: %v, want %v", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: Layout: %v", tc.name, err)
		case l.Size != tc.size || l.Header != tc.header || l.EncodedBlock != 12:
			t.Errorf("%s: Layout = %+v, want size %d, header %d", tc.name, l, tc.size, tc.header)
		}
		if errors.Is(tc.err, ErrUnexpectedByte) {
			var de *core.DataError
			if !errors.As(err, &de) || de.Offset != int64(strings.IndexAny(tc.in, "\r\n")) {
				t.Errorf("%s: Layout: %v, want a *core.DataError at the first line break", tc.name, err)
			}
		}
		// DecodedLen agrees with the decoding.
		e := New()
		if tc.strict {
			e = New(Strict)
		}
		n, err := e.DecodedLen([]byte(tc.in))
		out, derr := oneShot(e.cfg, []byte(tc.in))
		if (err == nil) != (derr == nil) || err == nil && n != len(out) {
			t.Errorf("%s: DecodedLen = %d, %v; decoding gives %d bytes, %v", tc.name, n, err, len(out), derr)
		}
	}
	skip := NewCodec(SkipGarbage)
	if _, err := skip.Layout(strings.NewReader(u7[:6]+"。"+u7[6:]), int64(len(u7)+3)); !errors.Is(err, core.ErrNoLayout) {
		t.Errorf("garbage=skip, UTF-8 form: Layout: %v, want core.ErrNoLayout", err)
	}
	raw := Encode([]byte("1234567"))
	if l, err := skip.Layout(bytes.NewReader(raw), int64(len(raw))); err != nil || l.Size != 7 {
		t.Errorf("garbage=skip, raw form: Layout = %+v, %v; want size 7", l, err)
	}
}

// TestText checks the codec that Text sets out for people: a final line
// break unless newline=false, lines as TextOptions or the options say,
// garbage skipped when asked, and what contradicts the options refused.
func TestText(t *testing.T) {
	o := func(kv ...string) []core.Option {
		var opts []core.Option
		for i := 0; i < len(kv); i += 2 {
			opts = append(opts, core.Option{Key: kv[i], Value: kv[i+1]})
		}
		return opts
	}
	u14 := EncodeToString([]byte("12345671234567"))
	tests := []struct {
		opts []core.Option
		text core.TextOptions
		want string // the encoding of "12345671234567"
	}{
		{o("form", "utf8"), core.TextOptions{}, u14 + "\n"},
		{o("form", "utf8", "newline", "false"), core.TextOptions{}, u14},
		{o("form", "utf8", "newline", "true", "newline", "false"), core.TextOptions{}, u14},
		{o("form", "utf8"), core.TextOptions{Wrap: 3, WrapSet: true}, "婌焳廔\n萷婌焳\n廔萷\n"},
		{o("form", "utf8", "wrap", "3"), core.TextOptions{}, "婌焳廔\n萷婌焳\n廔萷\n"},
		{o("form", "utf8", "wrap", "3"), core.TextOptions{WrapSet: true}, u14 + "\n"},
		{nil, core.TextOptions{}, string(Encode([]byte("12345671234567")))},
	}
	for _, tc := range tests {
		c := withOptions(t, tc.opts...).(core.Texter)
		if c.WritesText() != (tc.opts != nil) {
			t.Errorf("%v: WritesText = %v", tc.opts, c.WritesText())
		}
		pc, err := c.Text(tc.text)
		if err != nil {
			t.Errorf("%v: Text(%+v): %v", tc.opts, tc.text, err)
			continue
		}
		if got := encodeWithCodec(t, pc, []byte("12345671234567")); string(got) != tc.want {
			t.Errorf("%v: Text(%+v) encodes %q, want %q", tc.opts, tc.text, got, tc.want)
		}
		// The text codec is a Texter too, and Text again changes nothing.
		again, err := pc.(core.Texter).Text(core.TextOptions{})
		if err != nil || string(encodeWithCodec(t, again, []byte("12345671234567"))) != tc.want {
			t.Errorf("%v: Text(%+v), then Text: %v", tc.opts, tc.text, err)
		}
	}

	garbage := []byte("婌焳 廔。萷")
	if _, err := decodeWithCodec(withOptions(t), garbage); err == nil {
		t.Fatal("garbage decodes without SkipGarbage")
	}
	for _, opts := range [][]core.Option{nil, o("form", "utf8")} {
		c, err := withOptions(t, opts...).(core.Texter).Text(core.TextOptions{SkipGarbage: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := decodeWithCodec(c, garbage); err != nil || string(got) != "1234567" {
			t.Errorf("%v: SkipGarbage decodes %q, %v", opts, got, err)
		}
	}

	for _, tc := range []struct {
		opts       []core.Option
		text       core.TextOptions
		key, value string
	}{
		{nil, core.TextOptions{Wrap: 3, WrapSet: true}, "wrap", "3"},
		{o("form", "utf8"), core.TextOptions{Wrap: -1, WrapSet: true}, "wrap", "-1"},
		{o("strict", "true"), core.TextOptions{SkipGarbage: true}, "garbage", "skip"},
	} {
		_, err := withOptions(t, tc.opts...).(core.Texter).Text(tc.text)
		var oe *core.OptionError
		if !errors.As(err, &oe) || oe.Key != tc.key || oe.Value != tc.value || !errors.Is(err, core.ErrBadOptionValue) {
			t.Errorf("%v: Text(%+v) = %v; want a bad value %s=%s", tc.opts, tc.text, err, tc.key, tc.value)
		}
	}
}
