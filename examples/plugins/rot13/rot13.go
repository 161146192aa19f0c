// Package rot13 is a b14fs codec that rotates the letters of the Latin
// alphabet by 13 places (option shift=N for another rotation, 1..25), and
// leaves every other byte as it is. It is the example of a b14fs plugin:
// cmd/b14fs-plugin-rot13 serves it out of process.
package rot13

import (
	"io"

	"github.com/b14fs/b14fs/core"
)

// Codec is the rot13 codec. Its zero value rotates by 13.
type Codec struct{ beyond13 int }

// Name returns "rot13": the plugin's executable is b14fs-plugin-rot13.
func (Codec) Name() string { return "rot13" }

// NewEncodeReader returns a reader of r's bytes rotated: core's stream
// around the step function.
func (c Codec) NewEncodeReader(r io.Reader) io.ReadCloser { return core.NewReader(r, c.by()) }

// NewDecodeReader returns a reader of r's bytes rotated back.
func (c Codec) NewDecodeReader(r io.Reader) io.ReadCloser { return core.NewReader(r, 26-c.by()) }

// NewEncodeWriter returns a writer that rotates what it is given into w.
func (c Codec) NewEncodeWriter(w io.Writer) io.WriteCloser { return core.NewWriter(w, c.by()) }

// NewDecodeWriter returns a writer that rotates back what it is given into w.
func (c Codec) NewDecodeWriter(w io.Writer) io.WriteCloser { return core.NewWriter(w, 26-c.by()) }

func (c Codec) by() rotate { return rotate(13 + c.beyond13) }

// rotate is the step function: it rotates letters by its value.
type rotate byte

// Transform rotates what fits of src into dst.
func (by rotate) Transform(dst, src []byte, atEOF bool) (n, _ int, err error) {
	n = copy(dst, src)
	for i, b := range dst[:n] {
		if lower := b | 0x20; 'a' <= lower && lower <= 'z' {
			dst[i] = b - lower + 'a' + (lower-'a'+byte(by))%26
		}
	}
	if n < len(src) {
		err = core.ErrShortDst
	}
	return n, n, err
}

// Reset does nothing: rotate keeps no state.
func (rotate) Reset() {}
