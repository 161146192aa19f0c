//go:build !purego && gc && (amd64 || arm64)

package kernel

// The implementations encodeSelected and decodeSelected tell apart.
const (
	idGeneric implID = iota
	idAVX2
	idAVX512
	idNEON
)
