package bencode

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/testing/shareddata"
)

// tinyLimits are limit sets small enough that the tests' small inputs take
// the paths long strings take: read and written out in pieces, spooled to
// memory and to temporary files.
var tinyLimits = []struct {
	name string
	lim  limits
}{
	// Every string of one byte or more, and every integer cut off by the
	// end of the data, is long; every spooled byte goes to a file; output
	// is drained 3 bytes at a time; a Decoder reads every string cut off
	// into blocks and gives away every buffer.
	{"files", limits{longString: 0, spillMemory: 0, spillBuffer: 0, drainChunk: 3, heldBudget: 0, heldSpoolMin: 1, blockMin: 0, giveAway: 0}},
	// Strings of more than 2 bytes are long; spools straddle memory,
	// file and buffer.
	{"mixed", limits{longString: 2, spillMemory: 5, spillBuffer: 4, drainChunk: 6, heldBudget: 8, heldSpoolMin: 2, blockMin: 3, giveAway: 16}},
	// Strings are transcoded whole, but the JSON encoder spools every
	// string of 3 bytes or more once it holds 4 bytes.
	{"held", limits{longString: 1 << 20, spillMemory: 7, spillBuffer: 16, drainChunk: 48, heldBudget: 4, heldSpoolMin: 3, blockMin: 1 << 20, giveAway: 1 << 20}},
}

// corpusLimits are the tiny limits for the corpus, whose 2 MB, read a byte
// at a time, would take minutes with the others: strings of more than 16
// bytes are long, and those of more than 1 KiB (such as pieces) go to files.
var corpusLimits = limits{longString: 16, spillMemory: 1024, spillBuffer: 4096, drainChunk: 96, heldBudget: 2048, heldSpoolMin: 16, blockMin: 64, giveAway: 4096}

// withLimits gives the streams made until the test ends the limits l.
func withLimits(tb testing.TB, l limits) {
	saved := limitsNow
	limitsNow = l
	tb.Cleanup(func() { limitsNow = saved })
}

// TestTinyLimitsExisting runs the codec's and the Decoder's tests with
// each set of tiny limits, which holds while they run in parallel.
func TestTinyLimitsExisting(t *testing.T) {
	tests := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"JSONForm", TestJSONForm},
		{"EncodeJSON", TestEncodeJSON},
		{"EncodeJSONErrors", TestEncodeJSONErrors},
		{"DecodeErrors", TestDecodeErrors},
		{"CodecReadError", TestCodecReadError},
		{"CodecWriter", TestCodecWriter},
		{"CodecReset", TestCodecReset},
		{"DecoderStream", TestDecoderStream},
		{"DecoderErrors", TestDecoderErrors},
		{"DecoderTypeErrorOffset", TestDecoderTypeErrorOffset},
		{"DecoderReadError", TestDecoderReadError},
		{"DecoderHugeLengthDoesNotAllocate", TestDecoderHugeLengthDoesNotAllocate},
		{"DecoderBuffered", TestDecoderBuffered},
	}
	for _, set := range tinyLimits {
		t.Run(set.name, func(t *testing.T) {
			withLimits(t, set.lim)
			for _, tt := range tests {
				t.Run(tt.name, tt.fn)
			}
		})
	}
	t.Run("corpus", func(t *testing.T) {
		if raceEnabled {
			t.Skip("the corpus, read a byte at a time, takes half a minute with -race (TestCodecCorpus reads it with the default limits)")
		}
		withLimits(t, corpusLimits)
		t.Run("CodecCorpus", TestCodecCorpus)
		t.Run("DecoderCorpus", TestDecoderCorpus)
	})
}

