package base16384

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
)

// readerWrappers are the ways a test feeds a stream reader its source: the
// conformance suite's, and iotest.TimeoutReader, after whose error the
// streams go on (see readAll).
var readerWrappers = slices.Concat(codectest.Readers, []codectest.Reader{{Name: "TimeoutReader", Wrap: iotest.TimeoutReader}})

// readAll reads r to its end, reading again after iotest.ErrTimeout.
func readAll(r io.Reader) ([]byte, error) {
	var out []byte
	buf := make([]byte, 1000)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		switch {
		case err == io.EOF:
			return out, nil
		case errors.Is(err, iotest.ErrTimeout):
		case err != nil:
			return out, err
		}
	}
}

// writeInPieces writes p to w in pieces of the given size, then closes w.
func writeInPieces(w io.WriteCloser, p []byte, size int) error {
	return writePieces(w, slices.Collect(slices.Chunk(p, size)))
}

// writePieces writes each piece to w, up to the first error, then closes w.
func writePieces(w io.WriteCloser, pieces [][]byte) error {
	for _, p := range pieces {
		n, err := w.Write(p)
		if err != nil {
			return err
		}
		if n != len(p) {
			return fmt.Errorf("wrote %d of %d bytes and no error", n, len(p))
		}
	}
	return w.Close()
}

// cut returns in cut at the offsets at, in increasing order.
func cut(in []byte, at []int) [][]byte {
	var pieces [][]byte
	from := 0
	for _, i := range at {
		pieces = append(pieces, in[from:i])
		from = i
	}
	return append(pieces, in[from:])
}

// piecesReader returns a reader of the pieces whose reads end where the
// pieces do.
func piecesReader(pieces [][]byte) io.Reader {
	rs := make([]io.Reader, len(pieces))
	for i, p := range pieces {
		rs[i] = bytes.NewReader(p)
	}
	return io.MultiReader(rs...)
}

// bufSize is the size of the streams' input buffer, core's: inputs are
// around it and its multiples.
const bufSize = 32 << 10

// streamInputs returns plain inputs around the group and buffer sizes.
func streamInputs() [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var ins [][]byte
	for _, n := range []int{0, 1, 6, 7, 8, 13, 14, 100, 1000, bufSize - 1, bufSize, bufSize + 6, 2*bufSize + 3, 100003} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		ins = append(ins, b)
	}
	return ins
}

// configs are the settings stream tests run under.
var configs = []config{
	{},
	{utf8: true},
	{bom: true},
	{utf8: true, bom: true},
	{checksum: true, strict: true},
	{utf8: true, bom: true, checksum: true},
}

// encodeWith is the one-shot encoding under cfg, byte order mark included.
func encodeWith(cfg config, src []byte) []byte {
	h := cfg.header()
	out := make([]byte, int64(len(h))+cfg.encodedLen(int64(len(src))))
	e := newEncodeState(cfg)
	e.encode(out[copy(out, h):], src)
	return out
}

func TestEncoderReader(t *testing.T) {
	t.Parallel()
	for _, cfg := range configs {
		for _, src := range streamInputs() {
			want := encodeWith(cfg, src)
			for _, rw := range readerWrappers {
				got, err := readAll(newEncoder(rw.Wrap(bytes.NewReader(src)), cfg))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%+v, %d bytes, %s: encoder reader differs from one-shot (err %v)", cfg, len(src), rw.Name, err)
				}
			}
			got, err := readAll(iotest.OneByteReader(newEncoder(bytes.NewReader(src), cfg)))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%+v, %d bytes, 1-byte reads: encoder reader differs from one-shot (err %v)", cfg, len(src), err)
			}
			var buf bytes.Buffer
			if _, err := io.Copy(&buf, newEncoder(bytes.NewReader(src), cfg)); err != nil || !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%+v, %d bytes: io.Copy of encoder reader differs from one-shot (err %v)", cfg, len(src), err)
			}
		}
	}
}

