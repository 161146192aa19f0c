//go:build purego || !(amd64 || arm64)

package kernel

var (
	encode = EncodeGeneric
	decode = DecodeGeneric
)
