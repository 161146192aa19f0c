// Command testplugin is a codec plugin for the tests of package rpc and of
// the b14fs command. It serves the codec its executable's name asks for
// (b14fs-plugin-NAME): xor from internal/testcodec; crash, which kills its
// own process on the first data it sees; liar, which serves hex under the
// name "hex", which a host must refuse; and for any other NAME, hex named
// NAME.
package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/testcodec"
	"github.com/b14fs/b14fs/plugins/rpc"
)

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), rpc.PluginPrefix)
	var c core.Codec = renamed{testcodec.Hex{}, name}
	switch name {
	case "xor":
		c = testcodec.Xor{Key: 0x5A}
	case "crash":
		c = crash{}
	case "liar":
		c = testcodec.Hex{}
	}
	rpc.Serve(c)
}

// renamed is hex under another name.
type renamed struct {
	testcodec.Hex
	name string
}

func (r renamed) Name() string { return r.name }

// crash is a codec whose streams kill the process.
type crash struct{ testcodec.Hex }

func (crash) Name() string                               { return "crash" }
func (crash) NewEncodeWriter(w io.Writer) io.WriteCloser { return exiter{} }
func (crash) NewDecodeWriter(w io.Writer) io.WriteCloser { return exiter{} }

type exiter struct{}

func (exiter) Write(p []byte) (int, error) { os.Exit(3); return 0, nil }
func (exiter) Close() error                { os.Exit(3); return nil }