func TestDecoderReader(t *testing.T) {
	t.Parallel()
	for _, cfg := range configs {
		for _, src := range streamInputs() {
			enc := encodeWith(cfg, src)
			for _, rw := range readerWrappers {
				got, err := readAll(newDecoder(rw.Wrap(bytes.NewReader(enc)), cfg))
				if err != nil || !bytes.Equal(got, src) {
					t.Errorf("%+v, %d bytes, %s: decoder reader differs from input (err %v)", cfg, len(src), rw.Name, err)
				}
			}
			got, err := readAll(iotest.OneByteReader(newDecoder(bytes.NewReader(enc), cfg)))
			if err != nil || !bytes.Equal(got, src) {
				t.Errorf("%+v, %d bytes, 1-byte reads: decoder reader differs from input (err %v)", cfg, len(src), err)
			}
			var buf bytes.Buffer
			if _, err := io.Copy(&buf, newDecoder(bytes.NewReader(enc), cfg)); err != nil || !bytes.Equal(buf.Bytes(), src) {
				t.Errorf("%+v, %d bytes: io.Copy of decoder reader differs from input (err %v)", cfg, len(src), err)
			}
		}
	}
}

// pieceSizes are the write sizes writer tests use.
var pieceSizes = []int{1, 2, 3, 5, 7, 8, 63, 64, 65, 1000, 1 << 20}

func TestEncodeWriter(t *testing.T) {
	t.Parallel()
	for _, cfg := range configs {
		for _, src := range streamInputs() {
			want := encodeWith(cfg, src)
			for _, size := range pieceSizes {
				var buf bytes.Buffer
				err := writeInPieces(newEncodeWriter(&buf, cfg), src, size)
				if err != nil || !bytes.Equal(buf.Bytes(), want) {
					t.Errorf("%+v, %d bytes in %d-byte writes: encode writer differs from one-shot (err %v)", cfg, len(src), size, err)
				}
			}
		}
	}
}

func TestDecodeWriter(t *testing.T) {
	t.Parallel()
	for _, cfg := range configs {
		for _, src := range streamInputs() {
			enc := encodeWith(cfg, src)
			for _, size := range pieceSizes {
				var buf bytes.Buffer
				err := writeInPieces(newDecodeWriter(&buf, cfg), enc, size)
				if err != nil || !bytes.Equal(buf.Bytes(), src) {
					t.Errorf("%+v, %d bytes in %d-byte writes: decode writer differs from input (err %v)", cfg, len(src), size, err)
				}
			}
		}
	}
}

// decodeAllForms decodes in through every stream form (pull with several
// readers, push with several write sizes) and calls check with each result.
func decodeAllForms(in []byte, check func(form string, out []byte, err error)) {
	for _, rw := range readerWrappers {
		out, err := readAll(NewDecoder(rw.Wrap(bytes.NewReader(in))))
		check("Decoder/"+rw.Name, out, err)
	}
	var buf bytes.Buffer
	_, err := io.Copy(&buf, NewDecoder(bytes.NewReader(in)))
	check("Decoder/io.Copy", buf.Bytes(), err)
	for _, size := range pieceSizes {
		buf.Reset()
		err := writeInPieces(NewDecodeWriter(&buf), in, size)
		check(fmt.Sprintf("DecodeWriter/%d", size), buf.Bytes(), err)
	}
}

func TestStreamDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range badInputs {
		raw := unhex(t, tc.in)
		// Put whole groups first, so the bad unit lies past a chunk boundary.
		prefix := Encode(bytes.Repeat([]byte("abcdefg"), bufSize/8+3))
		for _, in := range []struct {
			name   string
			in     []byte
			offset int64
		}{
			{"short", raw, tc.offset},
			{"long", append(prefix, raw...), int64(len(prefix)) + tc.offset},
			{"utf8", toUTF8(raw), utf8Offset(tc.offset)},
			{"long utf8", toUTF8(append(prefix, raw...)), utf8Offset(int64(len(prefix)) + tc.offset)},
		} {
			if rawOnly[tc.name] && in.name != "short" {
				continue
			}
			_, err := StdEncoding.AppendDecode(nil, in.in)
			checkDataError(t, tc.name+"/"+in.name+"/one-shot", err, in.offset, tc.err)
			// What a stream writes before the error is decoded from whole
			// groups before the bad one, or from all before trailing data.
			end, group := in.offset, int64(8)
			if strings.Contains(in.name, "utf8") {
				group = 12
			}
			if tc.err != ErrTrailingData {
				end = end / group * group
			}
			valid, err := StdEncoding.AppendDecode(nil, in.in[:end])
			if err != nil {
				valid = nil
			}
			decodeAllForms(in.in, func(form string, out []byte, err error) {
				checkDataError(t, tc.name+"/"+in.name+"/"+form, err, in.offset, tc.err)
				if !bytes.HasPrefix(valid, out) {
					t.Errorf("%s/%s/%s: wrote %d bytes that are not decoded from the units before the error", tc.name, in.name, form, len(out))
				}
			})
		}
	}
}

// readThenCopy reads one byte from d with Read, then the rest with io.Copy,
// which hands the rest of the source to a push stream when it can.
func readThenCopy(d *core.Reader) ([]byte, error) {
	var first [1]byte
	n, err := d.Read(first[:])
	switch {
	case err == io.EOF:
		return nil, nil
	case err != nil:
		return first[:n], err
	}
	var buf bytes.Buffer
	buf.Write(first[:n])
	_, err = io.Copy(&buf, d)
	return buf.Bytes(), err
}

// oneShot decodes in at once under cfg, as every stream form must: it
// returns the bytes decoded before the error, and the error.
func oneShot(cfg config, in []byte) ([]byte, error) {
	d := newDecodeState(cfg)
	out := make([]byte, maxDecodedLen(len(in)))
	n, _, err := d.decode(out, in, true)
	return out[:n], err
}

// dataErrors are the errors that this package's *core.DataError values wrap.
var dataErrors = []error{ErrTruncated, ErrInvalidUnit, ErrBadMarker, ErrTrailingData, ErrPadBits, ErrChecksum}

// sameResult reports whether a decoding that wrote out and ended with err
// matches one that wrote want and ended with wantErr: the same bytes, and
// the same error message, offset and kind.
func sameResult(out []byte, err error, want []byte, wantErr error) bool {
	if !bytes.Equal(out, want) || (err == nil) != (wantErr == nil) {
		return false
	}
	if err == nil {
		return true
	}
	var de, wantDE *core.DataError
	if err.Error() != wantErr.Error() || errors.As(err, &de) != errors.As(wantErr, &wantDE) || de != nil && de.Offset != wantDE.Offset {
		return false
	}
	for _, kind := range dataErrors {
		if errors.Is(err, kind) != errors.Is(wantErr, kind) {
			return false
		}
	}
	return true
}

// appendDecodeMatches reports whether AppendDecode of in matches a one-shot
// decoding that wrote want and ended with wantErr. AppendDecode appends
// nothing on error.
func appendDecodeMatches(in, want []byte, wantErr error) bool {
	out, err := StdEncoding.AppendDecode(nil, in)
	if err != nil {
		out = want
	}
	return sameResult(out, err, want, wantErr)
}

// splitInputs returns the raw encodings the split tests decode: the
// malformed ones of badInputs, and the checksummed vectors, which strict
// decoding rejects, intact and with a pad bit flipped.
func splitInputs(t *testing.T) [][]byte {
	var ins [][]byte
	for _, tc := range badInputs {
		ins = append(ins, unhex(t, tc.in))
	}
	for _, v := range checksumVectors {
		enc := unhex(t, v.enc)
		ins = append(ins, enc)
		if len(v.plain)%7 != 0 {
			ins = append(ins, flipPadBit(enc))
		}
	}
	return ins
}

