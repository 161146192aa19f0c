package codectest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/b14fs/b14fs/core"
)

// A direction is encoding or decoding: its two stream forms, what they take
// and what they must give.
type direction struct {
	name      string
	pull      func(io.Reader) io.ReadCloser
	push      func(io.Writer) io.WriteCloser
	src, want []byte
}

func directions(c core.Codec, in, enc []byte) []direction {
	return []direction{
		{"encode", c.NewEncodeReader, c.NewEncodeWriter, in, enc},
		{"decode", c.NewDecodeReader, c.NewDecodeWriter, enc, in},
	}
}

// checkClose checks what Close promises: a pull stream closed part way
// releases it, and after Close, Read and Write fail with core.ErrClosed and
// Close returns nil again without writing anything more.
func checkClose(t *testing.T, c core.Codec, in, enc []byte) {
	t.Helper()
	for _, d := range directions(c, in, enc) {
		r := d.pull(bytes.NewReader(d.src))
		io.ReadFull(r, make([]byte, min(1, len(d.want))))
		if err := r.Close(); err != nil {
			t.Errorf("%s pull: Close after a partial read: %v", d.name, err)
		}
		if n, err := r.Read(make([]byte, 1)); n != 0 || !errors.Is(err, core.ErrClosed) {
			t.Errorf("%s pull: Read after Close = %d, %v; want 0, core.ErrClosed", d.name, n, err)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s pull: second Close: %v", d.name, err)
		}

		var dst closeGuard
		w := d.push(&dst)
		if _, err := w.Write(d.src); err != nil {
			t.Fatalf("%s push: Write: %v", d.name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s push: Close: %v", d.name, err)
		}
		if n, err := w.Write([]byte{0}); n != 0 || !errors.Is(err, core.ErrClosed) {
			t.Errorf("%s push: Write after Close = %d, %v; want 0, core.ErrClosed", d.name, n, err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("%s push: second Close: %v", d.name, err)
		}
		if !bytes.Equal(dst.Bytes(), d.want) {
			t.Errorf("%s push: output after a second Close:\n got %q\nwant %q", d.name, clip(dst.Bytes()), clip(d.want))
		}
	}
}

// checkReset checks that Reset, on a stream part way through and on a
// closed one, gives what a fresh stream gives.
func checkReset(t *testing.T, c core.Codec, in, enc []byte) {
	t.Helper()
	for _, d := range directions(c, in, enc) {
		r := d.pull(bytes.NewReader(d.src))
		if rr, ok := r.(core.ReaderResetter); ok {
			io.ReadFull(r, make([]byte, len(d.want)/2))
			rr.Reset(bytes.NewReader(d.src))
			if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, d.want) {
				t.Errorf("%s pull: after Reset part way: %q, %v; want %q", d.name, clip(got), err, clip(d.want))
			}
			r.Close()
			rr.Reset(iotest.HalfReader(bytes.NewReader(d.src)))
			if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, d.want) {
				t.Errorf("%s pull: after Close and Reset: %q, %v; want %q", d.name, clip(got), err, clip(d.want))
			}
		}
		r.Close()

		var first, second, third bytes.Buffer
		w := d.push(&first)
		if wr, ok := w.(core.WriterResetter); ok {
			w.Write(d.src[:len(d.src)/2])
			wr.Reset(&second)
			w.Write(d.src)
			if err := w.Close(); err != nil || !bytes.Equal(second.Bytes(), d.want) {
				t.Errorf("%s push: after Reset part way: %q, %v; want %q", d.name, clip(second.Bytes()), err, clip(d.want))
			}
			wr.Reset(&third)
			w.Write(d.src)
			if err := w.Close(); err != nil || !bytes.Equal(third.Bytes(), d.want) {
				t.Errorf("%s push: after Close and Reset: %q, %v; want %q", d.name, clip(third.Bytes()), err, clip(d.want))
			}
		}
		w.Close()
	}
}