// chunkBencode are bencode inputs for the long-token paths: strings and
// keys that the data cuts anywhere (with every form's reads and writes),
// UTF-8 cut between pieces, keys compared in pieces, long integers.
var chunkBencode = []string{
	"0:", "1:a", "3:abc", "2:\xff\xfe", "1:\x80", "2:\xe2\x82", "3:\xe2\x82\xac", "4:\xe2\x82\xac\xff",
	"6:h\xc3\xa9llo", "4:\xf0\x9f\x98\x80", "3:\xed\xa0\x80", "2:\xc0\xaf",
	"6:base64", "7:base64:", "8:base64:x", "9:base64:ab", "8:Base64:x",
	"6:a\"\\\n\t\x01", "3:\x00\x1f\x7f",
	"5:ab", "10:abc", "3:", "1", "01:a", "3:abcx",
	"i0e", "i-1e", "i1234567890123e", "i-1234567890123e", "i0123e", "i-0123e", "i-0e", "i00e",
	"i123x", "i123", "i-", "ie", "i-e", "li12345678901234567890ei2ee",
	"le", "de", "l3:abc4:defge", "li1e3:abcle",
	"d3:abci1e2:abi2ee", "d2:abi1e3:abci2ee", "d3:abci1e3:abci2ee", "d3:abci1e3:abdi2ee", "d3:abdi1e3:abci2ee",
	"d0:i0e1:ai1ee", "d1:ai1e0:i0ee", "d1:ad1:zi1ee1:bi2ee", "d1:ad1:bd1:ci1eeee", "d1:bd1:zi1ee1:ai2ee",
	"d3:abcd1:ai1e1:bi2ee3:abdle3:abdi1ee",
	"d" + longKey("k", 70) + "i1e" + longKey("k", 70) + "i2ee",
	"d" + longKey("k", 70) + "i1e" + longKey("j", 70) + "i2ee",
	"d" + longKey("k", 70) + "i1e" + longKey("k", 71) + "i2ee",
	"d" + longKey("k", 71) + "i1e" + longKey("k", 70) + "i2ee",
	"d4:\xff\x00\x01\x02i1e4:\xff\x00\x01\x03i2ee",
	"d1:b", "d1:bi1e", "d1:bi1e1:a", "d5:abcdei1e5:abc",
	"3:abc3:def", "i1e5:hello", "d1:bi1e1:ai2e1:bi3ee", "i1e3:abcle",
	"lllleeee", "l" + strings.Repeat("4:abcd", 9) + "e",
	strings.Repeat("d3:abc", 40) + "i1e" + strings.Repeat("e", 40),
	strings.Repeat("d3:abcd1:a", 20) + "i1e1:bi2e" + strings.Repeat("e", 40),
	strings.Repeat("d3:abcd1:b", 20) + "i1e1:ai2e" + strings.Repeat("e", 40),
}

// longKey returns the bencoding of a key of n bytes: prefix, then a run of
// x.
func longKey(prefix string, n int) string {
	return fmt.Sprintf("%d:%s%s", n, prefix, strings.Repeat("x", n-len(prefix)))
}

