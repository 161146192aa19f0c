//go:build purego || !gc || !(amd64 || arm64)

package kernel

// vectorImpls returns the vector implementations this processor runs,
// fastest first: none without assembly.
func vectorImpls() []Impl { return nil }

// encodeSelected is Encode with the selected implementation, the generic
// one.
func encodeSelected(dst, src []byte) int { return EncodeGeneric(dst, src) }

// decodeSelected is Decode with the selected implementation, the generic
// one.
func decodeSelected(dst, src []byte) int { return DecodeGeneric(dst, src) }
