package base16384

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/b14fs/b14fs/core"
)

func TestLengths(t *testing.T) {
	for n := 0; n < 100; n++ {
		enc := Encode(make([]byte, n))
		if got := EncodeLen(n); got != len(enc) {
			t.Errorf("EncodeLen(%d) = %d, want %d", n, got, len(enc))
		}
		offset := 0
		if len(enc) >= 2 && enc[len(enc)-2] == markerHi {
			offset = int(enc[len(enc)-1])
		}
		if got := DecodeLen(len(enc), offset); got != n {
			t.Errorf("DecodeLen(%d, %d) = %d, want %d", len(enc), offset, got, n)
		}
	}
}

func TestEncodeTo(t *testing.T) {
	src := []byte("12345678")
	want := Encode(src)
	dst := bytes.Repeat([]byte{0xA5}, len(want)+1)
	if err := EncodeTo(src, dst); err != nil || !bytes.Equal(dst[:len(want)], want) || dst[len(want)] != 0xA5 {
		t.Errorf("EncodeTo = % X, %v; want % X and nothing past it", dst, err, want)
	}
	if err := EncodeTo(src, dst[:len(want)-1]); !errors.Is(err, io.ErrShortBuffer) {
		t.Errorf("EncodeTo into a short buffer: %v, want io.ErrShortBuffer", err)
	}
	if got := StdEncoding.AppendEncode([]byte("x"), src); string(got) != "x"+string(want) {
		t.Errorf("StdEncoding.AppendEncode = % X", got)
	}
}

// TestStringForms checks the string functions of the reference API on valid
// and invalid input.
func TestStringForms(t *testing.T) {
	const plain = "1234567"
	const text = "婌焳廔萷"
	raw := Encode([]byte(plain))
	bad := []byte{0x5A, 0x40}
	tests := []struct {
		name      string
		got, want any
	}{
		{"EncodeToString", EncodeToString([]byte(plain)), text},
		{"EncodeString", EncodeString(plain), text},
		{"EncodeFromString", EncodeFromString(plain), raw},
		{"DecodeToString", DecodeToString(raw), plain},
		{"DecodeToString of UTF-8", DecodeToString([]byte(text)), plain},
		{"DecodeToString of bad input", DecodeToString(bad), ""},
		{"DecodeFromString", DecodeFromString(text), []byte(plain)},
		{"DecodeFromString of raw", DecodeFromString(string(raw)), []byte(plain)},
		{"DecodeFromString of bad input", DecodeFromString(string(bad)), []byte(nil)},
		{"DecodeString", DecodeString(text), plain},
		{"DecodeString of bad input", DecodeString("婌\n"), ""},
		{"Decode of empty input", Decode(nil), []byte{}},
	}
	for _, tc := range tests {
		if g, ok := tc.got.([]byte); ok {
			if w := tc.want.([]byte); !bytes.Equal(g, w) || (g == nil) != (w == nil) {
				t.Errorf("%s = %#v, want %#v", tc.name, g, w)
			}
		} else if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestCodecStreamForms round-trips through every pairing of the codec's
// pull and push forms.
func TestCodecStreamForms(t *testing.T) {
	var c core.Codec = NewCodec()
	src := bytes.Repeat([]byte("0123456789"), 10000)
	enc, err := io.ReadAll(c.NewEncodeReader(bytes.NewReader(src)))
	if err != nil || !bytes.Equal(enc, Encode(src)) {
		t.Fatalf("NewEncodeReader: %v", err)
	}
	var dec bytes.Buffer
	w := c.NewDecodeWriter(&dec)
	if _, err := w.Write(enc); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || !bytes.Equal(dec.Bytes(), src) {
		t.Errorf("NewDecodeWriter: %v", err)
	}
	w = c.NewDecodeWriter(io.Discard)
	if _, err := w.Write(enc[:len(enc)-1]); err != nil {
		t.Fatalf("writing all but the last byte: %v", err)
	}
	checkDataError(t, "Close after a truncated input", w.Close(), int64(len(enc)-2), ErrTruncated)
}
