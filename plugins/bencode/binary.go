package bencode

import (
	"encoding/base64"
	"encoding/hex"
)

// A binaryForm is how the codec's JSON form writes a string that is not
// text: a prefix, then the string's bytes in an encoding. A JSON string
// means such bytes exactly when it starts with the prefix, so a string
// that is text but starts with the prefix takes the binary form too.
type binaryForm struct {
	name   string // the value of the codec option binary=
	prefix string
	encode func(dst, src []byte) []byte
	decode func(dst, src []byte) ([]byte, error)
	// quantum is how many characters of the encoding decode together;
	// lineBreaks, that decoding skips CR and LF.
	quantum    int
	lineBreaks bool
	padding    byte // the padding character, which may end the text only; 0 if none
}

// binaryPrefix is the prefix of the default binary form.
const binaryPrefix = "base64:"

var (
	// base64Form, the default: standard base64 with padding ("base64:gp68jA==").
	base64Form = &binaryForm{
		name: "base64", prefix: binaryPrefix,
		encode: base64.StdEncoding.AppendEncode, decode: base64.StdEncoding.Strict().AppendDecode,
		quantum: 4, lineBreaks: true, padding: '=',
	}
	// hexForm: two lowercase hexadecimal digits a byte ("hex:829ebc8c");
	// decoding accepts either case.
	hexForm = &binaryForm{
		name: "hex", prefix: "hex:",
		encode: hex.AppendEncode, decode: hex.AppendDecode,
		quantum: 2,
	}
	binaryForms = []*binaryForm{base64Form, hexForm}
)

// maxPrefix is the length of the longest prefix of a binary form.
const maxPrefix = len(binaryPrefix)