// checkBlocks checks a BlockCodec's declarations against the encoding enc
// of in (see blockProblems).
func checkBlocks(t *testing.T, bc core.BlockCodec, in, enc []byte) {
	t.Helper()
	for _, p := range blockProblems(bc, in, enc) {
		t.Error(p)
	}
}

// blockProblems returns what is wrong with a BlockCodec's declarations,
// checked against the encoding enc of in. A layout WriteLayout declares must
// be the one Layout finds in enc, with in's size, and the encoding's size
// must be its header and EncodedLen; independent blocks must encode alone
// as they do in the whole, the tail from any block and whole blocks in the
// middle. A codec whose streams have no blocks says so with
// an error matching core.ErrNoLayout; Layout may then find no layout in enc
// either. Whatever layout Layout finds must hold for enc: its size, the
// offsets of its blocks, and for independent blocks, decoding from each
// block boundary.
func blockProblems(bc core.BlockCodec, in, enc []byte) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	w, werr := bc.WriteLayout()
	l, err := bc.Layout(bytes.NewReader(enc), int64(len(enc)))
	switch {
	case werr != nil && !errors.Is(werr, core.ErrNoLayout):
		fail("WriteLayout: %v, want a layout or an error matching core.ErrNoLayout", werr)
		return problems
	case werr == nil && (w.Size != 0 || w.Header < 0 || w.PlainBlock <= 0 || w.EncodedBlock <= 0):
		fail("WriteLayout() = %+v: want Size 0, Header >= 0, positive block sizes", w)
		return problems
	case werr != nil && errors.Is(err, core.ErrNoLayout):
		return nil // no blocks declared, and none in enc
	case err != nil:
		fail("Layout of an encoding: %v", err)
		return problems
	case werr == nil:
		want := w
		want.Size = int64(len(in))
		if l != want {
			fail("Layout of an encoding of %d bytes = %+v, want WriteLayout's %+v", len(in), l, want)
		}
		if n := w.Header + bc.EncodedLen(int64(len(in))); n != int64(len(enc)) {
			fail("Header + EncodedLen(%d) = %d, but the encoding has %d bytes", len(in), n, len(enc))
		}
	case l.Size != int64(len(in)) || l.Header < 0 || l.PlainBlock <= 0 || l.EncodedBlock <= 0:
		fail("Layout of an encoding of %d bytes = %+v: want its size, Header >= 0, positive block sizes", len(in), l)
		return problems
	}
	for _, off := range blockStarts(len(in), l.PlainBlock) {
		encOff, plainOff := l.EncodedOffset(off)
		if wantEnc := l.Header + off/int64(l.PlainBlock)*int64(l.EncodedBlock); encOff != wantEnc || plainOff != off {
			fail("EncodedOffset(%d) = %d, %d; want %d, %d", off, encOff, plainOff, wantEnc, off)
			return problems
		}
		if inside := min(off+int64(l.PlainBlock)-1, int64(len(in))); inside > off {
			if e, p := l.EncodedOffset(inside); e != encOff || p != off {
				fail("EncodedOffset(%d) = %d, %d: not its block's start %d, %d", inside, e, p, encOff, off)
			}
		}
		if !l.Independent || encOff > int64(len(enc)) {
			continue
		}
		got, err := readAll(bc.NewDecodeReader(bytes.NewReader(enc[encOff:])))
		if err != nil || !bytes.Equal(got, in[off:]) {
			fail("decoding from the block at plain offset %d: %q, %v; want %q", off, clip(got), err, clip(in[off:]))
		}
		if fd, ok := bc.(core.FormDecoder); ok {
			r, err := fd.NewFormDecodeReader(bytes.NewReader(enc[encOff:]), l.Form)
			var got []byte
			if err == nil {
				got, err = readAll(r)
			}
			if err != nil || !bytes.Equal(got, in[off:]) {
				fail("decoding in form %q from the block at plain offset %d: %q, %v; want %q", l.Form, off, clip(got), err, clip(in[off:]))
			}
		}
		if werr != nil {
			continue
		}
		tail, err := readAll(bc.NewEncodeReader(bytes.NewReader(in[off:])))
		if err != nil || int64(len(tail)) < w.Header || !bytes.Equal(tail[w.Header:], enc[encOff:]) {
			fail("blocks declared independent: the encoding of the data from plain offset %d is not the tail of the whole's", off)
		}
		// Up to two whole blocks before the last, as a filesystem
		// rewrites them in the middle of a stream.
		blocks := min(2, (int64(len(in))-off)/int64(l.PlainBlock))
		if int64(len(in))-off == blocks*int64(l.PlainBlock) {
			blocks-- // the last block may encode otherwise
		}
		if blocks <= 0 || encOff+blocks*int64(l.EncodedBlock) > int64(len(enc)) {
			continue
		}
		run, err := readAll(bc.NewEncodeReader(bytes.NewReader(in[off : off+blocks*int64(l.PlainBlock)])))
		if want := enc[encOff : encOff+blocks*int64(l.EncodedBlock)]; err != nil || int64(len(run)) < w.Header || !bytes.Equal(run[w.Header:], want) {
			fail("blocks declared independent: the encoding of the %d blocks from plain offset %d is not those blocks of the whole's", blocks, off)
		}
	}
	return problems
}

