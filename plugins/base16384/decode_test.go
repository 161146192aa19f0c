package base16384

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
)

// unhex decodes hex digits, ignoring spaces.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// badInputs are malformed raw encodings, each with the offset of its first
// bad unit and the error it gives.
var badInputs = []struct {
	name   string
	in     string // hex
	offset int64
	err    error
}{
	{"one byte", "5A", 0, ErrTruncated},
	{"odd length", "5A4C 7133 5ED4 84", 6, ErrTruncated},
	{"odd after group", "5A4C 7133 5ED4 8437 5C", 8, ErrTruncated},
	{"unit below range", "4DFF 7133 5ED4 8437", 0, ErrInvalidUnit},
	{"unit above range", "5A4C 7133 5ED4 8E00", 6, ErrInvalidUnit},
	{"bad unit in second group", "5A4C 7133 5ED4 8437 5A4C FFFF 5ED4 8437", 10, ErrInvalidUnit},
	{"bad unit before odd end", "5A4C 0000 5E", 2, ErrInvalidUnit},
	{"bad unit before bad marker", "0000 3D09", 0, ErrInvalidUnit},
	{"BOM then bad unit", "FEFF 5A4C 0000", 4, ErrInvalidUnit},
	{"UTF-16LE BOM", "FFFE 5A4C", 0, ErrInvalidUnit},
	{"lone FE", "FE", 0, ErrTruncated},
	{"marker in the middle", "5A40 3D01 5A40 3D01", 4, ErrTrailingData},
	{"data after marker", "5A40 3D01 4E00", 4, ErrTrailingData},
	{"byte after marker", "5A40 3D01 00", 4, ErrTrailingData},
	{"marker value 0", "5A40 3D00", 2, ErrBadMarker},
	{"marker value 7", "5A40 3D07", 2, ErrBadMarker},
	{"marker value FF", "5A4C 7133 5ED4 8437 5A40 3DFF", 10, ErrBadMarker},
	{"marker for wrong count", "5A40 3D02", 2, ErrBadMarker},
	{"marker after 3 for 2", "5A4C 7133 5ED4 3D02", 6, ErrBadMarker},
	{"marker alone", "3D01", 0, ErrBadMarker},
	{"marker after full group", "5A4C 7133 5ED4 8437 3D01", 8, ErrBadMarker},
	{"marker 6 after 3", "5A4C 7133 5ED4 3D06", 6, ErrBadMarker},
	// The encoding of "ABCDEFGHIJKLMN" with 3D06 after its first group,
	// which makes that group a 6-byte tail.
	{"marker 6 after a group", "5E50 7234 5F15 5447 3D06 6012 62A4 7B31 5B4E", 10, ErrTrailingData},
	{"missing marker", "5A40", 2, ErrTruncated},
	{"missing marker after group", "5A4C 7133 5ED4 8437 5A4C 7133", 12, ErrTruncated},
}

// rawOnly names the bad inputs whose fault has no UTF-8 counterpart.
var rawOnly = map[string]bool{"UTF-16LE BOM": true, "lone FE": true, "BOM then bad unit": true}

// utf8Offset maps an offset in a raw encoding without BOM to the offset of
// the same unit in the UTF-8 form.
func utf8Offset(raw int64) int64 { return raw / 2 * 3 }

// toUTF8 converts a raw encoding (a BOM, whole units, then at most one odd
// byte) to the UTF-8 form, turning an odd byte into a partial character.
func toUTF8(raw []byte) []byte {
	var out []byte
	for i := 0; i+1 < len(raw); i += 2 {
		u := uint16(raw[i])<<8 | uint16(raw[i+1])
		if u == 0xFEFF && i == 0 {
			out = append(out, 0xEF, 0xBB, 0xBF)
			continue
		}
		out = append(out, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
	}
	if len(raw)%2 == 1 {
		out = append(out, 0xE5)
	}
	return out
}

// checkDataError reports whether err is a *core.DataError at offset
// wrapping want.
func checkDataError(t *testing.T, what string, err error, offset int64, want error) {
	t.Helper()
	var de *core.DataError
	switch {
	case !errors.As(err, &de):
		t.Errorf("%s: error %v, want a *core.DataError", what, err)
	case de.Codec != Name || de.Offset != offset || !errors.Is(err, want) || !errors.Is(err, core.ErrInvalidData):
		t.Errorf("%s: error %v, want %s at offset %d: %v", what, err, Name, offset, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range badInputs {
		raw := unhex(t, tc.in)
		forms := []struct {
			name   string
			in     []byte
			offset int64
		}{
			{"raw", raw, tc.offset},
			{"utf8", toUTF8(raw), utf8Offset(tc.offset)},
		}
		if rawOnly[tc.name] {
			forms = forms[:1]
		}
		for _, f := range forms {
			what := tc.name + "/" + f.name
			out, err := StdEncoding.AppendDecode([]byte("x"), f.in)
			checkDataError(t, what+": AppendDecode", err, f.offset, tc.err)
			if string(out) != "x" {
				t.Errorf("%s: AppendDecode changed dst to %q", what, out)
			}
			checkDataError(t, what+": DecodeTo", DecodeTo(f.in, make([]byte, 64)), f.offset, tc.err)
			if got := Decode(f.in); got != nil {
				t.Errorf("%s: Decode = % X, want nil", what, got)
			}
		}
	}
}

func TestDecodeValid(t *testing.T) {
	tests := []struct {
		name, in, want string // hex
	}{
		{"empty", "", ""},
		{"BOM only", "FEFF", ""},
		{"one byte", "5A40 3D01", "31"},
		{"BOM and one byte", "FEFF 5A40 3D01", "31"},
		{"full group", "5A4C 7133 5ED4 8437", "31323334353637"},
		{"six bytes", "5A4C 7133 5ED4 8400 3D06", "313233343536"},
		{"pad bits ignored", "5A7F 3D01", "31"},
		{"group and tail", "5A4C 7133 5ED4 8437 5C00 3D01", "3132333435363738"},
	}
	for _, tc := range tests {
		raw := unhex(t, tc.in)
		want := unhex(t, tc.want)
		for _, in := range [][]byte{raw, toUTF8(raw)} {
			got, err := StdEncoding.AppendDecode(nil, in)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: StdEncoding.AppendDecode(% X) = % X, %v; want % X", tc.name, in, got, err, want)
			}
			n, err := StdEncoding.DecodedLen(in)
			if err != nil || n != len(want) {
				t.Errorf("%s: StdEncoding.DecodedLen(% X) = %d, %v; want %d", tc.name, in, n, err, len(want))
			}
			exact := make([]byte, len(want), len(want)+8)
			if err := DecodeTo(in, exact); err != nil || !bytes.Equal(exact, want) || exact[:cap(exact)][len(want)] != 0 {
				t.Errorf("%s: DecodeTo(% X) = % X, %v; want % X and nothing past it", tc.name, in, exact[:cap(exact)], err, want)
			}
		}
	}
}

func TestDecodeToShortBuffer(t *testing.T) {
	err := DecodeTo(Encode([]byte("1234567")), make([]byte, 6))
	if !errors.Is(err, io.ErrShortBuffer) {
		t.Errorf("DecodeTo into a short buffer: %v, want io.ErrShortBuffer", err)
	}
}
