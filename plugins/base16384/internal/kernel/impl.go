package kernel

// Impl is one implementation of the kernels: Encode and Decode have the
// contracts of the package functions of the same names.
type Impl struct {
	Name           string
	Encode, Decode func(dst, src []byte) int
	// StepGroups is the number of groups one step of the implementation
	// handles: inputs whose lengths are near its multiples are where the
	// implementation's loops hand over to each other and to the generic code.
	StepGroups int
	// genericBelow is the input size, in groups, below which Encode and
	// Decode call the generic code directly when this implementation is
	// selected: less than a step, where the implementation would hand the
	// input to the generic code or take as long, so that the call saved
	// keeps tiny inputs as fast as the generic code alone.
	genericBelow int
	// id tells the package's Encode and Decode which functions to call
	// directly, rather than through the function values Encode and Decode:
	// a call through a function value makes every buffer passed escape to
	// the heap, and costs a few nanoseconds.
	id implID
}

// An implID names an implementation for encodeSelected and decodeSelected.
type implID uint8

// generic is the portable implementation, which runs everywhere. Its main
// loops handle 4 groups a step.
var generic = Impl{Name: "generic", Encode: EncodeGeneric, Decode: DecodeGeneric, StepGroups: 4}

// Impls returns the implementations this processor runs, fastest first;
// the last one is the generic code. Encode and Decode use the first.
func Impls() []Impl {
	return append(vectorImpls(), generic)
}

// selected is the implementation Encode and Decode use.
var selected = Impls()[0]

// Name returns the name of the implementation Encode and Decode use.
func Name() string { return selected.Name }
