// Command _asm generates the amd64 base16384 block kernels of package
// github.com/b14fs/b14fs/plugins/base16384/internal/kernel with avo.
//
// Run it through go generate in the kernel package; it writes
// kernel_amd64.s and stubs_amd64.go there.
package main

import (
	. "github.com/mmcloughlin/avo/build"
)

func main() {
	ConstraintExpr("!purego,gc")
	encodeAVX2()
	decodeAVX2()
	encodeAVX512()
	decodeAVX512()
	Generate()
}
