package codectest

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
)

// identity is the codec that leaves data as it is, as a core.Texter whose
// Text returns text and err.
type identity struct {
	text core.Codec
	err  error
}

func (identity) Name() string                                { return "identity" }
func (identity) NewEncodeReader(r io.Reader) io.ReadCloser   { return io.NopCloser(r) }
func (identity) NewDecodeReader(r io.Reader) io.ReadCloser   { return io.NopCloser(r) }
func (identity) NewEncodeWriter(w io.Writer) io.WriteCloser  { return nopCloser{w} }
func (identity) NewDecodeWriter(w io.Writer) io.WriteCloser  { return nopCloser{w} }
func (identity) WritesText() bool                            { return true }
func (i identity) Text(core.TextOptions) (core.Codec, error) { return i.text, i.err }

// marked is the identity codec but for its encoders, which add a "!" that
// its decoders keep.
type marked struct{ identity }

func (marked) NewEncodeReader(r io.Reader) io.ReadCloser {
	return io.NopCloser(io.MultiReader(r, strings.NewReader("!")))
}

// TestTextProblems checks the check of core.Texter: it passes text that
// decodes back and refusals with a *core.OptionError, and catches text
// that does not decode back and other errors.
func TestTextProblems(t *testing.T) {
	in := []byte("text")
	refused := &core.OptionError{Codec: "identity", Key: "wrap", Err: core.ErrBadOptionValue}
	for _, tc := range []identity{{text: identity{}}, {err: refused}} {
		if p := textProblems(tc, in, in); len(p) > 0 {
			t.Errorf("Text gives %v, %v: %q", tc.text, tc.err, p)
		}
	}
	if p := textProblems(identity{text: marked{}}, in, in); len(p) == 0 || !strings.Contains(p[0], "want the input") {
		t.Errorf("text that decodes to more than the input: %q", p)
	}
	if p := textProblems(identity{err: errors.New("no")}, in, in); len(p) == 0 || !strings.Contains(p[0], "*core.OptionError") {
		t.Errorf("Text failing without an *OptionError: %q", p)
	}
}
