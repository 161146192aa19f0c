package base16384_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384"
)

func ExampleEncodeString() {
	s := base16384.EncodeString("1234567")
	fmt.Println(s, base16384.DecodeString(s))
	// Output: 婌焳廔萷 1234567
}

func ExampleEncode() {
	fmt.Printf("% X\n", base16384.Encode([]byte("12345678")))
	// Output: 5A 4C 71 33 5E D4 84 37 5C 00 3D 01
}

func ExampleEncoding_AppendDecode() {
	_, err := base16384.StdEncoding.AppendDecode(nil, []byte{0x5A, 0x40, 0x3D, 0x02})
	fmt.Println(err)
	fmt.Println(errors.Is(err, base16384.ErrBadMarker), errors.Is(err, core.ErrInvalidData))
	// Output:
	// base16384: byte offset 2: bad end marker: value 2 after 1 data units
	// true true
}

func ExampleDecodeTo() {
	enc := base16384.Encode([]byte("hello"))
	n, _ := base16384.StdEncoding.DecodedLen(enc)
	out := make([]byte, n)
	if err := base16384.DecodeTo(enc, out); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%s\n", out)
	// Output: hello
}

func ExampleNewEncoder() {
	var enc bytes.Buffer
	if _, err := io.Copy(&enc, base16384.NewEncoder(strings.NewReader("1234567"))); err != nil {
		fmt.Println(err)
	}
	if _, err := io.Copy(os.Stdout, base16384.NewDecoder(&enc)); err != nil {
		fmt.Println(err)
	}
	// Output: 1234567
}

func ExampleNewEncodeWriter() {
	var enc bytes.Buffer
	w := base16384.NewEncodeWriter(&enc)
	w.Write([]byte("1234"))
	w.Write([]byte("5678"))
	w.Close() // writes the tail and its end marker
	fmt.Printf("% X\n", enc.Bytes())

	d := base16384.NewDecodeWriter(os.Stdout)
	d.Write(enc.Bytes()[:5])
	d.Write(enc.Bytes()[5:])
	if err := d.Close(); err != nil { // reports truncated input
		fmt.Println(err)
	}
	// Output:
	// 5A 4C 71 33 5E D4 84 37 5C 00 3D 01
	// 12345678
}

func ExampleCodec() {
	c, err := base16384.NewCodec().WithOptions(core.Options{{Key: "form", Value: "utf8"}, {Key: "bom", Value: "true"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	var enc bytes.Buffer
	w := c.NewEncodeWriter(&enc)
	io.WriteString(w, "12345678")
	w.Close()
	fmt.Printf("%q\n", enc.String())

	l, _ := c.(core.BlockCodec).Layout(bytes.NewReader(enc.Bytes()), int64(enc.Len()))
	fmt.Printf("%+v\n", l)
	// Output:
	// "\ufeff婌焳廔萷尀㴁"
	// {Header:3 PlainBlock:7 EncodedBlock:12 Size:8 Form:utf8+bom Independent:true}
}

// New configures an Encoding with typed options; its methods encode and
// decode whole buffers with them.
func ExampleNew() {
	enc := base16384.New(base16384.UTF8, base16384.BOM)
	text := enc.EncodeToString([]byte("12345678"))
	fmt.Printf("%q, %d bytes (EncodedLen %d)\n", text, len(text), enc.EncodedLen(8))

	plain, err := enc.DecodeString(text)
	fmt.Printf("%s %v\n", plain, err)

	_, err = base16384.New(base16384.Strict).DecodeString("婌焳廔萷封㴁")
	fmt.Println(err)
	// Output:
	// "\ufeff婌焳廔萷尀㴁", 21 bytes (EncodedLen 21)
	// 12345678 <nil>
	// base16384: byte offset 12: non-zero pad bits
}
