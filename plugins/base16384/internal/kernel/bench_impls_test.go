//go:build purego || !(amd64 || arm64)

package kernel

func benchImpls() []benchImpl {
	return []benchImpl{{"selected", Encode, Decode}, {"generic", EncodeGeneric, DecodeGeneric}}
}
