package codectest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/core"
)

// blocks is the identity codec as a core.BlockCodec of 1-byte blocks,
// whose Layout and WriteLayout return what its fields say.
type blocks struct {
	identity
	header   int64 // the header WriteLayout declares (the codec writes none)
	writeErr error // WriteLayout's error
	size     int64 // added to the size Layout finds
	noLayout bool  // Layout finds no layout
}

func (blocks) layout(size int64) core.Layout {
	return core.Layout{PlainBlock: 1, EncodedBlock: 1, Size: size, Form: "identity", Independent: true}
}

func (b blocks) Layout(_ io.ReaderAt, size int64) (core.Layout, error) {
	if b.noLayout {
		return core.Layout{}, fmt.Errorf("identity: %w", core.ErrNoLayout)
	}
	return b.layout(size + b.size), nil
}

func (b blocks) WriteLayout() (core.Layout, error) {
	l := b.layout(0)
	l.Header = b.header
	return l, b.writeErr
}

func (blocks) EncodedLen(n int64) int64 { return n }

// lined is the blocks codec whose streams end with a line break, which its
// decoders drop and its Layout does not count: it declares blocks its
// encoder does not write alone, since it ends every run of them with a
// line break.
type lined struct{ blocks }

func (lined) NewEncodeReader(r io.Reader) io.ReadCloser {
	return io.NopCloser(io.MultiReader(r, strings.NewReader("\n")))
}

func (lined) NewDecodeReader(r io.Reader) io.ReadCloser {
	b, err := io.ReadAll(r)
	if err != nil {
		panic(err)
	}
	return io.NopCloser(bytes.NewReader(bytes.TrimSuffix(b, []byte("\n"))))
}

func (l lined) Layout(_ io.ReaderAt, size int64) (core.Layout, error) { return l.layout(size - 1), nil }

func (lined) EncodedLen(n int64) int64 { return n + 1 }

// formed is the blocks codec as a core.FormDecoder whose form decoders
// drop the first byte: they do not decode from a block boundary.
type formed struct{ blocks }

func (formed) NewFormDecodeReader(r io.Reader, form string) (io.ReadCloser, error) {
	if form != "identity" {
		return nil, fmt.Errorf("no form %q", form)
	}
	var b [1]byte
	io.ReadFull(r, b[:])
	return io.NopCloser(r), nil
}

// TestBlockProblems checks the check of core.BlockCodec: it passes true
// declarations, with a layout or without (core.ErrNoLayout), and catches
// a write layout the encodings do not have, a WriteLayout error that is no
// core.ErrNoLayout, and a layout with the wrong size.
func TestBlockProblems(t *testing.T) {
	in := []byte("blocks")
	noLayout := fmt.Errorf("identity: %w", core.ErrNoLayout)
	for _, bc := range []blocks{
		{},
		{writeErr: noLayout},
		{writeErr: noLayout, noLayout: true},
	} {
		if p := blockProblems(bc, in, in); len(p) > 0 {
			t.Errorf("%+v: %q", bc, p)
		}
	}
	for _, tc := range []struct {
		bc   blocks
		want string
	}{
		{blocks{header: 1}, "want WriteLayout's"},
		{blocks{writeErr: errors.New("no")}, "core.ErrNoLayout"},
		{blocks{noLayout: true}, "Layout of an encoding"},
		{blocks{writeErr: noLayout, size: 1}, "want its size"},
		{blocks{size: 1}, "want WriteLayout's"},
	} {
		if p := blockProblems(tc.bc, in, in); len(p) == 0 || !strings.Contains(p[0], tc.want) {
			t.Errorf("%+v: %q, want a problem saying %q", tc.bc, p, tc.want)
		}
	}
	if p := blockProblems(lined{}, in, append(in, '\n')); len(p) == 0 || !strings.Contains(p[0], "is not those blocks") {
		t.Errorf("blocks that do not encode alone: %q", p)
	}
	// A form decoder that does not decode from a block is caught.
	if p := blockProblems(formed{}, in, in); len(p) == 0 || !strings.Contains(p[0], `decoding in form "identity"`) {
		t.Errorf("a form decoder that drops a byte: %q", p)
	}
	// A decoder that does not start at any block is caught.
	if p := blockProblems(blocks{writeErr: noLayout}, in, bytes.ToUpper(in)); len(p) == 0 || !strings.Contains(p[0], "decoding from the block") {
		t.Errorf("decoding that does not give the input: %q", p)
	}
}
