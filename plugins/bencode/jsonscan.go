package bencode

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonScanner splits JSON input (RFC 8259) into the same tokens as Scanner:
// Integer for a number, String and Key for strings (their decoded bytes),
// ListStart and DictStart for '[' and '{', End for ']' and '}'. Like Scanner
// it scans input that arrives in pieces, never consuming part of a token.
// JSON that has no bencoded form (true, false, null, fractions, exponents,
// -0) is an error.
type jsonScanner struct {
	data  []byte
	off   int
	base  int64
	atEOF bool

	multi    bool // several top-level values
	maxDepth int
	long     int // strings and numbers cut off after more than this many bytes are errLong

	stack  []byte // '[' or '{' for each open container
	state  jsonState
	done   bool // a top-level value is complete
	closed byte // the container the last End closed: '[' or '{'
	err    error
	buf    []byte // a string's bytes, when it has escapes

	// A long token met before: at input offset resumeAt, checked up to
	// resumePos; escaped says a string had escapes before resumePos.
	resumeAt, resumePos int64
	escaped             bool
}

type jsonState uint8

const (
	jsonValue      jsonState = iota // a value: at the top level, after ':', after ',' in an array
	jsonValueOrEnd                  // after '['
	jsonKeyOrEnd                    // after '{'
	jsonKey                         // after ',' in an object
	jsonColon                       // after a key
	jsonCommaOrEnd                  // after a value in a container
)

func (s *jsonScanner) init(o DecodeOptions, multi bool) {
	s.multi = multi
	s.maxDepth = o.depth()
	s.resumeAt = -1
	s.long = maxInt
}

func (s *jsonScanner) setData(data []byte, base int64, atEOF bool) {
	s.data, s.off, s.base, s.atEOF = data, 0, base, atEOF
}

func (s *jsonScanner) fail(at int, format string, args ...any) error {
	return s.failAt(s.base+int64(at), format, args...)
}

// failAt is fail at input offset off.
func (s *jsonScanner) failAt(off int64, format string, args ...any) error {
	s.err = &SyntaxError{Offset: off, msg: "JSON: " + fmt.Sprintf(format, args...)}
	return s.err
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *jsonScanner) next() (Token, error) {
	if s.err != nil {
		return Token{}, s.err
	}
	for {
		for s.off < len(s.data) && isSpace(s.data[s.off]) {
			s.off++
		}
		i := s.off
		if i == len(s.data) {
			switch {
			case !s.atEOF:
				return Token{}, errShort
			case len(s.stack) == 0 && (s.done || s.multi):
				return Token{}, io.EOF
			}
			return Token{}, s.fail(i, "unexpected end of input")
		}
		c := s.data[i]
		switch s.state {
		case jsonColon:
			if c != ':' {
				return Token{}, s.fail(i, "invalid character %s after object key", quoteByte(c))
			}
			s.off, s.state = i+1, jsonValue
			continue
		case jsonCommaOrEnd:
			top := s.stack[len(s.stack)-1]
			switch {
			case c == ',' && top == '{':
				s.off, s.state = i+1, jsonKey
				continue
			case c == ',':
				s.off, s.state = i+1, jsonValue
				continue
			case c == ']' && top == '[', c == '}' && top == '{':
				return s.end(i), nil
			}
			return Token{}, s.fail(i, "invalid character %s after a value in %s", quoteByte(c), containerName(top))
		case jsonKeyOrEnd, jsonKey:
			if c == '}' && s.state == jsonKeyOrEnd {
				return s.end(i), nil
			}
			if c != '"' {
				return Token{}, s.fail(i, "invalid character %s where an object key belongs", quoteByte(c))
			}
			tok, err := s.str(i, Key)
			if err == nil {
				s.state = jsonColon
			}
			return tok, err
		case jsonValueOrEnd:
			if c == ']' {
				return s.end(i), nil
			}
		}
		if len(s.stack) == 0 && s.done && !s.multi {
			return Token{}, s.fail(i, "data after the top-level value")
		}
		return s.value(i, c)
	}
}

func containerName(c byte) string {
	if c == '{' {
		return "an object"
	}
	return "an array"
}

func (s *jsonScanner) value(i int, c byte) (Token, error) {
	var tok Token
	var err error
	switch {
	case c == '"':
		tok, err = s.str(i, String)
	case c == '-' || '0' <= c && c <= '9':
		tok, err = s.number(i)
	case c == '[' || c == '{':
		if len(s.stack) >= s.maxDepth {
			return Token{}, s.fail(i, "nesting deeper than %d levels", s.maxDepth)
		}
		s.stack = append(s.stack, c)
		s.off = i + 1
		if c == '[' {
			s.state = jsonValueOrEnd
			return Token{Kind: ListStart, Offset: s.base + int64(i)}, nil
		}
		s.state = jsonKeyOrEnd
		return Token{Kind: DictStart, Offset: s.base + int64(i)}, nil
	case c == 't' || c == 'f' || c == 'n':
		return Token{}, s.fail(i, "true, false and null have no bencoded form")
	default:
		return Token{}, s.fail(i, "invalid character %s where a value belongs", quoteByte(c))
	}
	if err == nil {
		s.valueDone()
	}
	return tok, err
}

