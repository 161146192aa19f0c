// Package codectest checks that a codec keeps the core.Codec contract, the way
// testing/fstest checks a file system. Codec authors call TestCodec from their
// tests with inputs that cover their format.
package codectest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/b14fs/b14fs/core"
)

// A Reader is a way to feed a pull stream its source.
type Reader struct {
	Name string
	Wrap func(io.Reader) io.Reader
}

// Readers are the ways TestCodec feeds a pull stream its source: as it is,
// and through the testing/iotest readers that cut reads differently. Codec
// tests can range over them too.
var Readers = []Reader{
	{"plain", func(r io.Reader) io.Reader { return r }},
	{"OneByteReader", iotest.OneByteReader},
	{"HalfReader", iotest.HalfReader},
	{"DataErrReader", iotest.DataErrReader},
}

// writeSizes are the write sizes TestCodec pushes data through a push stream in.
var writeSizes = []int{1, 2, 3, 7, 64, 4093, 1 << 20}

// oneByteEdges is how many bytes at each end of a longer source TestCodec
// reads a byte at a time where Readers says OneByteReader, the rest coming
// in iotest.HalfReader's pieces: every split of a unit, at the start and at
// the end, for a fraction of the reads (each a message to a plugin). With
// the long checks (B14FS_LONG=1) the whole source is read a byte at a time.
const oneByteEdges = 4 << 10

// long reports whether the long checks are asked for: $B14FS_LONG is 1, as
// for the project's other long tests (internal/longtest, which core does
// not import).
func long() bool { return os.Getenv("B14FS_LONG") == "1" }

// sourceReaders returns the Readers that feed a pull stream a source of n
// bytes (see oneByteEdges).
func sourceReaders(n int) []Reader {
	if n <= 2*oneByteEdges || long() {
		return Readers
	}
	rs := slices.Clone(Readers)
	for i, rd := range rs {
		if rd.Name == "OneByteReader" {
			rs[i] = Reader{"OneByteReader at the ends", func(r io.Reader) io.Reader {
				return &edgeByteReader{r: r, n: n}
			}}
		}
	}
	return rs
}

// edgeByteReader reads the first and the last oneByteEdges of the n bytes
// of r a byte at a time, and those between in reads of half the buffer.
type edgeByteReader struct {
	r      io.Reader
	n, off int
}

func (e *edgeByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	most := 1
	if e.off >= oneByteEdges && e.off < e.n-oneByteEdges {
		most = min((len(p)+1)/2, e.n-oneByteEdges-e.off)
	}
	k, err := e.r.Read(p[:min(len(p), most)])
	e.off += k
	return k, err
}

