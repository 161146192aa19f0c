package rpc_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/b14fs/b14fs/plugins/rpc"
	"github.com/b14fs/b14fs/transform"
)

// hostModes are the two ways a host moves a stream's data: over a data
// connection, and in frames on the stream's call.
var hostModes = []struct {
	name string
	opts []rpc.HostOption
}{{"data connection", nil}, {"frames", []rpc.HostOption{rpc.WithFramesOnly()}}}

// mixedChains returns chains of xor and hex, plugins' codecs, and built-in
// stages: a built-in stage before a plugin's, after it and on both sides,
// and one before two plugins' stages, so that in each direction a plugin's
// stage reads a built-in stage and another plugin's, and a built-in stage
// reads a plugin's.
func mixedChains(xor, hex core.Codec) []core.Codec {
	return []core.Codec{
		transform.Compose(base16384.NewCodec(), xor),
		transform.Compose(xor, base16384.NewCodec()),
		transform.Compose(base16384.NewCodec(), xor, base16384.NewCodec(base16384.UTF8)),
		transform.Compose(base16384.NewCodec(), xor, hex),
	}
}

// TestChainCloseMidStream closes pull streams of chains that mix plugin
// and built-in stages after a few bytes of a large input, or none, many
// times: once the chain's Close has returned, nothing its plugin stage
// started may read the stage below it, which the chain closes next (run
// with -race). Each chain is closed 24 times a mode, 96 with the long
// checks: more chances for a stage that outlives Close to be caught.
func TestChainCloseMidStream(t *testing.T) {
	t.Parallel()
	in := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	closes := 24
	if longtest.Enabled() {
		closes = 96
	}
	for _, mode := range hostModes {
		t.Run(mode.name, func(t *testing.T) {
			reg := discover(t, mode.opts...)
			for _, c := range mixedChains(lookup(t, reg, "xor"), lookup(t, reg, "hex")) {
				enc, err := io.ReadAll(c.NewEncodeReader(bytes.NewReader(in)))
				if err != nil {
					t.Fatalf("%s: encode: %v", c.Name(), err)
				}
				for k := range closes {
					r := c.NewEncodeReader(bytes.NewReader(in))
					if k%2 == 1 {
						r = c.NewDecodeReader(bytes.NewReader(enc))
					}
					if _, err := io.ReadFull(r, make([]byte, k%8)); err != nil {
						t.Fatalf("%s: read: %v", c.Name(), err)
					}
					if err := r.Close(); err != nil {
						t.Fatalf("%s: Close: %v", c.Name(), err)
					}
				}
			}
		})
	}
}

// TestChainContract runs the codec conformance suite on a chain with a
// plugin's stage between built-in ones.
func TestChainContract(t *testing.T) {
	t.Parallel()
	for _, mode := range hostModes {
		t.Run(mode.name, func(t *testing.T) {
			xor := lookup(t, discover(t, mode.opts...), "xor")
			codectest.TestCodec(t, transform.Compose(base16384.NewCodec(), xor, base16384.NewCodec(base16384.UTF8)), inputs...)
		})
	}
}