// checkText checks the codecs a core.Texter sets out for people (see
// textProblems).
func checkText(t *testing.T, tc core.Texter, in, enc []byte) {
	t.Helper()
	for _, p := range textProblems(tc, in, enc) {
		t.Error(p)
	}
}

// textProblems returns what is wrong with the codecs tc sets out for
// people: each must be refused with a *core.OptionError, if at all, and
// decode what it encodes and what tc encodes (enc) back to in.
func textProblems(tc core.Texter, in, enc []byte) []string {
	var problems []string
	options := []core.TextOptions{{}, {SkipGarbage: true}}
	if tc.WritesText() {
		options = append(options, core.TextOptions{Wrap: 3, WrapSet: true}, core.TextOptions{WrapSet: true})
	}
	for _, o := range options {
		c, err := tc.Text(o)
		var oe *core.OptionError
		if errors.As(err, &oe) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("Text(%+v): %v, want nil or a *core.OptionError", o, err))
			continue
		}
		text, err := readAll(c.NewEncodeReader(bytes.NewReader(in)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("Text(%+v): encode: %v", o, err))
			continue
		}
		for _, src := range [][]byte{text, enc} {
			if got, err := readAll(c.NewDecodeReader(bytes.NewReader(src))); err != nil || !bytes.Equal(got, in) {
				problems = append(problems, fmt.Sprintf("Text(%+v): decoding %q: got %q, %v; want the input", o, clip(src), clip(got), err))
			}
		}
	}
	return problems
}

// blockStarts returns the plain offsets of the blocks of n bytes to check:
// all of them for short data, else the first and last 64 and 64 between.
func blockStarts(n, block int) []int64 {
	blocks := n/block + 1
	var offs []int64
	for i := range blocks {
		if blocks <= 256 || i < 64 || i >= blocks-64 || i%(blocks/64) == 0 {
			offs = append(offs, int64(i*block))
		}
	}
	return offs
}

// checkCorrupt decodes damaged copies of the encoding enc (cut short, a
// byte changed, a byte added, at the ends and in the middle) in every form,
// with 1-byte reads and writes for short data: each either decodes or fails
// with a *core.DataError at an offset inside its input, and every form says
// the same.
func checkCorrupt(t *testing.T, c core.Codec, enc []byte) {
	t.Helper()
	type result struct {
		form string
		out  []byte
		err  error
	}
	// Cut small inputs byte by byte; larger ones in pieces that still fall
	// across blocks and chunks, so a plugin is not called a million times.
	cut, small := Reader{"1-byte reads", iotest.OneByteReader}, 1
	if len(enc) > 4096 {
		cut, small = Reader{"HalfReader", iotest.HalfReader}, 4093
	}
	for _, bad := range corruptions(enc) {
		var results []result
		for _, rd := range []Reader{Readers[0], cut} {
			out, err := readAll(c.NewDecodeReader(rd.Wrap(bytes.NewReader(bad.data))))
			results = append(results, result{"pull, " + rd.Name, out, err})
		}
		for _, size := range []int{len(bad.data), small} {
			out, err := pushAll(c.NewDecodeWriter, bad.data, size)
			results = append(results, result{fmt.Sprintf("push, %d-byte writes", size), out, err})
		}
		pull, pullErr := results[0].out, results[0].err
		for _, r := range results {
			if r.err != nil {
				checkDataError(t, c, bad.name+", "+r.form, r.err, len(bad.data))
			}
			if fmt.Sprint(r.err) != fmt.Sprint(pullErr) {
				t.Errorf("%s: %s says %v, but pull says %v", bad.name, r.form, r.err, pullErr)
			} else if r.err == nil && !bytes.Equal(r.out, pull) {
				t.Errorf("%s: %s decodes to other bytes than pull", bad.name, r.form)
			}
		}
	}
}

