package kernel

import (
	"bytes"
	"encoding/hex"
	"testing"
)

func TestEncodeGenericExample(t *testing.T) {
	dst := make([]byte, 16)
	n := EncodeGeneric(dst, []byte("12345678"))
	want, _ := hex.DecodeString("5a4c71335ed48437")
	if n != 1 || !bytes.Equal(dst[:8], want) {
		t.Fatalf("EncodeGeneric(12345678) = %d, % x; want 1, % x", n, dst[:8], want)
	}
}

func TestDecodeGeneric(t *testing.T) {
	tests := []struct {
		units string
		n     int
		raw   string
	}{
		{"5a4c71335ed48437", 1, "1234567"},
		{"4e004e004e004e00" + "8dff8dff8dff8dff", 2, "\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff"},
		{"5a4c71335ed48437" + "5a4c71335ed48e00", 1, "1234567"},
		{"5a4c71335ed48437" + "4dff71335ed48437", 1, "1234567"},
		{"5a4c71335ed484", 0, ""},
	}
	for _, tt := range tests {
		src, _ := hex.DecodeString(tt.units)
		dst := make([]byte, 7*(len(src)/8))
		if n := DecodeGeneric(dst, src); n != tt.n || string(dst[:7*n]) != tt.raw {
			t.Errorf("DecodeGeneric(%s) = %d, %q; want %d, %q", tt.units, n, dst[:7*n], tt.n, tt.raw)
		}
	}
}
