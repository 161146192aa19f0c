package bencode

import (
	"errors"

	"github.com/b14fs/b14fs/core"
)

// A transcoder converts a stream that arrives in pieces.
type transcoder interface {
	// transcode appends to out the output for a prefix of in, the input not
	// consumed so far, and returns how many bytes of in it consumed. atEOF
	// says that no input follows in; then it consumes all of in or fails.
	// The output of one call is bounded: it grows with the input consumed,
	// except that a long string is written out from its spool a piece at a
	// time, over as many calls as it takes, while pending is true.
	transcode(out, in []byte, atEOF bool) ([]byte, int, error)
	// pending reports output that transcode will make before it needs
	// (or consumes) more input.
	pending() bool
	// reset returns the transcoder to its state before any input, and
	// releases its temporary files.
	reset()
}

// dataError reports a *SyntaxError as the *core.DataError codec streams
// return.
func dataError(err error) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		return &core.DataError{Codec: codecName, Offset: se.Offset, Err: syntaxDetail{se}}
	}
	return err
}

// syntaxDetail is a *SyntaxError's message without the codec and offset,
// which the *core.DataError around it names.
type syntaxDetail struct{ err *SyntaxError }

func (s syntaxDetail) Error() string { return s.err.msg }
func (s syntaxDetail) Unwrap() error { return s.err }

// A step is a transcoder as a core.Transformer, the step function of the
// codec's streams. It keeps what the transcoder has not consumed yet (a
// token or string that has not all arrived: up to limits.longString bytes,
// more than a stream's buffer holds) and the output that dst has no room
// for.
type step struct {
	t    transcoder
	in   []byte // input taken and not consumed by t
	out  []byte // out[pos:] is made and not yet copied out
	pos  int
	off  int64 // the input taken before the current call
	err  error // the data error, returned once the output before it is
	done bool  // t has ended its output
}

func newStep(t transcoder) *step { return &step{t: t} }

// Transform copies out what t has made, then runs t on the input: on src
// itself while nothing is kept, and otherwise on what is kept with src
// added.
func (s *step) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	defer func() { s.off += int64(nSrc) }()
	for {
		if s.pos < len(s.out) {
			n := copy(dst[nDst:], s.out[s.pos:])
			nDst += n
			s.pos += n
			if s.pos < len(s.out) {
				return nDst, nSrc, core.ErrShortDst
			}
		}
		switch {
		case s.err != nil:
			// The offset counts from src[0]: the bad byte may be one
			// taken by an earlier call.
			return nDst, nSrc, relative(s.err, s.off)
		case s.done:
			return nDst, nSrc, nil
		}
		var out []byte
		var n int
		var terr error
		if len(s.in) > 0 {
			s.in = append(s.in, src[nSrc:]...)
			nSrc = len(src)
			out, n, terr = s.t.transcode(s.out[:0], s.in, atEOF)
			s.in = s.in[:copy(s.in, s.in[n:])]
		} else {
			out, n, terr = s.t.transcode(s.out[:0], src[nSrc:], atEOF)
			nSrc += n
		}
		s.out, s.pos = out, 0
		switch {
		case terr != nil:
			s.err = dataError(terr)
		case s.t.pending():
		case atEOF:
			s.done = true
		case n == 0 && len(out) == 0:
			// t needs more input than it has: keep the rest.
			s.in = append(s.in, src[nSrc:]...)
			return nDst, len(src), nil
		}
	}
}

// Reset makes s ready for a new stream, and releases t's temporary files.
func (s *step) Reset() {
	s.t.reset()
	s.in, s.out, s.pos, s.off, s.err, s.done = s.in[:0], s.out[:0], 0, 0, nil, false
}

// relative returns err with the offset of a *core.DataError counted from
// the input taken before off.
func relative(err error, off int64) error {
	if de, ok := err.(*core.DataError); ok {
		moved := *de
		moved.Offset -= off
		return &moved
	}
	return err
}
