package rot13_test

import (
	"io"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"

	"example.com/rot13"
)

var inputs = [][]byte{nil, []byte("x"), []byte("Hello, World! 0123 ~"), []byte(strings.Repeat("The quick brown fox. ", 20000))}

// TestCodec checks the codec in process: test it so before serving it.
func TestCodec(t *testing.T) {
	codectest.TestCodec(t, rot13.Codec{}, inputs...)
	shift7, err := core.Configure(rot13.Codec{}, core.Options{{Key: "shift", Value: "7"}})
	if err != nil {
		t.Fatal(err)
	}
	codectest.TestCodec(t, shift7, inputs...)
}

func TestRotate(t *testing.T) {
	for _, c := range []struct{ opts, in, out string }{
		{"", "Hello, World!", "Uryyb, Jbeyq!"},
		{"shift=1", "azAZ09", "baBA09"},
		{"shift=25", "baBA", "azAZ"},
	} {
		codec := core.Codec(rot13.Codec{})
		if c.opts != "" {
			k, v, _ := strings.Cut(c.opts, "=")
			var err error
			if codec, err = core.Configure(codec, core.Options{{Key: k, Value: v}}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := io.ReadAll(codec.NewEncodeReader(strings.NewReader(c.in)))
		if err != nil || string(got) != c.out {
			t.Errorf("%s %q = %q, %v; want %q", c.opts, c.in, got, err, c.out)
		}
	}
}
