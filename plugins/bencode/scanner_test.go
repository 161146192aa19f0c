package bencode

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// tokens scans all of input and renders the tokens as "kind:value" words.
func tokens(s *Scanner) (string, error) {
	var words []string
	for {
		tok, err := s.Next()
		if err == io.EOF {
			return strings.Join(words, " "), nil
		}
		if err != nil {
			return strings.Join(words, " "), err
		}
		words = append(words, word(tok))
	}
}

// word renders a token as "kind:value@offset" ("kind@offset" without a
// value).
func word(tok Token) string {
	w := tok.Kind.String()
	if tok.Value != nil {
		w += ":" + string(tok.Value)
	}
	return fmt.Sprintf("%s@%d", w, tok.Offset)
}

func TestScannerTokens(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"i0e", "integer:0@0"},
		{"i-42e", "integer:-42@0"},
		{"i123456789012345678901234567890e", "integer:123456789012345678901234567890@0"},
		{"0:", "string:@0"},
		{"3:a:c", "string:a:c@0"},
		{"le", "list@0 end@1"},
		{"de", "dictionary@0 end@1"},
		{"l1:ai1ee", "list@0 string:a@1 integer:1@4 end@7"},
		{"d1:a0:1:bli2eee", "dictionary@0 key:a@1 string:@4 key:b@6 list@9 integer:2@10 end@13 end@14"},
		{"d1:ad1:bdeee", "dictionary@0 key:a@1 dictionary@4 key:b@5 dictionary@8 end@9 end@10 end@11"},
		{"d2:a\x001:x2:a\x011:ye", "dictionary@0 key:a\x00@1 string:x@5 key:a\x01@8 string:y@12 end@15"},
		{"d1:a0:2:aa0:e", "dictionary@0 key:a@1 string:@4 key:aa@6 string:@10 end@12"},
	}
	for _, tt := range tests {
		got, err := tokens(NewScanner([]byte(tt.in)))
		if err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestScannerErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int64
		msg    string
	}{
		{"", 0, "unexpected end of input"},
		{"i03e", 0, "leading zero"},
		{"i00e", 0, "leading zero"},
		{"i-0e", 0, "negative zero"},
		{"i-01e", 0, "negative zero"},
		{"ie", 0, "without digits"},
		{"i-e", 0, "without digits"},
		{"i+1e", 1, "invalid byte '+'"},
		{"i1.5e", 2, "invalid byte '.'"},
		{"i12", 3, "unterminated integer"},
		{"01:a", 0, "leading zero in string length"},
		{"5:abc", 0, "runs past the end"},
		{"18446744073709551617:x", 0, "overflows"},
		{"9223372036854775808:x", 0, "overflows"},
		{"3", 1, "unterminated string length"},
		{"3x", 1, "invalid byte 'x'"},
		{"-1:a", 0, "invalid byte '-'"},
		{"x", 0, "invalid byte 'x'"},
		{"\xff", 0, "invalid byte 0xff at the start"},
		{"i1\xe9e", 2, "invalid byte 0xe9 in integer"},
		{"d\x01e", 1, "found 0x01"},
		{"e", 0, "unexpected 'e'"},
		{"l", 1, "unexpected end of input"},
		{"li1e", 4, "unexpected end of input"},
		{"di1e0:e", 1, "key must be a string"},
		{"dle0:e", 1, "key must be a string"},
		{"d1:ae", 4, "key without a value"},
		{"d1:b0:1:a0:e", 6, "out of order"},
		{"d1:a0:1:a0:e", 6, "duplicate"},
		{"d2:a\x011:x2:a\x001:ye", 8, "out of order"},
		{"i1ei2e", 3, "data after the top-level value"},
		{"0:\n", 2, "data after the top-level value"},
	}
	for _, tt := range tests {
		got, err := tokens(NewScanner([]byte(tt.in)))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.offset || !strings.Contains(se.Error(), tt.msg) {
			t.Errorf("%q: got %q, %v; want error %q at offset %d", tt.in, got, err, tt.msg, tt.offset)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("byte offset %d", tt.offset)) {
			t.Errorf("%q: error %q does not name the offset", tt.in, err)
		}
	}
}

