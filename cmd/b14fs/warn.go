package main

import (
	"fmt"
	"io"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/bencode"
)

// warner returns the function that writes a bencode warning to w, as a
// line "b14fs: warning: WHERE: MESSAGE" (WHERE left out when empty).
func warner(w io.Writer, where string) func(bencode.Warning) {
	if where != "" {
		where += ": "
	}
	return func(warning bencode.Warning) {
		fmt.Fprintf(w, "b14fs: warning: %s%v\n", where, warning)
	}
}

// withWarnings returns a registry of the codecs of reg in which the bencode
// codec reports its warnings (what lenient mode accepted, such as a newline
// after the value) to w.
func withWarnings(reg *core.Registry, w io.Writer) *core.Registry {
	out := new(core.Registry)
	for _, e := range reg.List() {
		c := e.Codec
		if bc, ok := c.(*bencode.Codec); ok {
			c = bc.WithWarn(warner(w, ""))
		}
		if err := out.Register(c, e.Origin); err != nil {
			panic(err) // the names were registered in reg
		}
	}
	return out
}
