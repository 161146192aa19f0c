package transform

import (
	"io"
	"strings"

	"github.com/b14fs/b14fs/core"
)

// New parses spec, looks each stage's codec up in reg and configures it with
// the stage's options. It returns the stage's codec itself for a one-stage
// spec, so the codec's optional capabilities (such as core.BlockCodec) stay
// visible, and a chain of the stages (see Compose) otherwise. Every error is a
// *SpecError pointing at the offending stage.
func New(reg *core.Registry, spec string) (core.Codec, error) {
	stages, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	codecs := make([]core.Codec, len(stages))
	offset := 0
	for i, s := range stages {
		c, err := reg.Lookup(s.Name)
		if err == nil {
			c, err = core.Configure(c, s.Options)
		}
		if err != nil {
			return nil, &SpecError{Spec: spec, Stage: i, Offset: offset, Err: err}
		}
		codecs[i] = c
		offset += strings.IndexByte(spec[offset:]+",", ',') + 1
	}
	return Compose(codecs...), nil
}

// Compose returns a codec that encodes with codecs[0], then codecs[1] and so
// on, and decodes in the reverse order. Streams run in the caller's goroutine:
// each stage pulls from or pushes into the next directly. Compose of one codec
// is that codec; Compose of none panics.
//
// The chain's name is its stages' names joined by commas.
func Compose(codecs ...core.Codec) core.Codec {
	switch len(codecs) {
	case 0:
		panic("transform: Compose of no codecs")
	case 1:
		return codecs[0]
	}
	names := make([]string, len(codecs))
	for i, c := range codecs {
		names[i] = c.Name()
	}
	return &chain{stages: codecs, name: strings.Join(names, ",")}
}

// chain is a core.Codec made of stages.
type chain struct {
	stages []core.Codec
	name   string
}

func (c *chain) Name() string { return c.name }

func (c *chain) NewEncodeReader(r io.Reader) io.ReadCloser {
	rs := make(readers, len(c.stages))
	for i, s := range c.stages {
		rs[i] = s.NewEncodeReader(r)
		r = rs[i]
	}
	return rs
}

func (c *chain) NewDecodeReader(r io.Reader) io.ReadCloser {
	rs := make(readers, len(c.stages))
	for i := range c.stages {
		rs[i] = c.stages[len(c.stages)-1-i].NewDecodeReader(r)
		r = rs[i]
	}
	return rs
}

// readers are nested pull streams, outermost last: each reads from the one
// before.
type readers []io.ReadCloser

func (rs readers) Read(p []byte) (int, error) { return rs[len(rs)-1].Read(p) }

// Close closes the streams outermost first and returns the first error.
func (rs readers) Close() error {
	var first error
	for i := len(rs) - 1; i >= 0; i-- {
		if err := rs[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (c *chain) NewEncodeWriter(w io.Writer) io.WriteCloser {
	ws := make(writers, len(c.stages))
	for i := len(c.stages) - 1; i >= 0; i-- {
		ws[i] = c.stages[i].NewEncodeWriter(w)
		w = ws[i]
	}
	return ws
}

func (c *chain) NewDecodeWriter(w io.Writer) io.WriteCloser {
	ws := make(writers, len(c.stages))
	for i := range c.stages {
		ws[len(ws)-1-i] = c.stages[i].NewDecodeWriter(w)
		w = ws[len(ws)-1-i]
	}
	return ws
}

// writers are nested push streams, outermost first: each writes into the next.
type writers []io.WriteCloser

func (ws writers) Write(p []byte) (int, error) { return ws[0].Write(p) }

// Close closes the streams outermost first, so each flushes its tail into
// the next before that one is closed. It closes them all and returns the
// first error.
func (ws writers) Close() error {
	var first error
	for _, w := range ws {
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