// checkDataError checks that err is a *core.DataError matching
// core.ErrInvalidData at an offset inside an input of n bytes when it is the
// codec's own (a chain's stages report offsets in their own inputs).
func checkDataError(t *testing.T, c core.Codec, what string, err error, n int) {
	t.Helper()
	var de *core.DataError
	switch {
	case !errors.As(err, &de) || !errors.Is(err, core.ErrInvalidData):
		t.Errorf("%s: error %v (%T) is not a *core.DataError", what, err, err)
	case de.Offset < 0:
		t.Errorf("%s: negative offset: %v", what, err)
	case de.Codec == c.Name() && de.Offset > int64(n):
		t.Errorf("%s: offset %d past the end of the %d-byte input: %v", what, de.Offset, n, err)
	}
}

// pushAll writes src to a new push stream in writes of size bytes and
// closes it, returning the output and the first error.
func pushAll(push func(io.Writer) io.WriteCloser, src []byte, size int) ([]byte, error) {
	var dst bytes.Buffer
	w := push(&dst)
	for p := src; len(p) > 0; {
		n := min(size, len(p))
		if _, err := w.Write(p[:n]); err != nil {
			w.Close()
			return dst.Bytes(), err
		}
		p = p[n:]
	}
	err := w.Close()
	return dst.Bytes(), err
}

type corruption struct {
	name string
	data []byte
}

// corruptions returns damaged copies of enc.
func corruptions(enc []byte) []corruption {
	n := len(enc)
	var at []int
	for _, i := range []int{0, 1, 2, 3, n / 3, n / 2, n - 4, n - 3, n - 2, n - 1} {
		if i >= 0 && i < n && !slices.Contains(at, i) {
			at = append(at, i)
		}
	}
	out := []corruption{{"a byte added at the end", append(bytes.Clone(enc), 0xFF)}}
	for _, i := range at {
		changed := bytes.Clone(enc)
		changed[i] ^= 0xA5
		out = append(out,
			corruption{fmt.Sprintf("cut at %d", i), enc[:i]},
			corruption{fmt.Sprintf("byte %d changed", i), changed},
			corruption{fmt.Sprintf("byte added at %d", i), slices.Insert(bytes.Clone(enc), i, 0xFF)},
		)
	}
	return out
}

// checkConcurrent uses c from many goroutines at once; with -race, shared
// state in the codec value shows.
func checkConcurrent(t *testing.T, c core.Codec, inputs, encodings [][]byte) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i, in := range inputs {
				if encodings[i] == nil && len(in) > 0 {
					continue // its own test failed
				}
				if got, err := readAll(c.NewEncodeReader(bytes.NewReader(in))); err != nil || !bytes.Equal(got, encodings[i]) {
					t.Errorf("goroutine %d: encoding input %d: %v, or other bytes", g, i, err)
				}
				if got, err := pushAll(c.NewDecodeWriter, encodings[i], 4093); err != nil || !bytes.Equal(got, in) {
					t.Errorf("goroutine %d: decoding input %d: %v, or other bytes", g, i, err)
				}
			}
		})
	}
	wg.Wait()
}

