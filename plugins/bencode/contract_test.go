package bencode_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/plugins/bencode"
)

// TestCodecContract runs the codec conformance suite on JSON in the form the
// decoder writes, so that encoding then decoding gives it back byte for byte:
// strict, lenient and with binary strings in hex, in parallel. Its longest
// input, 95 KB, spans a few of the streams' buffers; the long checks make it
// 950 KB, near the memory the strict JSON encoder holds.
func TestCodecContract(t *testing.T) {
	t.Parallel()
	n := 2000
	if longtest.Enabled() {
		n = 20000
	}
	inputs := contractInputs(n)
	lenientInputs := append(inputs, lenientInput)
	hexInputs := append(inputs, []byte(`{"hex:00ff":"hex:829ebc8c","x":["hex:ff"]}`+"\n"))
	for _, c := range []struct {
		name   string
		opts   core.Options
		inputs [][]byte
	}{
		{"strict", nil, inputs},
		{"lenient", core.Options{{Key: "lenient", Value: "true"}}, lenientInputs},
		{"hex", core.Options{{Key: "binary", Value: "hex"}}, hexInputs},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			codectest.TestCodec(t, configured(t, c.opts), c.inputs...)
		})
	}
}

// lenientInput is JSON that only the lenient codec takes.
var lenientInput = []byte(`{"b":1,"a":2,"a":3}` + "\n" + "7\n")

// TestCodecContractTinyLimits runs the conformance suite with limits that
// make every string long, so that it is transcoded in pieces and spooled
// (see limits in spill.go), with a shorter list (every spooled byte going
// through a file one at a time, the long one takes half a minute). Each
// set of limits holds while its strict and lenient suites run in parallel.
func TestCodecContractTinyLimits(t *testing.T) {
	inputs := contractInputs(300)
	lenientInputs := append(inputs, lenientInput)
	for _, name := range bencode.TinyLimitNames {
		t.Run("tiny="+name, func(t *testing.T) {
			bencode.WithTinyLimits(t, name)
			t.Run("strict", func(t *testing.T) {
				t.Parallel()
				codectest.TestCodec(t, bencode.NewCodec(), inputs...)
			})
			t.Run("lenient", func(t *testing.T) {
				t.Parallel()
				codectest.TestCodec(t, configured(t, core.Options{{Key: "lenient", Value: "true"}}), lenientInputs...)
			})
		})
	}
}

// configured returns the codec with opts.
func configured(t *testing.T, opts core.Options) core.Codec {
	t.Helper()
	c, err := core.Configure(bencode.NewCodec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// contractInputs returns JSON in the form the decoder writes, the last a
// list of n objects.
func contractInputs(n int) [][]byte {
	var long bytes.Buffer
	long.WriteString(`{"list":[`)
	for i := range n {
		if i > 0 {
			long.WriteByte(',')
		}
		fmt.Fprintf(&long, `{"bin":"base64:/wA=","n":%d,"s":"item %d"}`, i-n/2, i)
	}
	long.WriteString("]}\n")
	return [][]byte{
		[]byte("0\n"),
		[]byte(`"text"` + "\n"),
		[]byte(`{"a":1,"b":["x",-5],"c":{}}` + "\n"),
		[]byte(`[123456789012345678901234567890,"base64:gA==",[],{"":""}]` + "\n"),
		long.Bytes(),
	}
}
