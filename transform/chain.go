package transform

import (
	"io"
	"strings"

	"github.com/b14fs/b14fs/core"
)

// New parses spec (see Parse) and returns the chain of its stages: the codecs
// Configure makes of them, composed (see Compose). A one-stage spec gives
// the stage's codec itself, so its optional capabilities (such as
// core.BlockCodec) stay visible. Every error is a *SpecError pointing at the
// offending stage of spec.
func New(reg *core.Registry, spec string, opts ...Option) (core.Codec, error) {
	stages, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	codecs, i, err := configure(reg, stages, opts)
	if err != nil {
		return nil, &SpecError{Spec: spec, Stage: i, Offset: stageOffset(spec, i), Err: err}
	}
	return Compose(codecs...), nil
}

// Configure returns the codecs of stages, in order, ready for Compose: each
// stage's codec looked up in reg by its name, configured with its options
// (core.Configure) and passed through the functions of opts. A caller that
// holds stages, parsed or made, builds a chain from them without a spec:
// it may change or replace any of the codecs before composing them. Every
// error is a *SpecError whose Spec is the stages in spec form.
func Configure(reg *core.Registry, stages []Stage, opts ...Option) ([]core.Codec, error) {
	codecs, i, err := configure(reg, stages, opts)
	if err != nil {
		parts := make([]string, len(stages))
		for j, s := range stages {
			parts[j] = s.String()
		}
		spec := strings.Join(parts, ",")
		return nil, &SpecError{Spec: spec, Stage: i, Offset: stageOffset(spec, i), Err: err}
	}
	return codecs, nil
}

// configure returns the codecs of stages, or the index of the stage that
// failed and why.
func configure(reg *core.Registry, stages []Stage, opts []Option) ([]core.Codec, int, error) {
	var set settings
	for _, o := range opts {
		o(&set)
	}
	codecs := make([]core.Codec, len(stages))
	for i, s := range stages {
		c, err := reg.Lookup(s.Name)
		if err == nil {
			c, err = core.Configure(c, s.Options)
		}
		if err != nil {
			return nil, i, err
		}
		for _, f := range set.maps {
			c = f(c)
		}
		codecs[i] = c
	}
	return codecs, 0, nil
}

// stageOffset returns the byte offset in spec of stage i: after the i-th
// comma.
func stageOffset(spec string, i int) int {
	offset := 0
	for range i {
		offset += strings.IndexByte(spec[offset:], ',') + 1
	}
	return offset
}

// An Option changes how New and Configure make the codecs of a chain.
type Option func(*settings)

// settings are what the options of a call set.
type settings struct {
	maps []func(core.Codec) core.Codec
}

// MapStages returns the option that passes the codec of each stage, once
// configured with the stage's options, through f: what f returns takes the
// codec's place. f returns the codecs it has nothing to do with as they
// are. The command line, for one, has the bencode codec report its warnings
// this way:
//
//	transform.MapStages(func(c core.Codec) core.Codec {
//		if b, ok := c.(*bencode.Codec); ok {
//			return b.WithWarn(report)
//		}
//		return c
//	})
func MapStages(f func(core.Codec) core.Codec) Option {
	return func(s *settings) { s.maps = append(s.maps, f) }
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
