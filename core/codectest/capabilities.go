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

// unknownOption is a key no codec takes.
const unknownOption = "codectest-no-such-option"

// checkOptions checks a core.Configurable codec: an unknown key is refused
// with an *core.OptionError naming the codec and the key, and matching
// core.ErrUnknownOption. For a
// core.OptionLister, every key it lists is known: every value it lists is
// taken, or refused as a value, never as an unknown key.
func checkOptions(t *testing.T, c core.Configurable) {
	t.Helper()
	_, err := c.WithOptions(core.Options{{Key: unknownOption, Value: "1"}})
	var oe *core.OptionError
	if !errors.As(err, &oe) || !errors.Is(err, core.ErrUnknownOption) || oe.Codec != c.Name() || oe.Key != unknownOption {
		t.Errorf("WithOptions(%s=1) = %v; want an *core.OptionError for %s naming the key, matching core.ErrUnknownOption", unknownOption, err, c.Name())
	}
	ol, ok := c.(core.OptionLister)
	if !ok {
		return
	}
	seen := map[string]bool{}
	for _, doc := range ol.OptionDocs() {
		if doc.Key == "" || strings.ContainsAny(doc.Key, "=:,") || doc.Usage == "" || seen[doc.Key] {
			t.Errorf("OptionDocs: %+v: want a unique key without = : or , and a usage line", doc)
		}
		seen[doc.Key] = true
		values := doc.Values
		if len(values) == 0 {
			values = []string{"1"} // a value of the right kind or not: the key must be known
		}
		for _, v := range values {
			opt := core.Options{{Key: doc.Key, Value: v}}
			_, err := c.WithOptions(opt)
			if errors.Is(err, core.ErrUnknownOption) {
				t.Errorf("WithOptions(%v): %v; the key is listed by OptionDocs", opt, err)
			} else if err != nil && !errors.As(err, &oe) {
				t.Errorf("WithOptions(%v): %v; want nil or an *core.OptionError", opt, err)
			}
		}
	}
}

// checkSuffix checks a core.Suffixer's suffix: none (""), or a dot and at
// least one more byte, none of them a path separator or NUL, so that it can
// end a file name.
func checkSuffix(t *testing.T, s core.Suffixer) {
	t.Helper()
	suf := s.Suffix()
	if suf != "" && (len(suf) < 2 || suf[0] != '.' || suf == ".." || strings.ContainsAny(suf, "/\\\x00") || len(suf) > 32) {
		t.Errorf("Suffix() = %q; want none, or a dot and up to 31 more bytes, no path separator or NUL", suf)
	}
}

// checkCallerBytes checks that push streams neither change the bytes the
// caller writes nor keep them past Write.
func checkCallerBytes(t *testing.T, c core.Codec, in, enc []byte) {
	t.Helper()
	if p := callerBytesProblem(c, in, enc); p != "" {
		t.Error(p)
	}
}

// callerBytesProblem writes each piece from one buffer, compares it after
// the call, then overwrites it before the next piece, and describes what
// went wrong, if anything.
func callerBytesProblem(c core.Codec, in, enc []byte) string {
	for _, d := range directions(c, in, enc) {
		sizes := []int{4093}
		if len(d.src) <= 64<<10 {
			sizes = append(sizes, 3) // byte by byte costs too much on long inputs, which checkForm writes so
		}
		for _, size := range sizes {
			var dst bytes.Buffer
			w := d.push(&dst)
			buf := make([]byte, size)
			for p := d.src; len(p) > 0; {
				piece := buf[:copy(buf, p)]
				if _, err := w.Write(piece); err != nil {
					return fmt.Sprintf("%s push, %d-byte writes: %v", d.name, size, err)
				}
				if !bytes.Equal(piece, p[:len(piece)]) {
					return fmt.Sprintf("%s push, %d-byte writes: Write changed the caller's bytes", d.name, size)
				}
				for i := range piece {
					piece[i] = ^piece[i] // a stream that kept piece would now see garbage
				}
				p = p[len(piece):]
			}
			if err := w.Close(); err != nil || !bytes.Equal(dst.Bytes(), d.want) {
				return fmt.Sprintf("%s push, %d-byte writes from a reused buffer: %v; output equal %v (the stream kept the caller's bytes past Write)",
					d.name, size, err, bytes.Equal(dst.Bytes(), d.want))
			}
		}
	}
	return ""
}

// Hex is a small reference codec, in the spirit of testing/fstest.MapFS: a
// codec to test code that takes codecs (chains, hosts, file systems)
// without the real ones. It encodes bytes as lower-case hexadecimal;
// decoding rejects anything else, and an odd digit at the end, with a
// *core.DataError naming the offset. Its suffix is ".hex", and its streams
// are core's, around its step functions.
type Hex struct{}

var _ core.Suffixer = Hex{}

// Name returns "hex".
func (Hex) Name() string { return "hex" }

// Suffix returns ".hex".
func (Hex) Suffix() string { return ".hex" }

// NewEncodeReader returns a reader of r's bytes in hexadecimal.
func (Hex) NewEncodeReader(r io.Reader) io.ReadCloser { return core.NewReader(r, hexEncoder{}) }

// NewDecodeReader returns a reader of r's hexadecimal decoded.
func (Hex) NewDecodeReader(r io.Reader) io.ReadCloser { return core.NewReader(r, hexDecoder{}) }

// NewEncodeWriter returns a writer that writes hexadecimal into w.
func (Hex) NewEncodeWriter(w io.Writer) io.WriteCloser { return core.NewWriter(w, hexEncoder{}) }

// NewDecodeWriter returns a writer that decodes hexadecimal into w.
func (Hex) NewDecodeWriter(w io.Writer) io.WriteCloser { return core.NewWriter(w, hexDecoder{}) }

// hexEncoder is the step function of Hex's encoding.
type hexEncoder struct{}

func (hexEncoder) Transform(dst, src []byte, atEOF bool) (int, int, error) {
	n := min(len(src), len(dst)/2)
	for i, b := range src[:n] {
		dst[2*i], dst[2*i+1] = hexDigits[b>>4], hexDigits[b&15]
	}
	if n < len(src) {
		return 2 * n, n, core.ErrShortDst
	}
	return 2 * n, n, nil
}

func (hexEncoder) Reset() {}

const hexDigits = "0123456789abcdef"

// hexDecoder is the step function of Hex's decoding.
type hexDecoder struct{}

func (hexDecoder) Transform(dst, src []byte, atEOF bool) (int, int, error) {
	n := min(len(src)/2, len(dst))
	for i := range n {
		hi, lo := strings.IndexByte(hexDigits, src[2*i]), strings.IndexByte(hexDigits, src[2*i+1])
		if hi < 0 || lo < 0 {
			bad := 2 * i
			if hi >= 0 {
				bad++
			}
			return i, 2 * i, &core.DataError{Codec: "hex", Offset: int64(bad), Err: fmt.Errorf("invalid byte %#02x", src[bad])}
		}
		dst[i] = byte(hi<<4 | lo)
	}
	switch rest := len(src) - 2*n; {
	case rest >= 2:
		return n, 2 * n, core.ErrShortDst
	case rest == 1 && atEOF:
		return n, 2 * n, &core.DataError{Codec: "hex", Offset: int64(2 * n), Err: io.ErrUnexpectedEOF}
	case rest == 1:
		return n, 2 * n, core.ErrShortSrc
	}
	return n, 2 * n, nil
}

func (hexDecoder) Reset() {}