func (s *jsonScanner) valueDone() {
	if len(s.stack) == 0 {
		s.done, s.state = true, jsonValue
	} else {
		s.state = jsonCommaOrEnd
	}
}

func (s *jsonScanner) end(i int) Token {
	s.closed = s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.off = i + 1
	s.valueDone()
	return Token{Kind: End, Offset: s.base + int64(i)}
}

// resume returns where to go on scanning the token at data[start], and
// whether a string had escapes before that point.
func (s *jsonScanner) resume(start, from int) (int, bool) {
	if s.resumeAt == s.base+int64(start) {
		return int(s.resumePos - s.base), s.escaped
	}
	return from, false
}

// short reports a token cut off at data[at] by the end of the data, noting
// where to resume.
func (s *jsonScanner) short(start, at int, escaped bool, what string) (Token, error) {
	if !s.atEOF {
		s.resumeAt, s.resumePos, s.escaped = s.base+int64(start), s.base+int64(at), escaped
		return Token{}, errShort
	}
	return Token{}, s.fail(len(s.data), "unterminated %s starting at byte %d", what, s.base+int64(start))
}

func (s *jsonScanner) number(start int) (Token, error) {
	data := s.data
	digits := start
	if data[start] == '-' {
		digits++
	}
	j, _ := s.resume(start, digits)
	j = max(j, digits)
	for j < len(data) && '0' <= data[j] && data[j] <= '9' {
		j++
	}
	if j == len(data) && !s.atEOF {
		if j-digits > s.long {
			s.off, s.resumeAt = j, -1
			return Token{Kind: Integer, Offset: s.base + int64(start), Value: data[start:j]}, errLong
		}
		return s.short(start, j, false, "number")
	}
	switch {
	case j == digits:
		return Token{}, s.fail(start, "number without digits")
	case data[digits] == '0' && j > digits+1:
		return Token{}, s.fail(start, "leading zero in number")
	case j < len(data) && (data[j] == '.' || data[j] == 'e' || data[j] == 'E'):
		return Token{}, s.fail(start, "numbers with a fraction or an exponent have no bencoded form")
	case digits > start && data[digits] == '0':
		return Token{}, s.fail(start, "-0 has no bencoded form")
	}
	s.off = j
	return Token{Kind: Integer, Offset: s.base + int64(start), Value: data[start:j]}, nil
}

// str scans a string whose opening quote is data[start].
func (s *jsonScanner) str(start int, kind Kind) (Token, error) {
	data := s.data
	j, escaped := s.resume(start, start+1)
	for ; j < len(data) && data[j] != '"'; j++ {
		for j < len(data) && !jsonSpecial[data[j]] {
			j++
		}
		if j == len(data) || data[j] == '"' {
			break
		}
		switch c := data[j]; {
		case c == '\\':
			if j+1 == len(data) {
				return s.cut(start, j, escaped, kind)
			}
			escaped = true
			j++
		case c < 0x20:
			return Token{}, s.fail(j, "control character %s in string", quoteByte(c))
		}
	}
	if j == len(data) {
		return s.cut(start, j, escaped, kind)
	}
	raw := data[start+1 : j]
	if !utf8.Valid(raw) {
		return Token{}, s.fail(start, "invalid UTF-8 in string")
	}
	tok := Token{Kind: kind, Offset: s.base + int64(start), Value: raw}
	if escaped {
		var bad int
		if s.buf, bad = unescape(s.buf[:0], raw); bad >= 0 {
			return Token{}, s.fail(start+1+bad, "invalid escape in string")
		}
		tok.Value = s.buf
	}
	s.off = j + 1
	return tok, nil
}

// cut reports a string, of the given kind, cut off at data[at] by the end of
// the data: errLong when it has more than s.long bytes, consuming its
// opening quote, so that the caller reads the rest in pieces (see
// longString); otherwise as short does.
func (s *jsonScanner) cut(start, at int, escaped bool, kind Kind) (Token, error) {
	if !s.atEOF && at-start > s.long {
		s.off, s.resumeAt = start+1, -1
		return Token{Kind: kind, Offset: s.base + int64(start)}, errLong
	}
	return s.short(start, at, escaped, "string")
}

