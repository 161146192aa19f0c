package peerbench

import "github.com/b14fs/b14fs/plugins/base16384"

// The floors of the calls: assembly functions (floor_amd64.s) with the
// signatures of the assembly that base16384's package functions, methods
// and append forms call, each of which returns at once. A call of one from
// Go goes through the wrapper that moves the arguments from registers to
// the stack, as a call of the reference's assembly and of base16384's
// does: no implementation of that form can take less.

// floorTo has the signature of DecodeTo's and EncodeTo's assembly.
func floorTo(dst, src []byte) (int, error)

// floorMethod has the signature of the Encoding methods' assembly.
func floorMethod(e *base16384.Encoding, dst, src []byte) (int, error)

// floorAppendDecode has the signature of AppendDecode's assembly; it
// returns dst.
func floorAppendDecode(e *base16384.Encoding, dst, src []byte) ([]byte, error)

// floorAppendEncode has the signature of AppendEncode's assembly; it
// returns dst.
func floorAppendEncode(e *base16384.Encoding, dst, src []byte) []byte
