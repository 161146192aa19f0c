package main

import (
	"fmt"
	"io"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/bencode"
	"github.com/b14fs/b14fs/transform"
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

// withWarnings returns the option that has each bencode stage of a chain
// report its warnings (what lenient mode accepted, such as a newline after
// the value) to w.
func withWarnings(w io.Writer) transform.Option {
	return transform.MapStages(func(c core.Codec) core.Codec {
		if bc, ok := c.(*bencode.Codec); ok {
			return bc.WithWarn(warner(w, ""))
		}
		return c
	})
}
