package bencode_test

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// These tests bound the memory that long strings and integers cost, by the
// bytes allocated (runtime.MemStats.TotalAlloc) while they are decoded or
// transcoded from a generator reader to a writer that checks the output:
// the codec streams must stay within fixed buffers, and a Decoder or
// Unmarshal within the string itself.

// skipRace skips the codec's memory tests under the race detector, which
// makes them take a minute and checks nothing more in code that runs on one
// goroutine.
func skipRace(t *testing.T) {
	if bencode.RaceEnabled {
		t.Skip("allocation bounds of single-goroutine code: run without -race")
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

const (
	memString = 16 << 20 // the long strings and integers
	memBound  = 8 << 20  // what the codec may allocate for one
	memGrowth = 1 << 20  // how much more for one 4 times as long
)

// streamCase is one direction of the codec on generated input.
type streamCase struct {
	name      string
	encode    bool
	src, want func() io.Reader
}

// checkStream runs c both forms over each case made for length n and for
// n/4, checking the output and the bytes allocated: at most bound for n,
// and at most growth more than for n/4.
func checkStream(t *testing.T, c *bencode.Codec, cases func(n int64) []streamCase, n int64, bound, growth uint64) {
	t.Helper()
	small, large := cases(n/4), cases(n)
	for i, tc := range large {
		for _, form := range []string{"reader", "writer"} {
			m0, err0 := streamAlloc(c, small[i], form)
			m, err := streamAlloc(c, tc, form)
			switch {
			case err0 != nil || err != nil:
				t.Errorf("%s, %s form: %v, %v", tc.name, form, err0, err)
			case m > bound || m > m0+growth:
				t.Errorf("%s, %s form: allocated %.2f MiB for n = %d, %.2f MiB for n/4; want at most %.2f MiB, and no more than %.2f MiB more",
					tc.name, form, mib(m), n, mib(m0), mib(bound), mib(growth))
			}
		}
	}
}

// streamAlloc runs c over tc through form ("reader" or "writer"), and
// returns the bytes allocated.
func streamAlloc(c *bencode.Codec, tc streamCase, form string) (uint64, error) {
	var err error
	dst := &cmpWriter{want: tc.want(), buf: make([]byte, 64<<10)}
	n := allocated(func() {
		src := tc.src()
		if form == "reader" {
			r := c.NewDecodeReader(src)
			if tc.encode {
				r = c.NewEncodeReader(src)
			}
			_, err = io.Copy(dst, r)
		} else {
			w := c.NewDecodeWriter(dst)
			if tc.encode {
				w = c.NewEncodeWriter(dst)
			}
			if _, err = io.Copy(w, src); err == nil {
				err = w.Close()
			}
		}
	})
	if err == nil {
		err = dst.done()
	}
	return n, err
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// readers returns a function that joins readers made by parts.
func readers(parts ...func() io.Reader) func() io.Reader {
	return func() io.Reader {
		rs := make([]io.Reader, len(parts))
		for i, p := range parts {
			rs[i] = p()
		}
		return io.MultiReader(rs...)
	}
}

func text(s string) func() io.Reader { return func() io.Reader { return strings.NewReader(s) } }

func repeat(pat string, n int64) func() io.Reader {
	return func() io.Reader { return &repeatReader{pat: []byte(pat), n: n} }
}

func TestCodecLongStringMemory(t *testing.T) {
	skipRace(t)
	checkStream(t, bencode.NewCodec(), longStringCases, memString, memBound, memGrowth)
}

func longStringCases(n int64) []streamCase {
	binary := func() io.Reader { return &repeatReader{pat: hugePattern, n: n} }
	b64 := func() io.Reader { return base64Stream(n) }
	// Text with escapes, a rune cut at every piece boundary of the period.
	pat := "ab\"\\\n\x01é€😀" + strings.Repeat("x", 37)
	js, err := io.ReadAll(bencode.NewCodec().NewDecodeReader(strings.NewReader(fmt.Sprintf("%d:%s", len(pat), pat))))
	if err != nil {
		panic(err)
	}
	escaped := string(js[1 : len(js)-2])
	m := n / int64(len(pat))
	header := text(strconv.FormatInt(n, 10) + ":")
	textHeader := text(strconv.FormatInt(m*int64(len(pat)), 10) + ":")
	return []streamCase{
		{"binary to JSON", false, readers(header, binary), readers(text(`"base64:`), b64, text("\"\n"))},
		{"JSON to binary", true, readers(text(`"base64:`), b64, text(`"`)), readers(header, binary)},
		{"text to JSON", false, readers(textHeader, repeat(pat, m*int64(len(pat)))), readers(text(`"`), repeat(escaped, m*int64(len(escaped))), text("\"\n"))},
		{"JSON to text", true, readers(text(`"`), repeat(escaped, m*int64(len(escaped))), text(`"`)), readers(textHeader, repeat(pat, m*int64(len(pat))))},
	}
}

func TestCodecLongIntegerMemory(t *testing.T) {
	skipRace(t)
	checkStream(t, bencode.NewCodec(), func(n int64) []streamCase {
		digits := repeat("1234567890", n)
		return []streamCase{
			{"to JSON", false, readers(text("li"), digits, text("e1:xe")), readers(text("["), digits, text(`,"x"]`+"\n"))},
			{"to bencode", true, readers(text("[-"), digits, text(`,"x"]`)), readers(text("li-"), digits, text("e1:xe"))},
		}
	}, memString, memBound, memGrowth)
}

// TestCodecLongKeysMemory transcodes a strict dictionary with two long keys
// that differ only at their ends, so that comparing them takes all their
// bytes; the JSON has them out of order, for the encoder to sort.
func TestCodecLongKeysMemory(t *testing.T) {
	skipRace(t)
	checkStream(t, bencode.NewCodec(), func(n int64) []streamCase {
		key := func(last string) func() io.Reader { return readers(repeat("k", n-1), text(last)) }
		k := strconv.FormatInt(n, 10) + ":"
		bencoded := readers(text("d"+k), key("a"), text("i1e"+k), key("b"), text("i2ee"))
		return []streamCase{
			{"to JSON", false, bencoded, readers(text(`{"`), key("a"), text(`":1,"`), key("b"), text(`":2}`+"\n"))},
			{"to bencode", true, readers(text(`{"`), key("b"), text(`":2,"`), key("a"), text(`":1}`)), bencoded},
		}
	}, memString/2, memBound, memGrowth)
}

// TestCodecHeldMemory encodes a strict object whose values, each shorter
// than a long string, add up to many times the memory bound, with its keys
// out of order: the encoder must hold the whole object to sort it.
func TestCodecHeldMemory(t *testing.T) {
	skipRace(t)
	checkStream(t, bencode.NewCodec(), heldCases, 2*memString, memBound, memGrowth)
}

// heldCases is an object of n bytes of values of 512 KiB.
func heldCases(n int64) []streamCase {
	const size = 512 << 10
	count := n / size
	value := repeat("v", size)
	var js, be []func() io.Reader
	js = append(js, text("{"))
	be = append(be, text("d"))
	for i := range count {
		if i > 0 {
			js = append(js, text(","))
		}
		js = append(js, text(fmt.Sprintf(`"%03d":"`, count-1-i)), value, text(`"`))
		be = append(be, text(fmt.Sprintf("3:%03d%d:", i, size)), value)
	}
	js = append(js, text("}"))
	be = append(be, text("e"))
	return []streamCase{{"object", true, readers(js...), readers(be...)}}
}

// TestCodecDeepMemory checks that nesting costs memory by the level, and
// little: DefaultMaxDepth dictionaries, each with a key, both ways, at most
// 200 bytes a level.
func TestCodecDeepMemory(t *testing.T) {
	checkStream(t, bencode.NewCodec(), func(n int64) []streamCase {
		open, close := repeat("d3:key", 6*n), repeat("e", n)
		jsOpen, jsClose := repeat(`{"key":`, 7*n), repeat("}", n)
		return []streamCase{
			{"to JSON", false, readers(open, text("i1e"), close), readers(jsOpen, text("1"), jsClose, text("\n"))},
			{"to bencode", true, readers(jsOpen, text("1"), jsClose), readers(open, text("i1e"), close)},
		}
	}, bencode.DefaultMaxDepth, 200*bencode.DefaultMaxDepth, 200*bencode.DefaultMaxDepth)
}

// TestDecoderClaimedLengthMemory gives a Decoder a string that claims a
// terabyte, and a megabyte of it: it must allocate no more than what
// arrives, and report the string at its offset.
func TestDecoderClaimedLengthMemory(t *testing.T) {
	const present = 1 << 20
	var err error
	n := allocated(func() {
		dec := bencode.NewDecoder(readers(text("l1099511627776:"), repeat("x", present))())
		var v any
		err = dec.Decode(&v)
	})
	var se *bencode.SyntaxError
	if !errors.As(err, &se) || se.Offset != 1 || !strings.Contains(err.Error(), "(1048576 bytes left)") {
		t.Errorf("got %v, want a *SyntaxError at offset 1, with 1048576 bytes left", err)
	}
	if bound := uint64(present + present/4 + 64<<10); n > bound {
		t.Errorf("allocated %.2f MiB for %.2f MiB of input, want at most %.2f MiB", mib(n), mib(present), mib(bound))
	}
}

// TestDecoderLongStringMemory decodes a long string with a Decoder: it may
// hold the string's bytes twice while they come together, not more.
func TestDecoderLongStringMemory(t *testing.T) {
	const size = 16 << 20
	var v []byte
	var err error
	n := allocated(func() {
		err = bencode.NewDecoder(readers(text(strconv.Itoa(size)+":"), repeat("abc", size), text("i1e"))()).Decode(&v)
	})
	if err != nil || len(v) != size || string(v[:6]) != "abcabc" {
		t.Fatalf("got %d bytes, %v", len(v), err)
	}
	if bound := uint64(size*2 + size/4); n > bound {
		t.Errorf("allocated %.1f MiB for a %.1f MiB string, want at most %.1f MiB", mib(n), mib(size), mib(bound))
	}
}

// TestUnmarshalLongStringMemory checks that Unmarshal copies a long string
// at most once: into a string; a []byte, RawMessage or any shares the
// input.
func TestUnmarshalLongStringMemory(t *testing.T) {
	const size = 16 << 20
	data := []byte(strconv.Itoa(size) + ":" + strings.Repeat("s", size))
	targets := []struct {
		name  string
		v     func() any
		bound uint64
	}{
		{"string", func() any { return new(string) }, size + 64<<10},
		{"[]byte", func() any { return new([]byte) }, 64 << 10},
		{"RawMessage", func() any { return new(bencode.RawMessage) }, 64 << 10},
		{"any", func() any { return new(any) }, 64 << 10},
	}
	for _, tt := range targets {
		var err error
		v := tt.v()
		n := allocated(func() { err = bencode.Unmarshal(data, v) })
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		} else if n > tt.bound {
			t.Errorf("%s: allocated %.1f MiB for a %.1f MiB string, want at most %.2f MiB", tt.name, mib(n), mib(size), mib(tt.bound))
		}
	}
}

// TestUnmarshalLongIntegerMemory checks that an integer too long for its Go
// type is refused without copying its digits.
func TestUnmarshalLongIntegerMemory(t *testing.T) {
	data := []byte("i" + strings.Repeat("9", 1<<20) + "e")
	targets := []struct {
		name string
		v    any
	}{{"uint64", new(uint64)}, {"float64", new(float64)}, {"float32", new(float32)}, {"int", new(int)}, {"any", new(any)}}
	for _, tt := range targets {
		var err error
		n := allocated(func() { err = bencode.Unmarshal(data, tt.v) })
		var te *bencode.UnmarshalTypeError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "integer of 1048576 digits") {
			t.Errorf("%s: got %v, want an *UnmarshalTypeError", tt.name, err)
		}
		if n > 64<<10 {
			t.Errorf("%s: allocated %d KiB for a 1 MiB integer", tt.name, n>>10)
		}
	}
	for _, s := range []string{"i18446744073709551615e", "i" + strings.Repeat("9", 308) + "e"} {
		var u uint64
		var f float64
		errU, errF := bencode.Unmarshal([]byte(s), &u), bencode.Unmarshal([]byte(s), &f)
		if (errU == nil) != (len(s) == 22) || errF != nil {
			t.Errorf("%.30s...: uint64 %v, float64 %v", s, errU, errF)
		}
	}
	var f float64
	if err := bencode.Unmarshal([]byte("i1"+strings.Repeat("0", 309)+"e"), &f); err == nil {
		t.Errorf("1e309 decoded into a float64 as %v", f)
	}
}
