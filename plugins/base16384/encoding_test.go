package base16384_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// optionSets pairs each set of typed Options with the chain options that
// name the same configuration.
var optionSets = []struct {
	spec string
	opts []base16384.Option
}{
	{"", nil},
	{"form=utf8", []base16384.Option{base16384.UTF8}},
	{"bom=true", []base16384.Option{base16384.BOM}},
	{"form=utf8:bom=true", []base16384.Option{base16384.UTF8, base16384.BOM}},
	{"strict=true", []base16384.Option{base16384.Strict}},
	{"checksum=true", []base16384.Option{base16384.Checksum}},
	{"form=utf8:checksum=true:bom=true", []base16384.Option{base16384.Checksum, base16384.BOM, base16384.UTF8}},
	{"form=utf8:wrap=5:newline=true", []base16384.Option{base16384.UTF8, base16384.Wrap(5), base16384.Newline}},
	{"form=utf8:garbage=skip:bom=true", []base16384.Option{base16384.SkipGarbage, base16384.BOM, base16384.UTF8}},
}

// specCodec returns the codec configured by chain options such as
// "form=utf8:bom=true".
func specCodec(t *testing.T, spec string) core.Codec {
	t.Helper()
	var opts core.Options
	for kv := range strings.SplitSeq(spec, ":") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			opts = append(opts, core.Option{Key: k, Value: v})
		}
	}
	c, err := core.Configure(base16384.NewCodec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEncodingMatchesCodec checks that an Encoding's one-shot methods give
// what the streams of the codec with the same options, typed or as chain
// options, give.
func TestEncodingMatchesCodec(t *testing.T) {
	for _, set := range optionSets {
		enc := base16384.New(set.opts...)
		byOpts := base16384.NewCodec(set.opts...)
		bySpec := specCodec(t, set.spec)
		a, aerr := byOpts.WriteLayout()
		b, berr := bySpec.(core.BlockCodec).WriteLayout()
		if a != b || (aerr == nil) != (berr == nil) {
			t.Errorf("%q: typed options give layout %+v, %v; chain options %+v, %v", set.spec, a, aerr, b, berr)
		}
		for n := range 30 {
			in := bytes.Repeat([]byte("0123456789"), 3)[:n]
			want, err := io.ReadAll(bySpec.NewEncodeReader(bytes.NewReader(in)))
			if err != nil {
				t.Fatal(err)
			}
			got := enc.AppendEncode([]byte("x"), in)
			if !bytes.Equal(got[1:], want) || got[0] != 'x' {
				t.Errorf("%q: AppendEncode(%d bytes) = % x, want % x", set.spec, n, got, want)
			}
			if l := enc.EncodedLen(n); l != len(want) {
				t.Errorf("%q: EncodedLen(%d) = %d, encoding has %d bytes", set.spec, n, l, len(want))
			}
			if s := enc.EncodeToString(in); s != string(want) {
				t.Errorf("%q: EncodeToString differs from AppendEncode", set.spec)
			}
			if l, err := enc.DecodedLen(want); l != n || err != nil {
				t.Errorf("%q: DecodedLen = %d, %v; want %d", set.spec, l, err, n)
			}
			if m := enc.MaxDecodedLen(len(want)); m < n {
				t.Errorf("%q: MaxDecodedLen(%d) = %d < %d", set.spec, len(want), m, n)
			}
			dst := make([]byte, n)
			if m, err := enc.Decode(dst, want); m != n || err != nil || !bytes.Equal(dst, in) {
				t.Errorf("%q: Decode = %d, %v", set.spec, m, err)
			}
			if dec, err := enc.AppendDecode([]byte("y"), want); err != nil || !bytes.Equal(dec, append([]byte("y"), in...)) {
				t.Errorf("%q: AppendDecode = %q, %v", set.spec, dec, err)
			}
		}
	}
}

// TestEncodingDecodeErrors checks that an Encoding's decoding honours its
// options and reports what the streams report.
func TestEncodingDecodeErrors(t *testing.T) {
	padded := []byte("婌焳廔萷封㴁") // 8 bytes, a pad bit set in the last data unit
	if _, err := base16384.StdEncoding.DecodeString(string(padded)); err != nil {
		t.Errorf("StdEncoding rejects set pad bits: %v", err)
	}
	_, err := base16384.New(base16384.Strict).DecodeString(string(padded))
	if !errors.Is(err, base16384.ErrPadBits) {
		t.Errorf("Strict: %v, want ErrPadBits", err)
	}
	_, err = base16384.New(base16384.Checksum).DecodeString(string(padded))
	if !errors.Is(err, base16384.ErrChecksum) {
		t.Errorf("Checksum: %v, want ErrChecksum", err)
	}
	enc := base16384.StdEncoding.AppendEncode(nil, []byte("hello"))
	if _, err := base16384.StdEncoding.Decode(make([]byte, 4), enc); !errors.Is(err, io.ErrShortBuffer) {
		t.Errorf("Decode into a short buffer: %v", err)
	}
	bad := append(enc[:len(enc):len(enc)], 0x4E, 0x00)
	for _, e := range []*base16384.Encoding{base16384.StdEncoding, base16384.New(base16384.Strict)} {
		out, err := e.AppendDecode([]byte("keep"), bad)
		var de *core.DataError
		if !errors.As(err, &de) || de.Offset != int64(len(enc)) || string(out) != "keep" {
			t.Errorf("AppendDecode of trailing data = %q, %v", out, err)
		}
	}
}

// TestShortTextAllocations checks that decoding a short text that DecodedLen
// counts by decoding (the UTF-8 form in lines) allocates about its output,
// not the buffers of a stream.
func TestShortTextAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops what it is given under the race detector")
	}
	text := base16384.New(base16384.UTF8, base16384.Wrap(4)).EncodeToString([]byte("hello, world"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 100
	for range runs {
		if got, err := base16384.StdEncoding.DecodeString(text); err != nil || string(got) != "hello, world" {
			t.Fatalf("DecodeString = %q, %v", got, err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 2048 {
		t.Errorf("DecodeString of %d bytes allocated %d bytes a call", len(text), per)
	}
}
