package builtin_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/transform"
)

// A chain from a spec, used in both directions: JSON to bencode to
// base16384 text, and back.
func Example() {
	codec, err := transform.New(builtin.Registry(), "bencode,base16384=form=utf8")
	if err != nil {
		log.Fatal(err)
	}
	var encoded strings.Builder
	w := codec.NewEncodeWriter(&encoded)
	io.WriteString(w, `{"answer":42,"name":"b14fs"}`)
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(encoded.String())

	r := codec.NewDecodeReader(strings.NewReader(encoded.String()))
	if _, err := io.Copy(os.Stdout, r); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 服熦厹腷杜璓廉猴岛琖莔茺暌慆柍猀㴆
	// {"answer":42,"name":"b14fs"}
}

// Bad data is reported with the codec and the byte offset.
func Example_badData() {
	codec, err := transform.New(builtin.Registry(), "base16384")
	if err != nil {
		log.Fatal(err)
	}
	_, err = io.ReadAll(codec.NewDecodeReader(strings.NewReader("\x4e\x00\x00\x41")))
	fmt.Println(err)
	// Output:
	// base16384: byte offset 2: invalid unit: U+0041
}

func ExampleRegistry() {
	for _, e := range builtin.Registry().List() {
		fmt.Println(e.Codec.Name(), e.Origin)
	}
	// Output:
	// base16384 builtin
	// bencode builtin
}
