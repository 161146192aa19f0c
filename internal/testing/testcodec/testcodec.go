// Package testcodec holds a small configurable codec for the project's
// tests, beside core/codectest's Hex: they exercise chains, the registry and
// the command line without depending on the real codecs. Nothing in the
// product uses them.
package testcodec

import (
	"io"

	"github.com/b14fs/b14fs/core"
)

// Xor is a codec that XORs every byte with a key (option key=N, 0..255,
// default 0x5A): its own inverse, with no block structure.
type Xor struct{ Key byte }

// Name returns "xor".
func (Xor) Name() string { return "xor" }

// WithOptions accepts key=N.
func (x Xor) WithOptions(opts core.Options) (core.Codec, error) {
	for _, opt := range opts {
		if opt.Key != "key" {
			return nil, opt.Unknown("xor")
		}
		n, err := opt.IntIn("xor", 0, 255)
		if err != nil {
			return nil, err
		}
		x.Key = byte(n)
	}
	return x, nil
}

// NewEncodeReader XORs r's bytes.
func (x Xor) NewEncodeReader(r io.Reader) io.ReadCloser { return core.NewReader(r, xorStep(x.Key)) }

// NewDecodeReader XORs r's bytes.
func (x Xor) NewDecodeReader(r io.Reader) io.ReadCloser { return core.NewReader(r, xorStep(x.Key)) }

// NewEncodeWriter XORs bytes into w.
func (x Xor) NewEncodeWriter(w io.Writer) io.WriteCloser { return core.NewWriter(w, xorStep(x.Key)) }

// NewDecodeWriter XORs bytes into w.
func (x Xor) NewDecodeWriter(w io.Writer) io.WriteCloser { return core.NewWriter(w, xorStep(x.Key)) }

// xorStep is the step function of both of Xor's directions, with its key.
type xorStep byte

func (key xorStep) Transform(dst, src []byte, atEOF bool) (int, int, error) {
	n := copy(dst, src)
	for i := range dst[:n] {
		dst[i] ^= byte(key)
	}
	if n < len(src) {
		return n, n, core.ErrShortDst
	}
	return n, n, nil
}

func (xorStep) Reset() {}