// splitConfigs are the decoding settings the split tests run under.
var splitConfigs = []config{{}, {strict: true}, {checksum: true}, {skipGarbage: true}}

// maxPairLen is the longest input the split tests cut at every pair of
// points; longer ones are cut at every point.
const maxPairLen = 40

// cuts returns the ways the split tests cut an input of n bytes.
func cuts(n int) [][]int {
	var at [][]int
	for i := 0; i <= n; i++ {
		at = append(at, []int{i})
		for j := i; j <= n && n <= maxPairLen; j++ {
			at = append(at, []int{i, j})
		}
	}
	return at
}

// TestStreamSplits decodes each input of splitInputs, raw and UTF-8, with
// and without a byte order mark, and in the UTF-8 form with line breaks
// and garbage put in (textVariants), under each of splitConfigs: through the
// push stream with the input cut at every point (and every pair of points),
// and through the pull stream with its source's reads cut the same way and
// with 1-byte reads from it or from its source. Every form must write what
// one-shot decoding decodes before the error, and report the same error.
func TestStreamSplits(t *testing.T) {
	t.Parallel()
	for _, cfg := range splitConfigs {
		dw, d := newDecodeWriter(nil, cfg), newDecoder(nil, cfg)
		var buf bytes.Buffer
		for _, raw := range splitInputs(t) {
			bom := append([]byte{0xFE, 0xFF}, raw...)
			for _, in := range slices.Concat([][]byte{raw, bom, toUTF8(raw), toUTF8(bom)}, textVariants(toUTF8(raw))) {
				want, wantErr := oneShot(cfg, in)
				failed := false
				check := func(form string, at []int, out []byte, err error) {
					if !failed && !sameResult(out, err, want, wantErr) {
						t.Errorf("%+v, % X, %s, cuts %v: wrote % X, %v; one-shot wrote % X, %v", cfg, in, form, at, out, err, want, wantErr)
						failed = true
					}
				}
				if cfg == (config{}) && !appendDecodeMatches(in, want, wantErr) {
					t.Errorf("% X: AppendDecode differs from one-shot % X, %v", in, want, wantErr)
				}
				for _, rw := range codectest.Readers {
					d.Reset(rw.Wrap(bytes.NewReader(in)))
					out, err := io.ReadAll(iotest.OneByteReader(d))
					check("Decoder, 1-byte reads from "+rw.Name, nil, out, err)
				}
				for _, at := range cuts(len(in)) {
					pieces := cut(in, at)
					buf.Reset()
					dw.Reset(&buf)
					err := writePieces(dw, pieces)
					check("DecodeWriter", at, buf.Bytes(), err)
					if len(at) > 1 {
						continue
					}
					d.Reset(piecesReader(pieces))
					out, err := io.ReadAll(d)
					check("Decoder", at, out, err)
					d.Reset(piecesReader(pieces))
					out, err = io.ReadAll(iotest.OneByteReader(d))
					check("Decoder, 1-byte reads", at, out, err)
					buf.Reset()
					d.Reset(piecesReader(pieces))
					_, err = io.Copy(&buf, d)
					check("Decoder, io.Copy", at, buf.Bytes(), err)
					d.Reset(piecesReader(pieces))
					out, err = readThenCopy(d)
					check("Decoder, 1-byte Read then io.Copy", at, out, err)
				}
			}
		}
	}
}

