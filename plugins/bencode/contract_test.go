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
// decoder writes, so that encoding then decoding gives it back byte for byte.
// Its longest input, 95 KB, spans a few of the streams' buffers; the long
// checks make it 950 KB, near the memory the strict JSON encoder holds.
func TestCodecContract(t *testing.T) {
	n := 2000
	if longtest.Enabled() {
		n = 20000
	}
	inputs := contractInputs(n)
	codectest.TestCodec(t, bencode.NewCodec(), inputs...)

	lenient, err := core.Configure(bencode.NewCodec(), core.Options{{Key: "lenient", Value: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	lenientInputs := append(inputs, []byte(`{"b":1,"a":2,"a":3}`+"\n"+"7\n"))
	t.Run("lenient", func(t *testing.T) {
		codectest.TestCodec(t, lenient, lenientInputs...)
	})
	hex, err := core.Configure(bencode.NewCodec(), core.Options{{Key: "binary", Value: "hex"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("hex", func(t *testing.T) {
		codectest.TestCodec(t, hex, append(inputs, []byte(`{"hex:00ff":"hex:829ebc8c","x":["hex:ff"]}`+"\n"))...)
	})

	// The same with limits that make every string long, so that it is
	// transcoded in pieces and spooled (see limits in spill.go), with a
	// shorter list (every spooled byte going through a file one at a
	// time, the long one takes half a minute).
	inputs = contractInputs(300)
	lenientInputs = append(inputs, lenientInputs[len(lenientInputs)-1])
	for _, name := range bencode.TinyLimitNames {
		t.Run("tiny="+name, func(t *testing.T) {
			bencode.WithTinyLimits(t, name)
			codectest.TestCodec(t, bencode.NewCodec(), inputs...)
			lenient, err := core.Configure(bencode.NewCodec(), core.Options{{Key: "lenient", Value: "true"}})
			if err != nil {
				t.Fatal(err)
			}
			codectest.TestCodec(t, lenient, lenientInputs...)
		})
	}
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
