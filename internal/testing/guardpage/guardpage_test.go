//go:build unix

package guardpage

import (
	"bytes"
	"testing"
)

func TestPlace(t *testing.T) {
	region := Region(t, 100)
	if len(region) < 100 {
		t.Fatalf("Region(100) has %d bytes", len(region))
	}
	b := []byte("guarded")
	for _, atEnd := range []bool{false, true} {
		got := Place(region, b, atEnd)
		if !bytes.Equal(got, b) || cap(got) != len(b) {
			t.Fatalf("Place(atEnd %v) = %q, cap %d", atEnd, got, cap(got))
		}
		if atEnd && &got[len(got)-1] != &region[len(region)-1] {
			t.Fatal("Place(atEnd) does not end the region")
		}
		if !atEnd && &got[0] != &region[0] {
			t.Fatal("Place does not start the region")
		}
	}
}