// TestReadThenWriteTo reads the start of a stream with Read, then the rest
// with io.Copy, which hands the rest of a *bytes.Reader to a push stream.
func TestReadThenWriteTo(t *testing.T) {
	for _, cfg := range configs {
		for _, src := range streamInputs() {
			enc := encodeWith(cfg, src)
			for _, first := range []int{1, 5, 13, 1000} {
				e := newEncoder(bytes.NewReader(src), cfg)
				got := make([]byte, first)
				n, _ := io.ReadFull(e, got)
				var rest bytes.Buffer
				m, err := io.Copy(&rest, e)
				got = append(got[:n], rest.Bytes()...)
				if err != nil || m != int64(rest.Len()) || !bytes.Equal(got, enc) {
					t.Errorf("%+v, %d bytes, Read %d then io.Copy: encoder differs from one-shot (err %v)", cfg, len(src), first, err)
				}
				d := newDecoder(bytes.NewReader(enc), cfg)
				got = make([]byte, first)
				n, _ = io.ReadFull(d, got)
				rest.Reset()
				m, err = io.Copy(&rest, d)
				got = append(got[:n], rest.Bytes()...)
				if err != nil || m != int64(rest.Len()) || !bytes.Equal(got, src) {
					t.Errorf("%+v, %d bytes, Read %d then io.Copy: decoder differs from input (err %v)", cfg, len(src), first, err)
				}
			}
		}
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriteErrors(t *testing.T) {
	src := bytes.Repeat([]byte("1234567"), 10000)
	enc := Encode(src)
	readers := []struct {
		name string
		r    io.Reader
	}{
		{"Encoder", NewEncoder(bytes.NewReader(src))},
		{"Decoder", NewDecoder(bytes.NewReader(enc))},
		{"Encoder without WriterTo source", NewEncoder(iotest.HalfReader(bytes.NewReader(src)))},
		{"Decoder without WriterTo source", NewDecoder(iotest.HalfReader(bytes.NewReader(enc)))},
	}
	for _, r := range readers {
		if _, err := io.Copy(errWriter{}, r.r); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("%s: io.Copy to a failing writer: %v", r.name, err)
		}
	}
	writers := []struct {
		name string
		w    io.WriteCloser
		in   []byte
	}{
		{"EncodeWriter", NewEncodeWriter(errWriter{}), src},
		{"DecodeWriter", NewDecodeWriter(errWriter{}), enc},
	}
	for _, w := range writers {
		if _, err := w.w.Write(w.in); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("%s: Write to a failing writer: %v", w.name, err)
		}
		if _, err := w.w.Write(w.in); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("%s: second Write to a failing writer: %v", w.name, err)
		}
		if err := w.w.Close(); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("%s: Close after a failed write: %v", w.name, err)
		}
	}
}

func TestWriteAfterClose(t *testing.T) {
	for _, w := range []io.WriteCloser{NewEncodeWriter(io.Discard), NewDecodeWriter(io.Discard)} {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("x")); err == nil {
			t.Errorf("%T: Write after Close: no error", w)
		}
		if err := w.Close(); err != nil {
			t.Errorf("%T: second Close: %v", w, err)
		}
	}
}

func TestReset(t *testing.T) {
	src := []byte("hello, world")
	enc := Encode(src)
	e := NewEncoder(bytes.NewReader([]byte("other input")))
	io.ReadAll(e)
	e.Reset(bytes.NewReader(src))
	if got, err := io.ReadAll(e); err != nil || !bytes.Equal(got, enc) {
		t.Errorf("Encoder after Reset: % X, %v", got, err)
	}
	d := NewDecoder(bytes.NewReader([]byte{0}))
	io.ReadAll(d)
	d.Reset(bytes.NewReader(enc))
	if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, src) {
		t.Errorf("Decoder after Reset: %q, %v", got, err)
	}
	var buf bytes.Buffer
	ew := NewEncodeWriter(io.Discard)
	ew.Write([]byte("abc"))
	ew.Reset(&buf)
	ew.Write(src)
	if err := ew.Close(); err != nil || !bytes.Equal(buf.Bytes(), enc) {
		t.Errorf("EncodeWriter after Reset: % X, %v", buf.Bytes(), err)
	}
	buf.Reset()
	dw := NewDecodeWriter(io.Discard)
	dw.Write([]byte{0, 0})
	dw.Reset(&buf)
	dw.Write(enc)
	if err := dw.Close(); err != nil || !bytes.Equal(buf.Bytes(), src) {
		t.Errorf("DecodeWriter after Reset: %q, %v", buf.Bytes(), err)
	}
}
