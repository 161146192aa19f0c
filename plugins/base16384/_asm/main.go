// Command _asm generates the amd64 base16384 block kernels of package
// github.com/b14fs/b14fs/plugins/base16384/internal/kernel with avo.
//
// Run it through go generate in the kernel package; it writes
// kernel_amd64.s and stubs_amd64.go there. With -raw it generates instead
// the whole-buffer functions of package base16384 (raw.go), raw_amd64.s,
// whose Go declarations are in raw_amd64.go there.
package main

import (
	"flag"

	. "github.com/mmcloughlin/avo/build"
)

func main() {
	raw := flag.Bool("raw", false, "generate package base16384's encodeRaw and decodeRaw")
	flag.Parse()
	ConstraintExpr("!purego,gc")
	if *raw {
		shape := encodeShape()
		encodeRaw(rawFunc{name: "encodeStd", fallback: "encodeStdGo", std: true}, shape)
		encodeRaw(rawFunc{name: "encodeRaw", fallback: "encodeRawGo"}, shape)
		encodeRaw(rawFunc{name: "appendEncode", fallback: "appendEncodeGo", append: true}, shape)
		decodeRaw(rawFunc{name: "decodeStd", fallback: "decodeStdGo", std: true})
		decodeRaw(rawFunc{name: "decodeRaw", fallback: "decodeRawGo"})
		decodeRaw(rawFunc{name: "appendDecode", fallback: "appendDecodeGo", append: true})
	} else {
		encodeAVX2()
		decodeAVX2()
		encodeAVX512()
		decodeAVX512()
		shapeAVX512("shapeEncodeAVX512", "dst", 56, 64)
		shapeAVX512("shapeDecodeAVX512", "src", 64, 56)
		shapeDecodeExactAVX512()
	}
	Generate()
}
