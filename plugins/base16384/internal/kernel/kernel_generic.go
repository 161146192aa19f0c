//go:build purego || !gc || !(amd64 || arm64)

package kernel

// vectorImpls returns the vector implementations this processor runs,
// fastest first: none without assembly.
func vectorImpls() []Impl { return nil }