// released is the most pull streams of each direction usedLate opens, half
// of them on a source that only reads and half on one in memory; it opens a
// quarter as many push streams. It opens fewer, down to minReleased, when
// their sources would hold more than releasedBytes in all, so that a codec
// that takes in all of its input before its first output is not checked
// for minutes. The long checks open four times as many, over four times
// the bytes: more chances for a stream that lets go of its source only
// now and then to be caught.
func released() (most, least, bytes int) {
	if long() {
		return 200, 16, 16 << 20
	}
	return 50, 16, 4 << 20
}

// checkReleased checks, on the largest input, that a stream closed part way
// lets go of its source or destination (see usedLate).
func checkReleased(t *testing.T, c core.Codec, inputs, encodings [][]byte) {
	i := -1
	for k, in := range inputs {
		if len(in) > 1 && len(encodings[k]) > 1 && (i < 0 || len(in) > len(inputs[i])) {
			i = k
		}
	}
	if i < 0 {
		t.Skip("no input of more than one byte that encodes")
	}
	if late := usedLate(c, inputs[i], encodings[i]); late != "" {
		t.Error(late)
	}
}

// usedLate opens pull streams on in and on its encoding enc, reads a few
// bytes of each or none and closes it: once Close has returned, nothing the
// stream started may touch its source again, so that the caller may close
// or reuse it (as a chain does when it closes the stage below). Push
// streams, written part way and closed, must likewise write nothing more
// into their writer once Close has returned. It returns what the first
// source or destination used too late tells, or "" when none was.
func usedLate(c core.Codec, in, enc []byte) string {
	var all []*watched
	most, least, budget := released()
	for _, d := range directions(c, in, enc) {
		n := min(most, max(least, budget/len(d.src)))
		for k := range n {
			src := &watched{what: d.name + " pull, source that only reads", r: bytes.NewReader(d.src)}
			var r io.ReadCloser
			if k%2 == 0 {
				r = d.pull(src)
			} else {
				src.what = d.name + " pull, source in memory"
				r = d.pull(watchedMemory{src})
			}
			io.ReadFull(r, make([]byte, k%min(8, len(d.want))))
			src.streamClosing()
			r.Close()
			src.streamClosed()
			all = append(all, src)
		}
		for k := range n / 4 {
			dst := &watched{what: d.name + " push, destination"}
			w := d.push(dst)
			w.Write(d.src[:1+k*(len(d.src)-1)/n]) // up to a quarter of it
			dst.streamClosing()
			w.Close()
			dst.streamClosed()
			all = append(all, dst)
		}
	}
	time.Sleep(50 * time.Millisecond) // for a straggler to show itself
	for _, w := range all {
		if late := w.late(); late != "" {
			return fmt.Sprintf("%s: used once the stream's Close had returned, by %s", w.what, late)
		}
	}
	return ""
}

// watched is the source or destination of a stream that notes being used
// while or after the stream's Close returns.
type watched struct {
	what string
	r    *bytes.Reader // the source's bytes; a destination discards what it gets

	mu      sync.Mutex
	busy    int    // calls in progress
	closing bool   // the stream's Close has been called
	lagged  bool   // a call begun since has taken lag
	closed  bool   // it has returned
	overlap bool   // a call was in progress when it did
	stack   string // what the first call too late was, and its stack, or ""
}

// lag is how long the first call begun during the stream's Close takes:
// long enough to be still in progress when a Close that does not wait for
// it returns.
const lag = time.Millisecond

// enter marks the start of a call, leave its end.
func (w *watched) enter() {
	w.mu.Lock()
	if w.closed {
		w.note("a call begun after Close returned")
	}
	w.busy++
	slow := w.closing && !w.lagged
	if slow {
		w.lagged = true
	}
	w.mu.Unlock()
	if slow {
		time.Sleep(lag)
	}
}

func (w *watched) leave() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.busy--
	if w.overlap {
		w.note("a call in progress when Close returned")
	}
}

// note records what, with the calling goroutine's stack, unless a call too
// late is already recorded. w.mu is held.
func (w *watched) note(what string) {
	if w.stack == "" {
		buf := make([]byte, 8<<10)
		w.stack = what + ":\n" + string(buf[:runtime.Stack(buf, false)])
	}
}

