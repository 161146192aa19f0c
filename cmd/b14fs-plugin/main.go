// Command b14fs-plugin serves a built-in codec of b14fs as a plugin: built
// (or linked) as b14fs-plugin-NAME, it serves the built-in codec NAME,
// base16384 or bencode, out of process:
//
//	go build -o ~/.local/share/b14fs/plugins/b14fs-plugin-base16384 ./cmd/b14fs-plugin
//
// b14fs itself skips such a plugin, its name being taken by the built-in
// codec; programs that use package rpc with a registry of their own, and the
// tests that compare a codec in process and out of it, run it.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/plugins/rpc"
)

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), rpc.PluginPrefix)
	var names []string
	for _, c := range builtin.Codecs() {
		if c.Name() == name {
			rpc.Serve(c)
			return
		}
		names = append(names, rpc.PluginPrefix+c.Name())
	}
	fmt.Fprintf(os.Stderr, "b14fs-plugin: no built-in codec %q: build or link this program as one of %s\n", name, strings.Join(names, ", "))
	os.Exit(1)
}