// chunkJSON are JSON inputs for the long-token paths: escapes, surrogate
// pairs, UTF-8 and base64 quanta cut between pieces, every error a string
// can have and their order, long numbers, keys sorted in pieces.
var chunkJSON = []string{
	`""`, `"a"`, `"abc"`, `"\u00e9\ud83d\ude00\/\b\f\r\n\t\"\\"`, `"x\u0041\u0000y"`, `"\uFFFD"`,
	`"\ud83d"`, `"\ud83d\u0041"`, `"\ude00\ud83d"`, `"\ud83d\ude0"`, `"\ud83dx\ude00"`, `"\u12"`, `"\u12\"ab"`, `"\x"`, `"\u"`,
	"\"a\x01\"", "\"\\\x01\"", "\"\\x\x01\"", "\"\\x\xff\"", "\"\xff\\x\"", "\"\xc3\"", "\"\xc3\xa9\"", "\"\xe2\x82\xac\"",
	`"abc`, `"abc\`, `"\u00`, "\"\x01", "\"\\x", "\"\xff",
	`"base64:"`, `"base64:YQ=="`, `"base64:YWJj"`, `"base64:YWJjZA=="`, `"base64:\/\/4="`, `"base64:YQ\n=="`, `"base64:Y\r\nW\nJj"`,
	`"base64:YQ==YQ=="`, `"base64:YQ"`, `"base64:Y"`, `"base64:!!"`, `"base64:YR=="`, `"base64:YWJj\n"`, `"base64:YWJj="`,
	`"\u0062ase64:YQ=="`, `"base6"`, `"base64"`, `"base64:` + strings.Repeat("QUJD", 30) + `"`,
	`"base64:` + strings.Repeat("QUJD", 30) + `=="`, `"base64:` + strings.Repeat("QUJD", 30) + `Q"`,
	"0", "1", "-1", "12345678901234567890", "-12345678901234567890", "0123", "-0123", "-0", "123.5", "123e5", "123E5", "-",
	"12345x", "[123456789,1]", `{"a":123456789}`, "1234", "[-98765432109876543210]",
	`{"b":1,"a":2}`, `{"bb":1,"b":2,"a":3}`, `{"abc":1,"ab":2}`, `{"ab":1,"abc":2,"ab":3}`, `{"a":1,"a":2}`,
	`{"base64:YWI=":1,"ab":2}`, `{"base64:YQ==":1,"a":2}`, `{"b":{"d":1,"c":2},"a":[1,"x",{"z":1,"y":2}]}`,
	`{"` + strings.Repeat("k", 70) + `":1,"` + strings.Repeat("k", 70) + `":2}`,
	`{"` + strings.Repeat("k", 71) + `":1,"` + strings.Repeat("k", 70) + `":2}`,
	`{"` + strings.Repeat("k", 70) + `":"` + strings.Repeat("v", 90) + `","a":["` + strings.Repeat("w", 80) + `"]}`,
	`{"a":"` + strings.Repeat("v", 100) + `"`, `{"a":"\x"}`, `{"a":1,"b":"` + strings.Repeat("v", 10) + `}`,
	`"abc" "def"`, `1 "x" [2]`, `"x" 1`, `["abc","` + strings.Repeat("d", 40) + `",{"e":"f"}]`,
}

// reference runs c over in whole, with the default limits.
func reference(c core.Codec, encode bool, in []byte) ([]byte, error) {
	saved := limitsNow
	limitsNow = defaultLimits
	defer func() { limitsNow = saved }()
	return forms[0].run(c, encode, in)
}

