//go:build !purego && gc && (amd64 || arm64)

package kernel

// The implementations encodeSelected and decodeSelected tell apart.
const (
	idGeneric implID = iota
	idAVX2
	idAVX512
	idNEON
)

// decodeRest returns done, the groups a vector kernel decoded from the
// start of src, plus those the generic code decodes after them: the groups
// the kernel leaves, or those from the step or pass holding the first bad
// unit.
func decodeRest(dst, src []byte, done int) int {
	if len(src)-8*done < 8 {
		return done
	}
	return done + DecodeGeneric(dst[7*done:], src[8*done:])
}