// A jsonLong is a long string or number being scanned in pieces.
type jsonLong struct {
	active bool
	kind   Kind  // String, Key or Integer
	start  int64 // the token's input offset
	first  byte  // a number's first digit
	digits int   // how many digits it has so far
	neg    bool

	// A string:
	utf8   utf8State // its raw bytes, so far
	badEsc int64     // input offset of its first invalid escape, or -1
	head   [maxPrefix]byte
	headN  int    // head holds its first headN decoded bytes
	mode   byte   // 0 before headN reaches the length of the binary form's prefix, then 't' (text) or 'b' (binary)
	b64    []byte // binary text not decoded yet
	b64bad bool
	segOff int64 // where its bytes start in the spool
}

// longString scans the next piece of a long string, at most limit bytes from
// data[s.off] on, and appends the bytes it stands for to dst. It reports the
// same errors, at the same offsets, as str does with the whole string: at
// once a control character and the end of the input inside the string;
// once it has the whole string, invalid UTF-8 and invalid escapes (in that
// order, as l.utf8 and l.badEsc, which the caller checks). done says the
// closing quote is consumed; errShort that more data is needed; neither,
// that more is there. Escapes that the piece may cut off wait, unconsumed,
// for the next.
func (s *jsonScanner) longString(l *jsonLong, dst []byte, limit int) ([]byte, bool, error) {
	data := s.data
	whole := len(data)-s.off <= limit
	if !whole {
		data = data[:s.off+limit]
	}
	j := s.off
	final := false
	for j < len(data) {
		for j < len(data) && !jsonSpecial[data[j]] {
			j++
		}
		if j == len(data) {
			break
		}
		c := data[j]
		if c == '"' {
			final = true
			break
		}
		if c == '\\' {
			if j+1 == len(data) {
				break
			}
			j += 2
			continue
		}
		return dst, false, s.fail(j, "control character %s in string", quoteByte(c))
	}
	end, cut := j, j
	if l.badEsc < 0 {
		for p := s.off; p < end; {
			i := bytes.IndexByte(data[p:end], '\\')
			if i < 0 {
				dst = append(dst, data[p:end]...)
				break
			}
			dst = append(dst, data[p:p+i]...)
			p += i
			if !final && p+12 > end { // (a surrogate pair takes 12 bytes)
				cut = p
				break
			}
			var n int
			if dst, n = unescapeOne(dst, data[p:end]); n == 0 {
				l.badEsc = s.base + int64(p)
				break
			}
			p += n
		}
	}
	l.utf8.write(data[s.off:cut])
	s.off = cut
	switch {
	case final:
		s.off = end + 1
		return dst, true, nil
	case !whole:
		return dst, false, nil
	case s.atEOF:
		return dst, false, s.fail(len(data), "unterminated string starting at byte %d", l.start)
	}
	return dst, false, errShort
}

// longNumber scans the next piece of a long number, from data[s.off], and
// returns its digits; done says the number is complete and checked.
func (s *jsonScanner) longNumber(l *jsonLong) (digits []byte, done bool, err error) {
	data := s.data
	j := s.off
	for j < len(data) && '0' <= data[j] && data[j] <= '9' {
		j++
	}
	digits, s.off = data[s.off:j], j
	l.digits += len(digits)
	switch {
	case j == len(data) && !s.atEOF:
		return digits, false, errShort
	case l.first == '0' && l.digits > 1:
		return digits, false, s.failAt(l.start, "leading zero in number")
	case j < len(data) && (data[j] == '.' || data[j] == 'e' || data[j] == 'E'):
		return digits, false, s.failAt(l.start, "numbers with a fraction or an exponent have no bencoded form")
	case l.first == '0' && l.neg:
		return digits, false, s.failAt(l.start, "-0 has no bencoded form")
	}
	return digits, true, nil
}

// jsonSpecial marks the bytes that end a run of plain bytes in a JSON
// string: the quote, the backslash and control characters.
var jsonSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// unescape appends to dst the bytes of JSON string content src. It returns
// the offset in src of an invalid escape, or -1.
func unescape(dst, src []byte) ([]byte, int) {
	for i := 0; i < len(src); {
		c := src[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		var n int
		if dst, n = unescapeOne(dst, src[i:]); n == 0 {
			return dst, i
		}
		i += n
	}
	return dst, -1
}

// unescapeOne appends to dst the bytes of the escape src starts with, the
// rest of src being the rest of the string's content, and returns its
// length, or 0 if it is invalid.
func unescapeOne(dst, src []byte) ([]byte, int) {
	switch e := src[1]; e {
	case '"', '\\', '/':
		return append(dst, e), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, n := hex4(src[2:]), 6
		if utf16.IsSurrogate(r) {
			r, n = -1, 12
			if len(src) >= 12 && src[6] == '\\' && src[7] == 'u' {
				if pair := utf16.DecodeRune(hex4(src[2:]), hex4(src[8:])); pair != utf8.RuneError {
					r = pair
				}
			}
		}
		if r < 0 {
			return dst, 0
		}
		return utf8.AppendRune(dst, r), n
	}
	return dst, 0
}

// hex4 returns the value of the four hex digits b starts with, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
