// Package rot13 is a b14fs codec that rotates the letters of the Latin
// alphabet by 13 places (option shift=N for another rotation, 1..25), and
// leaves every other byte as it is. It is the example of a b14fs plugin:
// cmd/b14fs-plugin-rot13 serves it out of process.
package rot13

import (
	"fmt"
	"io"

	"github.com/b14fs/b14fs/core"
)

// Codec is the rot13 codec. Its zero value rotates by 13.
type Codec struct {
	shift byte // 0 means 13
}

var (
	_ core.OptionLister = Codec{}
	_ core.Suffixer     = Codec{}
)

// Name returns "rot13": the plugin's executable must be named
// b14fs-plugin-rot13.
func (Codec) Name() string { return "rot13" }

// Suffix returns ".rot13", the suffix b14fs gives encoded files.
func (Codec) Suffix() string { return ".rot13" }

// OptionDocs lists the options WithOptions takes.
func (Codec) OptionDocs() []core.OptionDoc {
	return []core.OptionDoc{{Key: "shift", Usage: "rotate letters by N places, 1..25 (default 13)"}}
}

// WithOptions takes shift=N. The host asks the plugin when a chain is built,
// so a bad option fails at once, with this error.
func (c Codec) WithOptions(opts core.Options) (core.Codec, error) {
	for _, opt := range opts {
		if opt.Key != "shift" {
			return nil, opt.Unknown(c.Name())
		}
		n, err := opt.Int(c.Name())
		if err != nil {
			return nil, err
		}
		if n < 1 || n > 25 {
			return nil, &core.OptionError{Codec: c.Name(), Key: opt.Key, Value: opt.Value, Err: fmt.Errorf("%w: want 1..25", core.ErrBadOptionValue)}
		}
		c.shift = byte(n)
	}
	return c, nil
}

// by returns how far encoding rotates.
func (c Codec) by() byte {
	if c.shift == 0 {
		return 13
	}
	return c.shift
}

// NewEncodeReader returns a reader of r's bytes rotated.
func (c Codec) NewEncodeReader(r io.Reader) io.ReadCloser { return &reader{r: r, by: c.by()} }

// NewDecodeReader returns a reader of r's bytes rotated back.
func (c Codec) NewDecodeReader(r io.Reader) io.ReadCloser { return &reader{r: r, by: 26 - c.by()} }

// NewEncodeWriter returns a writer that rotates what it is given into w.
func (c Codec) NewEncodeWriter(w io.Writer) io.WriteCloser { return &writer{w: w, by: c.by()} }

// NewDecodeWriter returns a writer that rotates back what it is given into w.
func (c Codec) NewDecodeWriter(w io.Writer) io.WriteCloser { return &writer{w: w, by: 26 - c.by()} }

// rotate rotates the letters of p by places.
func rotate(p []byte, by byte) {
	for i, b := range p {
		switch {
		case 'a' <= b && b <= 'z':
			p[i] = 'a' + (b-'a'+by)%26
		case 'A' <= b && b <= 'Z':
			p[i] = 'A' + (b-'A'+by)%26
		}
	}
}

type reader struct {
	r      io.Reader
	by     byte
	closed bool
}

func (r *reader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, core.ErrClosed
	}
	n, err := r.r.Read(p)
	rotate(p[:n], r.by)
	return n, err
}

func (r *reader) Close() error {
	r.closed = true
	return nil
}

type writer struct {
	w      io.Writer
	by     byte
	buf    []byte
	closed bool
}

// Write rotates a copy of p: a writer must not change the caller's bytes.
func (w *writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, core.ErrClosed
	}
	w.buf = append(w.buf[:0], p...)
	rotate(w.buf, w.by)
	return w.w.Write(w.buf)
}

func (w *writer) Close() error {
	w.closed = true
	return nil
}