func TestScannerErrorIsSticky(t *testing.T) {
	s := NewScanner([]byte("i1x"))
	_, err1 := s.Next()
	_, err2 := s.Next()
	if err1 == nil || err1 != err2 {
		t.Errorf("errors %v, %v; want the same error twice", err1, err2)
	}
}

func TestScannerLenient(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"d1:b0:1:a0:e", "dictionary@0 key:b@1 string:@4 key:a@6 string:@9 end@11"},
		{"d1:a0:1:a0:e", "dictionary@0 key:a@1 string:@4 key:a@6 string:@9 end@11"},
		{"i1ei2e", "integer:1@0 integer:2@3"},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := tokens(DecodeOptions{Lenient: true}.NewScanner([]byte(tt.in)))
		if err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	// Lenient mode relaxes key order and trailing data, not the grammar.
	if _, err := tokens(DecodeOptions{Lenient: true}.NewScanner([]byte("i1ei01e"))); err == nil {
		t.Error("lenient scanner accepted i01e")
	}
}

func TestScannerDepth(t *testing.T) {
	deep := func(n int) []byte { return []byte(strings.Repeat("l", n) + strings.Repeat("e", n)) }
	if _, err := tokens(NewScanner(deep(DefaultMaxDepth))); err != nil {
		t.Errorf("depth %d: %v", DefaultMaxDepth, err)
	}
	_, err := tokens(NewScanner(deep(DefaultMaxDepth + 1)))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != DefaultMaxDepth {
		t.Errorf("depth %d: got %v, want an error at offset %d", DefaultMaxDepth+1, err, DefaultMaxDepth)
	}
	if _, err := tokens(DecodeOptions{MaxDepth: 3}.NewScanner(deep(4))); err == nil {
		t.Error("MaxDepth 3 accepted 4 levels")
	}
	// The scanner keeps its own stack: a million levels cost heap, not stack.
	if _, err := tokens(DecodeOptions{MaxDepth: 1 << 20}.NewScanner(deep(1 << 20))); err != nil {
		t.Errorf("depth 1<<20: %v", err)
	}
}

func TestScannerSkip(t *testing.T) {
	s := NewScanner([]byte("ld1:ali1ei2eee3:xyze"))
	s.Next()
	tok, _ := s.Next()
	end, err := s.Skip(tok)
	if err != nil || end != 14 {
		t.Fatalf("Skip = %d, %v; want 14", end, err)
	}
	if tok, err := s.Next(); err != nil || string(tok.Value) != "xyz" {
		t.Errorf("after Skip: %v %q, %v", tok.Kind, tok.Value, err)
	}
	if _, err := NewScanner([]byte("ll")).Skip(Token{Kind: ListStart}); err == nil {
		t.Error("Skip of an unterminated list succeeded")
	}
}

// scanInPieces scans input fed to the scanner n bytes at a time, as the
// stream forms do, and renders the tokens as tokens does.
func scanInPieces(in []byte, n int, o DecodeOptions) (string, error) {
	var s Scanner
	s.init(o, o.Lenient)
	var words []string
	var pending []byte
	for fed := 0; ; {
		atEOF := fed == len(in)
		s.setData(pending, s.base, atEOF)
		for {
			tok, err := s.Next()
			if err == errShort {
				break
			}
			if err == io.EOF {
				return strings.Join(words, " "), nil
			}
			if err != nil {
				return strings.Join(words, " "), err
			}
			words = append(words, word(tok))
		}
		pending = append(pending[:0:0], pending[s.off:]...)
		s.base += int64(s.off)
		end := min(fed+n, len(in))
		pending = append(pending, in[fed:end]...)
		fed = end
	}
}