// streamClosing notes that the stream's Close is called.
func (w *watched) streamClosing() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closing = true
}

// streamClosed notes that the stream's Close has returned.
func (w *watched) streamClosed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed, w.overlap = true, w.busy > 0
}

// late returns what the first call too late was, or "" when there was none.
func (w *watched) late() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stack == "" && w.overlap {
		return "a call in progress when Close returned, and still running"
	}
	return w.stack
}

func (w *watched) Read(p []byte) (int, error) {
	w.enter()
	defer w.leave()
	return w.r.Read(p)
}

func (w *watched) Write(p []byte) (int, error) {
	w.enter()
	defer w.leave()
	return len(p), nil
}

// watchedMemory is a watched source that holds its bytes in memory, as a
// *bytes.Reader does, for streams that take them from there.
type watchedMemory struct{ *watched }

// WriteTo writes the source's bytes to dst.
func (m watchedMemory) WriteTo(dst io.Writer) (int64, error) {
	m.enter()
	defer m.leave()
	return m.r.WriteTo(dst)
}

// Len returns how many bytes of the source are unread.
func (m watchedMemory) Len() int {
	m.enter()
	defer m.leave()
	return m.r.Len()
}

// abandoned returns how many partly used streams checkAbandoned opens: a
// stream that leaks leaks every time, or often enough to show among 200;
// the long checks open 1000.
func abandoned() int {
	if long() {
		return 1000
	}
	return 200
}

// checkAbandoned opens streams, reads or writes a little, and closes them;
// once all are closed, no goroutine they started may be left. The streams
// run under a profiler label that every goroutine they start inherits, so
// that only those count, whatever else the process runs (tests in
// parallel, a plugin's connections).
func checkAbandoned(t *testing.T, c core.Codec, inputs, encodings [][]byte) {
	i := slices.IndexFunc(inputs, func(in []byte) bool { return len(in) > 1 })
	if i < 0 || len(encodings[i]) < 2 {
		t.Skip("no input of more than one byte that encodes")
	}
	ds := directions(c, inputs[i], encodings[i])
	for _, d := range ds { // warm up: a plugin starts on first use
		readAll(d.pull(bytes.NewReader(d.src)))
	}
	label := fmt.Sprintf("abandoned-%d", abandonedRuns.Add(1))
	streams := abandoned()
	pprof.Do(context.Background(), pprof.Labels("codectest", label), func(context.Context) {
		for k := range streams {
			d := ds[k%2]
			if k%4 < 2 {
				r := d.pull(bytes.NewReader(d.src))
				r.Read(make([]byte, 1))
				r.Close()
			} else {
				w := d.push(io.Discard)
				w.Write(d.src[:1])
				w.Close()
			}
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, stacks := labeledGoroutines(label)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines started by %d partly used streams are left after they were closed:\n%s", n, streams, stacks)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// abandonedRuns numbers the runs of checkAbandoned, for their labels.
var abandonedRuns atomic.Int64

// labeledGoroutines returns how many goroutines carry the profiler label
// codectest=label, and their stacks.
func labeledGoroutines(label string) (int, string) {
	var buf bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&buf, 1)
	return countLabeled(buf.String(), label)
}

// countLabeled returns how many goroutines of profile, a goroutine profile
// in its debug=1 text form, carry the label codectest=label, and their
// records. The profile's first line, "goroutine profile: total N", is no
// record's: left in, it would hide the count of the record it precedes.
func countLabeled(profile, label string) (int, string) {
	_, profile, _ = strings.Cut(profile, "\n")
	want := fmt.Sprintf("%q:%q", "codectest", label)
	n := 0
	var stacks strings.Builder
	for _, rec := range strings.Split(profile, "\n\n") {
		if !strings.Contains(rec, want) {
			continue
		}
		count, _ := strconv.Atoi(strings.Fields(rec)[0])
		n += count
		stacks.WriteString(rec + "\n\n")
	}
	return n, stacks.String()
}
