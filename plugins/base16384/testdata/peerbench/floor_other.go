//go:build !amd64

package peerbench

import "github.com/b14fs/b14fs/plugins/base16384"

// The floors of the calls (see floor_amd64.go), here in Go.

//go:noinline
func floorTo(dst, src []byte) (int, error) { return 0, nil }

//go:noinline
func floorMethod(e *base16384.Encoding, dst, src []byte) (int, error) { return 0, nil }

//go:noinline
func floorAppendDecode(e *base16384.Encoding, dst, src []byte) ([]byte, error) { return dst, nil }

//go:noinline
func floorAppendEncode(e *base16384.Encoding, dst, src []byte) []byte { return dst }
