package base16384

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/b14fs/b14fs/core"
)

// addSeeds adds the encodings of a few inputs, and some broken ones, to f.
func addSeeds(f *testing.F, add func(in []byte)) {
	for _, s := range []string{"", "1", "1234567", "12345678", "hello, world", "\x00\xff\x00\xff\x00\xff"} {
		add(Encode([]byte(s)))
		add([]byte(EncodeToString([]byte(s))))
		add(append([]byte{0xFE, 0xFF}, Encode([]byte(s))...))
	}
	for _, tc := range badInputs {
		add(unhex(f, tc.in))
	}
}

// configFromBits picks a config from the low bits of b.
func configFromBits(b uint8) config {
	return config{utf8: b&1 != 0, bom: b&2 != 0, strict: b&4 != 0, checksum: b&8 != 0}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("12345678"), uint8(0))
	f.Add([]byte("hello, world"), uint8(15))
	f.Add(bytes.Repeat([]byte{0xFF}, 100), uint8(9))
	f.Fuzz(func(t *testing.T, plain []byte, bits uint8) {
		cfg := configFromBits(bits)
		enc := encodeWith(cfg, plain)
		if !cfg.utf8 && !cfg.bom && !cfg.checksum && !bytes.Equal(enc, Encode(plain)) {
			t.Fatalf("encodeWith differs from Encode")
		}
		out, err := readAll(newDecoder(bytes.NewReader(enc), cfg))
		if err != nil || !bytes.Equal(out, plain) {
			t.Fatalf("%+v: round trip gave %d bytes, %v", cfg, len(out), err)
		}
		if !cfg.checksum {
			if out, err := StdEncoding.AppendDecode(nil, enc); err != nil || !bytes.Equal(out, plain) {
				t.Fatalf("%+v: AppendDecode round trip gave %d bytes, %v", cfg, len(out), err)
			}
		}
	})
}

func FuzzDecode(f *testing.F) {
	addSeeds(f, func(in []byte) { f.Add(in) })
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := StdEncoding.AppendDecode(nil, in)
		if err != nil {
			var de *core.DataError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > int64(len(in)) {
				t.Fatalf("error %v is no *core.DataError within the input", err)
			}
			return
		}
		n, err := StdEncoding.DecodedLen(in)
		if err != nil || n != len(out) {
			t.Fatalf("DecodedLen = %d, %v; decoded %d bytes", n, err, len(out))
		}
		// DecodeTo writes nothing past the decoded length.
		guarded := bytes.Repeat([]byte{0xA5}, n+64)
		if err := DecodeTo(in, guarded[:n]); err != nil || !bytes.Equal(guarded[:n], out) {
			t.Fatalf("DecodeTo: %v", err)
		}
		if bytes.Count(guarded[n:], []byte{0xA5}) != 64 {
			t.Fatalf("DecodeTo wrote past the decoded length")
		}
		// A valid input is the encoding of its decoding, but for the form,
		// the byte order mark and the pad bits.
		if again, err := StdEncoding.AppendDecode(nil, Encode(out)); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("re-encoding does not round trip: %v", err)
		}
	})
}

// fuzzDecodeConfigs are the decoding settings FuzzStreamEqualsOneShot picks
// from.
var fuzzDecodeConfigs = []config{{}, {strict: true}, {skipGarbage: true}, {checksum: true}}

func FuzzStreamEqualsOneShot(f *testing.F) {
	addSeeds(f, func(in []byte) { f.Add(in, uint16(1), uint8(0)) })
	f.Add(bytes.Repeat(Encode([]byte("1234567")), 100), uint16(13), uint8(0))
	// The reproducer: 3D06 after the first group, cut after it.
	enc := Encode([]byte("ABCDEFGHIJKLMN"))
	f.Add(slices.Concat(enc[:8], []byte{0x3D, 0x06}, enc[8:]), uint16(10), uint8(0))
	// Text with line breaks and garbage, under each setting.
	text := []byte(EncodeToString([]byte("hello, world")))
	for mode := range uint8(len(fuzzDecodeConfigs)) {
		for _, in := range textVariants(text) {
			f.Add(in, uint16(4), mode)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, size uint16, mode uint8) {
		cfg := fuzzDecodeConfigs[int(mode)%len(fuzzDecodeConfigs)]
		want, wantErr := oneShot(cfg, in)
		check := func(form string, out []byte, err error) {
			if !sameResult(out, err, want, wantErr) {
				t.Fatalf("%+v, %s: wrote %d bytes, %v; one-shot wrote %d bytes, %v", cfg, form, len(out), err, len(want), wantErr)
			}
		}
		if cfg == (config{}) && !appendDecodeMatches(in, want, wantErr) {
			t.Fatalf("AppendDecode differs from one-shot %v", wantErr)
		}
		// The whole-buffer paths of the Encoding with cfg, into a buffer
		// with room and into one of the decoded length.
		e := &Encoding{cfg: cfg}
		out, err := e.AppendDecode(nil, in)
		if err != nil {
			out = want // AppendDecode appends nothing on error
		}
		if !sameResult(out, err, want, wantErr) {
			t.Fatalf("%+v: Encoding.AppendDecode wrote %d bytes, %v; one-shot wrote %d bytes, %v", cfg, len(out), err, len(want), wantErr)
		}
		if wantErr == nil {
			dst := make([]byte, len(want))
			if n, err := e.Decode(dst, in); err != nil || n != len(want) || !bytes.Equal(dst, want) {
				t.Fatalf("%+v: Encoding.Decode = %d, %v", cfg, n, err)
			}
		}
		if n, err := (&Encoding{cfg: cfg}).DecodedLen(in); wantErr == nil && (err != nil || n != len(want)) {
			t.Fatalf("%+v: DecodedLen = %d, %v; one-shot decoded %d bytes", cfg, n, err, len(want))
		}
		pieces := max(int(size), 1)
		var buf bytes.Buffer
		err = writeInPieces(newDecodeWriter(&buf, cfg), in, pieces)
		check("DecodeWriter", buf.Bytes(), err)
		out, err = readAll(newDecoder(iotest.HalfReader(bytes.NewReader(in)), cfg))
		check("Decoder", out, err)
		out, err = io.ReadAll(iotest.OneByteReader(newDecoder(bytes.NewReader(in), cfg)))
		check("Decoder 1-byte reads", out, err)

		buf.Reset()
		if err := writeInPieces(NewEncodeWriter(&buf), in, pieces); err != nil || !bytes.Equal(buf.Bytes(), Encode(in)) {
			t.Fatalf("EncodeWriter differs from Encode (err %v)", err)
		}
	})
}