// TestTinyLimitsSameOutput checks that the long-token paths give the output
// (for valid input) and the errors (for invalid input) that transcoding
// whole gives, for every form, every corpus file, its JSON form and that
// JSON cut short and damaged.
func TestTinyLimitsSameOutput(t *testing.T) {
	type input struct {
		encode bool
		data   []byte
	}
	var inputs, corpusInputs []input
	for _, s := range chunkBencode {
		inputs = append(inputs, input{false, []byte(s)})
	}
	for _, tt := range jsonForms {
		inputs = append(inputs, input{false, []byte(tt.bencode)}, input{true, []byte(tt.json)})
	}
	for _, s := range chunkJSON {
		inputs = append(inputs, input{true, []byte(s)})
	}
	var files []corpusFile
	if root := shareddata.Root(); root != "" && !raceEnabled { // (half a minute with -race)
		for _, class := range []string{"valid", "edge", "malformed"} {
			files = append(files, corpusIn(filepath.Join(root, "bencode"), class)...)
		}
	}
	for i, f := range files {
		corpusInputs = append(corpusInputs, input{false, f.data})
		js, err := reference(NewCodec(), false, f.data)
		if err != nil || i%3 != 0 {
			continue // a third of the files, to keep the test short
		}
		corpusInputs = append(corpusInputs, input{true, js})
		for _, cut := range []int{len(js) / 3, len(js) * 2 / 3, len(js) - 2} {
			if cut > 0 {
				corpusInputs = append(corpusInputs, input{true, js[:cut]})
			}
		}
		bad := bytes.Clone(js)
		bad[len(bad)/2] ^= 0x55
		corpusInputs = append(corpusInputs, input{true, bad})
	}
	codecs := []struct {
		name string
		c    core.Codec
	}{{"strict", NewCodec()}, {"lenient", configured(t, lenient)}, {"hex", configured(t, hexBinary)}}
	// The hex form of some of the JSON, for the hex codec.
	for _, tt := range hexForms {
		inputs = append(inputs, input{true, []byte(tt.json)}, input{false, []byte(tt.bencode)})
	}
	for _, tt := range jsonForms[:len(jsonForms)/2] {
		js, _ := reference(codecs[2].c, false, []byte(tt.bencode))
		inputs = append(inputs, input{true, js})
	}
	for _, f := range files[:len(files)/4] {
		if js, err := reference(codecs[2].c, false, f.data); err == nil {
			corpusInputs = append(corpusInputs, input{true, js})
		}
	}
	sets := append(tinyLimits, struct {
		name string
		lim  limits
	}{"corpus", corpusLimits})
	// What transcoding whole gives, made before the tiny limits hold so
	// that the codecs' checks under them can run in parallel.
	type result struct {
		out []byte
		err error
	}
	references := func(c core.Codec, inputs []input) []result {
		rs := make([]result, len(inputs))
		for i, in := range inputs {
			rs[i].out, rs[i].err = reference(c, in.encode, in.data)
		}
		return rs
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			inputs := inputs
			if set.name == "corpus" {
				inputs = corpusInputs
			}
			wants := make([][]result, len(codecs))
			for i, c := range codecs {
				wants[i] = references(c.c, inputs)
			}
			withLimits(t, set.lim)
			for i, c := range codecs {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					for k, in := range inputs {
						want := wants[i][k]
						got, err := transcode(t, c.c, in.encode, in.data)
						if fmt.Sprint(err) != fmt.Sprint(want.err) || (err == nil && !bytes.Equal(got, want.out)) {
							t.Errorf("%s encode=%v %q:\n got %q, %v\nwant %q, %v", c.name, in.encode, clip(in.data), clip(got), err, clip(want.out), want.err)
						}
					}
				})
			}
		})
	}
}

func clip(b []byte) []byte {
	if len(b) > 200 {
		return append(b[:200:200], "..."...)
	}
	return b
}

// TestTinyLimitsErrorsAtOffsets checks errors in the middle of long strings
// and integers, and the messages that quote long keys.
func TestTinyLimitsErrorsAtOffsets(t *testing.T) {
	long := strings.Repeat("a", 100)
	tests := []struct {
		encode bool
		in     string
		offset int64
		msg    string
	}{
		{false, "100:" + long[:50], 0, "string of 100 bytes runs past the end of input (50 bytes left)"},
		{false, "l3:abc100:" + long[:50], 6, "string of 100 bytes runs past the end of input (50 bytes left)"},
		{false, "i" + long[:0] + "1234567890123", 14, "unterminated integer starting at byte 0"},
		{false, "i1234567890123x", 14, "invalid byte 'x' in integer"},
		{false, "li01234567890123e", 1, "leading zero in integer"},
		{false, "d" + longKey("k", 70) + "i1e" + longKey("k", 70) + "i2ee", 77,
			`duplicate dictionary key "k` + strings.Repeat("x", 63) + `"... (70 bytes)`},
		{false, "d3:abci1e2:abi2ee", 9, `dictionary key "ab" out of order`},
		{true, `"` + long, 101, "unterminated string starting at byte 0"},
		{true, `["` + long + "\x01", 102, "control character"},
		{true, `"` + long + `\x` + long + "\xff\"", 0, "invalid UTF-8"},
		{true, `"` + long + `\x` + long + `"`, 101, "invalid escape"},
		{true, `"base64:` + long + `="`, 0, "invalid base64"},
		{true, "[1234567890123.5]", 1, "fraction"},
		{true, "01234567890123", 0, "leading zero in number"},
		{true, `{"` + strings.Repeat("k", 70) + `":1,"` + strings.Repeat("k", 70) + `":2}`, 76,
			`duplicate object key "` + strings.Repeat("k", 64) + `"... (70 bytes)`},
	}
	for _, set := range tinyLimits[:2] {
		withLimits(t, set.lim)
		for _, tt := range tests {
			_, err := transcode(t, NewCodec(), tt.encode, []byte(tt.in))
			checkDataError(t, tt.in, err, tt.offset, tt.msg)
		}
	}
}

