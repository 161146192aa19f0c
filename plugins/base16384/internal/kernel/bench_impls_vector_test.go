//go:build !purego && (amd64 || arm64)

package kernel

func benchImpls() []benchImpl {
	impls := []benchImpl{{"selected", Encode, Decode}}
	for _, impl := range Impls() {
		impls = append(impls, benchImpl{impl.Name, impl.Encode, impl.Decode})
	}
	return impls
}
