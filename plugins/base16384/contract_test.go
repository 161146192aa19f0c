package base16384_test

import (
	"bytes"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestCodecContract runs the codec conformance suite on every option set,
// those for text (whose streams have no blocks) too, with inputs of every tail length and
// across the streams' chunk sizes.
func TestCodecContract(t *testing.T) {
	t.Parallel()
	var inputs [][]byte
	for n := range 15 {
		inputs = append(inputs, bytes.Repeat([]byte{0xA5}, n))
	}
	big := make([]byte, 100003)
	for i := range big {
		big[i] = byte(i * 7919 >> 3)
	}
	inputs = append(inputs, big)
	opt := func(k, v string) core.Option { return core.Option{Key: k, Value: v} }
	for _, opts := range []core.Options{
		nil,
		{opt("form", "utf8")},
		{opt("bom", "true")},
		{opt("form", "utf8"), opt("bom", "true")},
		{opt("checksum", "true")},
		{opt("strict", "true")},
		{opt("form", "utf8"), opt("wrap", "5")},
		{opt("form", "utf8"), opt("newline", "true")},
		{opt("form", "utf8"), opt("bom", "true"), opt("wrap", "1"), opt("newline", "true")},
		{opt("form", "utf8"), opt("garbage", "skip")},
		{opt("garbage", "skip")},
	} {
		t.Run(opts.String(), func(t *testing.T) {
			c, err := core.Configure(base16384.NewCodec(), opts)
			if err != nil {
				t.Fatal(err)
			}
			codectest.TestCodec(t, c, inputs...)
		})
	}
}