// TestDecoderBlocks checks a Decoder that reads long strings into blocks:
// values, and truncated strings reported as without blocks.
func TestDecoderBlocks(t *testing.T) {
	withLimits(t, limits{longString: 1 << 20, spillMemory: 1, drainChunk: 3, blockMin: 2, giveAway: 8})
	long := strings.Repeat("abcdefgh", 1000)
	in := "i1e" + fmt.Sprintf("%d:%s", len(long), long) + "l3:xyz5:abcdee" + "100000:" + strings.Repeat("z", 60000)
	for name, r := range readers([]byte(in)) {
		dec := NewDecoder(r)
		var n int
		var s []byte
		var l []string
		if err := dec.Decode(&n); err != nil || n != 1 {
			t.Fatalf("%s: %v, %v", name, n, err)
		}
		if err := dec.Decode(&s); err != nil || string(s) != long {
			t.Fatalf("%s: %d bytes, %v", name, len(s), err)
		}
		if err := dec.Decode(&l); err != nil || fmt.Sprint(l) != "[xyz abcde]" {
			t.Fatalf("%s: %v, %v", name, l, err)
		}
		var v any
		err := dec.Decode(&v)
		if se, ok := err.(*SyntaxError); !ok || se.Offset != int64(len(in)-60007) || !strings.Contains(se.msg, "(60000 bytes left)") {
			t.Errorf("%s: got %v", name, err)
		}
		if string(s[:8]) != "abcdefgh" {
			t.Errorf("%s: a decoded value changed: %q", name, s[:8])
		}
	}
}

// TestUTF8State checks that utf8State agrees with utf8.Valid on input cut
// anywhere.
func TestUTF8State(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff", "\x80", "\xc3", "\xe2\x82", "\xf0\x9f", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80"}
	for range 20000 {
		var b []byte
		for range r.IntN(8) {
			b = append(b, alphabet[r.IntN(len(alphabet))]...)
		}
		var u utf8State
		for rest := b; len(rest) > 0; {
			k := 1 + r.IntN(len(rest))
			u.write(rest[:k])
			rest = rest[k:]
		}
		if u.valid() != utf8.Valid(b) {
			t.Fatalf("%q: utf8State says %v", b, u.valid())
		}
	}
}

// TestSpill checks a spill against a slice, across the memory and file
// parts.
func TestSpill(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, max := range []int{0, 1, 7, 64} {
		var s spill
		s.init(limits{spillMemory: max, spillBuffer: max / 2})
		var ref []byte
		for range 2000 {
			switch r.IntN(4) {
			case 0:
				n := r.IntN(len(ref) + 1)
				s.truncate(int64(n))
				ref = ref[:n]
			case 1, 2:
				off := r.IntN(len(ref) + 1)
				p := make([]byte, r.IntN(20))
				for i := range p {
					p[i] = byte(r.IntN(3))
				}
				if err := s.writeAt(p, int64(off)); err != nil {
					t.Fatal(err)
				}
				ref = append(ref[:off:off], append(p, ref[min(off+len(p), len(ref)):]...)...)
			case 3:
				off := r.IntN(len(ref) + 1)
				n := r.IntN(len(ref) - off + 1)
				b := make([]byte, 3)
				for i := range b {
					b[i] = byte(r.IntN(3))
				}
				buf := make([]byte, 2)
				c, err := s.compareAt(int64(off), n, b, &buf)
				if err != nil || c != bytes.Compare(ref[off:off+n], b) {
					t.Fatalf("max %d: compareAt(%d, %d, %v) = %d, %v", max, off, n, b, c, err)
				}
			}
			if s.len() != int64(len(ref)) {
				t.Fatalf("max %d: length %d, want %d", max, s.len(), len(ref))
			}
			got := make([]byte, len(ref))
			if err := s.readAt(got, 0); err != nil || !bytes.Equal(got, ref) {
				t.Fatalf("max %d: got %v, %v; want %v", max, got, err, ref)
			}
		}
		s.close()
		if s.f != nil || s.len() != 0 {
			t.Errorf("max %d: close left %v, %d", max, s.f, s.len())
		}
	}
}

