//go:build purego || !arm64

package kernel

var (
	encode = EncodeGeneric
	decode = DecodeGeneric
)
