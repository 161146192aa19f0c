// Command b14fs-plugin-rot13 is the rot13 codec as a b14fs plugin. Install
// it where b14fs looks for plugins:
//
//	go build -o ~/.local/share/b14fs/plugins/ ./cmd/b14fs-plugin-rot13
package main

import (
	"github.com/b14fs/b14fs/plugins/rpc"

	"example.com/rot13"
)

func main() { rpc.Serve(rot13.Codec{}) }
