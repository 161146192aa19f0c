// Package testcodec holds small codecs for the project's tests: they exercise
// chains, the registry and the command line without depending on the real
// codecs. Nothing in the product uses them.
package testcodec

import (
	"encoding/hex"
	"io"

	"github.com/b14fs/b14fs/core"
)

// Hex encodes bytes as lower-case hexadecimal; decoding rejects anything
// else with a *core.DataError naming the offset.
type Hex struct{}

// Name returns "hex".
func (Hex) Name() string { return "hex" }

// Suffix returns ".hex".
func (Hex) Suffix() string { return ".hex" }

// NewEncodeReader returns a reader of r's bytes in hexadecimal.
func (Hex) NewEncodeReader(r io.Reader) io.ReadCloser { return core.NewReader(r, hexEncoder{}) }

// NewDecodeReader returns a reader of r's hexadecimal decoded.
func (Hex) NewDecodeReader(r io.Reader) io.ReadCloser { return core.NewReader(r, hexDecoder{}) }

// NewEncodeWriter returns a writer that writes hexadecimal into w.
func (Hex) NewEncodeWriter(w io.Writer) io.WriteCloser { return core.NewWriter(w, hexEncoder{}) }

// NewDecodeWriter returns a writer that decodes hexadecimal into w; Close
// reports an odd digit left over.
func (Hex) NewDecodeWriter(w io.Writer) io.WriteCloser { return core.NewWriter(w, hexDecoder{}) }

// hexEncoder is the step function of Hex's encoding.
type hexEncoder struct{}

func (hexEncoder) Transform(dst, src []byte, atEOF bool) (int, int, error) {
	n := min(len(src), len(dst)/2)
	hex.Encode(dst, src[:n])
	if n < len(src) {
		return 2 * n, n, core.ErrShortDst
	}
	return 2 * n, n, nil
}

func (hexEncoder) Reset() {}

// hexDecoder is the step function of Hex's decoding.
type hexDecoder struct{}

func (hexDecoder) Transform(dst, src []byte, atEOF bool) (int, int, error) {
	n := min(len(src)/2, len(dst))
	for i := range n {
		if _, err := hex.Decode(dst[i:i+1], src[2*i:2*i+2]); err != nil {
			bad := 2 * i
			if _, err := hex.DecodeString(string(src[bad]) + "0"); err == nil {
				bad++
			}
			return i, 2 * i, &core.DataError{Codec: "hex", Offset: int64(bad), Err: err}
		}
	}
	switch rest := len(src) - 2*n; {
	case rest >= 2:
		return n, 2 * n, core.ErrShortDst
	case rest == 1 && atEOF:
		return n, 2 * n, &core.DataError{Codec: "hex", Offset: int64(2 * n), Err: io.ErrUnexpectedEOF}
	case rest == 1:
		return n, 2 * n, core.ErrShortSrc
	}
	return n, 2 * n, nil
}

func (hexDecoder) Reset() {}

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