// TestCodec checks that c keeps the core.Codec contract on each input, and
// that every optional capability c declares matches its base behaviour, the
// way testing/fstest.TestFS checks a file system:
//
//   - the pull encoder gives the same bytes for any read pattern
//     (testing/iotest readers, and iotest.TestReader on the stream itself);
//     the push encoder gives them for any write size; both decoders give
//     back the input; Close flushes without closing the underlying writer;
//     and an error from the source reaches the reader;
//   - push streams neither change the bytes written to them nor keep them
//     past Write;
//   - after Close, Read and Write fail with core.ErrClosed and Close returns
//     nil again;
//   - Reset (core.ReaderResetter, core.WriterResetter) gives the output of
//     a fresh stream;
//   - for a core.BlockCodec, Layout, WriteLayout, EncodedLen and
//     Layout.EncodedOffset agree with the real encodings at every block
//     boundary, a decoder started at any block boundary decodes the rest
//     (a core.FormDecoder's of the layout's form too), and blocks declared
//     independent encode the same alone; a codec whose
//     WriteLayout declares no blocks (core.ErrNoLayout) has every layout
//     its Layout finds in its encodings checked against them;
//   - for a core.Configurable, an unknown option is refused with a
//     *core.OptionError matching core.ErrUnknownOption; for a
//     core.OptionLister, every listed key is known: each listed value is
//     taken, or refused as a value;
//   - for a core.Suffixer, the suffix (if any) can end a file name;
//   - for a core.Texter, each codec Text makes (unless it refuses the
//     TextOptions with a *core.OptionError) decodes what it encodes and
//     what c encodes: text for people is laid out otherwise, never
//     encoded otherwise;
//   - corrupt encodings (truncated, a byte changed, a byte added) are
//     rejected, if at all, with a *core.DataError matching
//     core.ErrInvalidData at an offset inside the input, the same in pull
//     and push form and for any read size;
//   - one Codec value is used from many goroutines at once (run with -race);
//   - once a pull stream's Close has returned, read part way or not at all,
//     nothing the stream started reads its source again (so the caller may
//     close or reuse it), and once a push stream's Close has returned,
//     nothing writes into its writer;
//   - partly read pull streams, once closed, leave no goroutine behind.
//
// The checks that repeat something many times (1-byte reads of a long
// source, streams closed part way, abandoned streams) run at a size that
// keeps a plugin's suite quick; with the long checks ($B14FS_LONG=1, as the
// project's CI runs) at full size: see oneByteEdges, released and
// abandoned.
func TestCodec(t *testing.T, c core.Codec, inputs ...[]byte) {
	t.Helper()
	encodings := make([][]byte, len(inputs))
	for i, in := range inputs {
		t.Run(fmt.Sprintf("input%d_len%d", i, len(in)), func(t *testing.T) {
			enc, err := readAll(c.NewEncodeReader(bytes.NewReader(in)))
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			encodings[i] = enc
			checkForm(t, "encode", c.NewEncodeReader, c.NewEncodeWriter, in, enc)
			checkForm(t, "decode", c.NewDecodeReader, c.NewDecodeWriter, enc, in)
			checkClose(t, c, in, enc)
			checkReset(t, c, in, enc)
			checkCallerBytes(t, c, in, enc)
			if bc, ok := c.(core.BlockCodec); ok {
				checkBlocks(t, bc, in, enc)
			}
			if tc, ok := c.(core.Texter); ok {
				checkText(t, tc, in, enc)
			}
			checkCorrupt(t, c, enc)
		})
	}
	if cc, ok := c.(core.Configurable); ok {
		t.Run("options", func(t *testing.T) { checkOptions(t, cc) })
	}
	if s, ok := c.(core.Suffixer); ok {
		t.Run("suffix", func(t *testing.T) { checkSuffix(t, s) })
	}
	t.Run("concurrent", func(t *testing.T) { checkConcurrent(t, c, inputs, encodings) })
	t.Run("released", func(t *testing.T) { checkReleased(t, c, inputs, encodings) })
	t.Run("abandoned", func(t *testing.T) { checkAbandoned(t, c, inputs, encodings) })
}

// readAll reads r to its end and closes it.
func readAll(r io.ReadCloser) ([]byte, error) {
	p, err := io.ReadAll(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	return p, err
}

// checkForm checks that the pull and push streams of one direction turn src
// into want.
func checkForm(t *testing.T, dir string, pull func(io.Reader) io.ReadCloser, push func(io.Writer) io.WriteCloser, src, want []byte) {
	t.Helper()
	for _, rd := range sourceReaders(len(src)) {
		got, err := readAll(pull(rd.Wrap(bytes.NewReader(src))))
		if err != nil {
			t.Errorf("%s pull, %s: %v", dir, rd.Name, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s pull, %s:\n got %q\nwant %q", dir, rd.Name, clip(got), clip(want))
		}
	}
	r := pull(bytes.NewReader(src))
	if err := iotest.TestReader(r, want); err != nil {
		t.Errorf("%s pull, iotest.TestReader: %v", dir, err)
	}
	r.Close()
	errBroken := errors.New("broken source")
	got, err := readAll(pull(io.MultiReader(bytes.NewReader(src), iotest.ErrReader(errBroken))))
	if !errors.Is(err, errBroken) {
		t.Errorf("%s pull, failing source: got error %v, want %v", dir, err, errBroken)
	} else if !bytes.HasPrefix(want, got) {
		t.Errorf("%s pull, failing source: output before the error is not a prefix of the full output", dir)
	}
	for _, size := range writeSizes {
		var dst closeGuard
		w := push(&dst)
		for p := src; len(p) > 0; {
			n := min(size, len(p))
			m, err := w.Write(p[:n])
			if err != nil || m != n {
				t.Fatalf("%s push, %d-byte writes: Write = %d, %v; want %d, nil", dir, size, m, err, n)
			}
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s push, %d-byte writes: Close: %v", dir, size, err)
		}
		if dst.closed {
			t.Fatalf("%s push: Close closed the underlying writer", dir)
		}
		if !bytes.Equal(dst.Bytes(), want) {
			t.Errorf("%s push, %d-byte writes:\n got %q\nwant %q", dir, size, clip(dst.Bytes()), clip(want))
		}
	}
}

// closeGuard is a buffer that notes being closed.
type closeGuard struct {
	bytes.Buffer
	closed bool
}

func (g *closeGuard) Close() error {
	g.closed = true
	return nil
}

func clip(b []byte) []byte {
	if len(b) > 64 {
		return append(b[:64:64], "..."...)
	}
	return b
}
