// Package builtin gathers the codecs that ship with b14fs.
package builtin

import (
	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/b14fs/b14fs/plugins/bencode"
)

// Codecs returns the built-in codecs with their default options.
func Codecs() []core.Codec {
	return []core.Codec{base16384.NewCodec(), bencode.NewCodec()}
}

// Registry returns a new registry holding the built-in codecs, with origin
// core.OriginBuiltin. Callers may register more codecs in it.
func Registry() *core.Registry {
	reg := new(core.Registry)
	for _, c := range Codecs() {
		if err := reg.Register(c, core.OriginBuiltin); err != nil {
			panic(err) // the built-in names are distinct and valid
		}
	}
	return reg
}