func TestScannerInPieces(t *testing.T) {
	inputs := []string{
		"d8:announce3:url4:infod6:lengthi123456789e4:name4:file12:piece lengthi16384e6:pieces20:aaaaaaaaaaaaaaaaaaaaee",
		"i123456789012345678901234567890e",
		"l" + strings.Repeat("i-77e3:abc", 10) + "e",
		"d1:a0:1:a0:e", "i1ei2e", "i01e", "5:abc", "l",
	}
	for _, in := range inputs {
		for _, o := range []DecodeOptions{{}, {Lenient: true}} {
			want, wantErr := tokens(o.NewScanner([]byte(in)))
			for _, n := range []int{1, 2, 3, 7} {
				got, err := scanInPieces([]byte(in), n, o)
				if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("%q lenient=%v in pieces of %d: got %q, %v; want %q, %v", in, o.Lenient, n, got, err, want, wantErr)
				}
			}
		}
	}
}

func TestKindString(t *testing.T) {
	if got := Kind(0).String(); got != "Kind(0)" {
		t.Errorf("Kind(0) = %q", got)
	}
	if got := DictStart.String(); got != "dictionary" {
		t.Errorf("DictStart = %q", got)
	}
}

func TestScannerCorpus(t *testing.T) {
	for _, class := range []string{"valid", "edge"} {
		for _, f := range corpus(t, class) {
			if _, err := tokens(NewScanner(f.data)); err != nil {
				t.Errorf("%s/%s: %v", class, f.name, err)
			}
		}
	}
	for _, f := range corpus(t, "malformed") {
		if _, err := tokens(NewScanner(f.data)); err == nil {
			t.Errorf("malformed/%s: accepted", f.name)
		}
	}
}

func TestScannerReset(t *testing.T) {
	var s Scanner
	kinds := func() []Kind {
		var ks []Kind
		for {
			tok, err := s.Next()
			if err != nil {
				if err != io.EOF {
					ks = append(ks, 0)
				}
				return ks
			}
			ks = append(ks, tok.Kind)
		}
	}
	s.Reset(DecodeOptions{}, []byte("d1:ali1eee"))
	if got := kinds(); !slices.Equal(got, []Kind{DictStart, Key, ListStart, Integer, End, End}) {
		t.Errorf("strict: %v", got)
	}
	// The options are those given: strictly, unsorted keys are an error;
	// leniently, so are they not, and values may follow.
	s.Reset(DecodeOptions{}, []byte("d1:bi1e1:ai2ee"))
	if got := kinds(); !slices.Equal(got, []Kind{DictStart, Key, Integer, 0}) {
		t.Errorf("strict, unsorted: %v", got)
	}
	s.Reset(DecodeOptions{Lenient: true}, []byte("d1:bi1e1:ai2eei3e"))
	if got := kinds(); !slices.Equal(got, []Kind{DictStart, Key, Integer, Key, Integer, End, Integer}) {
		t.Errorf("lenient: %v", got)
	}
	// A reused scanner allocates nothing.
	deep := []byte(strings.Repeat("l", 100) + strings.Repeat("e", 100))
	if n := testing.AllocsPerRun(10, func() {
		s.Reset(DecodeOptions{}, deep)
		for {
			if _, err := s.Next(); err != nil {
				break
			}
		}
	}); n != 0 {
		t.Errorf("%v allocations a reused scan", n)
	}
}

// Scan gives the tokens and errors Next gives.
func TestScannerScan(t *testing.T) {
	for _, in := range []string{"d1:ali1e2:xyee", "i1e", "d1:bi1e1:ai2ee", "l", ""} {
		a, b := NewScanner([]byte(in)), NewScanner([]byte(in))
		for {
			want, wantErr := a.Next()
			var got Token
			err := b.Scan(&got)
			if got.Kind != want.Kind || got.Offset != want.Offset || string(got.Value) != string(want.Value) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%q: Scan gives %+v, %v; Next %+v, %v", in, got, err, want, wantErr)
			}
			if wantErr != nil {
				break
			}
		}
	}
}
