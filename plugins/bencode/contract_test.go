package bencode_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/plugins/bencode"
)

// TestCodecContract runs the codec conformance suite on JSON in the form the
// decoder writes, so that encoding then decoding gives it back byte for byte.
func TestCodecContract(t *testing.T) {
	var long bytes.Buffer
	long.WriteString(`{"list":[`)
	for i := range 20000 {
		if i > 0 {
			long.WriteByte(',')
		}
		fmt.Fprintf(&long, `{"bin":"base64:/wA=","n":%d,"s":"item %d"}`, i-10000, i)
	}
	long.WriteString("]}\n")
	inputs := [][]byte{
		[]byte("0\n"),
		[]byte(`"text"` + "\n"),
		[]byte(`{"a":1,"b":["x",-5],"c":{}}` + "\n"),
		[]byte(`[123456789012345678901234567890,"base64:gA==",[],{"":""}]` + "\n"),
		long.Bytes(),
	}
	codectest.TestCodec(t, bencode.NewCodec(), inputs...)

	lenient, err := core.Configure(bencode.NewCodec(), core.Options{{Key: "lenient", Value: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("lenient", func(t *testing.T) {
		codectest.TestCodec(t, lenient, append(inputs, []byte(`{"b":1,"a":2,"a":3}`+"\n"+"7\n"))...)
	})
}
