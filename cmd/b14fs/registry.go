package main

import "github.com/b14fs/b14fs/core"

// builtinRegistry returns a registry holding the codecs built into b14fs.
func builtinRegistry() *core.Registry {
	return new(core.Registry)
}