// TestBase64Pieces checks base64 decoded in pieces by the encoder against
// base64 decoded whole, on text cut anywhere by one-byte writes.
func TestBase64Pieces(t *testing.T) {
	withLimits(t, tinyLimits[0].lim)
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := "QUJDYWJj+/=\n\rA!"
	for range 3000 {
		b := make([]byte, r.IntN(14))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		text := strings.ReplaceAll(strings.ReplaceAll(string(b), "\n", `\n`), "\r", `\r`)
		js := []byte(`"base64:` + text + `"`)
		got, err := forms[5].run(NewCodec(), true, js) // one-byte writes
		plain, perr := base64.StdEncoding.Strict().DecodeString(string(b))
		if (err == nil) != (perr == nil) || err == nil && !bytes.Equal(got, fmt.Appendf(nil, "%d:%s", len(plain), plain)) {
			t.Fatalf("%q: got %q, %v; base64 gives %q, %v", js, got, err, plain, perr)
		}
	}
}

// FuzzTinyLimits checks that the long-token paths agree with transcoding
// whole on arbitrary input, both ways.
func FuzzTinyLimits(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range chunkJSON {
		f.Add([]byte(s))
	}
	for _, tt := range hexForms {
		f.Add([]byte(tt.json))
	}
	f.Add([]byte(`"hex:` + strings.Repeat("0f", 300) + `"`))
	f.Fuzz(checkTinyLimits)
}

// checkTinyLimits checks that every set of tiny limits gives the output
// and errors of the default ones on data, both ways.
func checkTinyLimits(t *testing.T, data []byte) {
	for _, c := range []*Codec{NewCodec(), {opts: DecodeOptions{Lenient: true}}, {form: hexForm}} {
		for _, encode := range []bool{false, true} {
			want, wantErr := reference(c, encode, data)
			for _, set := range tinyLimits {
				withLimits(t, set.lim)
				for _, fm := range []form{forms[1], forms[6]} {
					got, err := fm.run(c, encode, data)
					if fmt.Sprint(err) != fmt.Sprint(wantErr) || (err == nil && !bytes.Equal(got, want)) {
						t.Fatalf("%s lenient=%v binary=%s encode=%v %s: got %q, %v; want %q, %v", set.name, c.opts.Lenient, c.binary().name, encode, fm.name, got, err, want, wantErr)
					}
				}
			}
		}
	}
}

// TestSpoolError checks that a spool that cannot make its temporary file
// reports why, as an error that is not about the data.
func TestSpoolError(t *testing.T) {
	withLimits(t, tinyLimits[0].lim)
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	for _, encode := range []bool{false, true} {
		in := "3:abc"
		if encode {
			in = `"abc"`
		}
		for _, f := range []form{forms[0], forms[4]} {
			_, err := f.run(NewCodec(), encode, []byte(in))
			var pe *fs.PathError
			var de *core.DataError
			if !errors.As(err, &pe) || errors.As(err, &de) {
				t.Errorf("encode=%v %s: got %v, want the temporary file's error", encode, f.name, err)
			}
		}
	}
}
