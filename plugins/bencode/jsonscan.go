package bencode

import (
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
}

func (s *jsonScanner) setData(data []byte, base int64, atEOF bool) {
	s.data, s.off, s.base, s.atEOF = data, 0, base, atEOF
}

func (s *jsonScanner) fail(at int, format string, args ...any) error {
	s.err = &SyntaxError{Offset: s.base + int64(at), msg: "JSON: " + fmt.Sprintf(format, args...)}
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
				return s.short(start, j, escaped, "string")
			}
			escaped = true
			j++
		case c < 0x20:
			return Token{}, s.fail(j, "control character %s in string", quoteByte(c))
		}
	}
	if j == len(data) {
		return s.short(start, j, escaped, "string")
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
		switch e := src[i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := hex4(src[i+2:]), 6
			if utf16.IsSurrogate(r) {
				r, n = -1, 12
				if len(src) >= i+12 && src[i+6] == '\\' && src[i+7] == 'u' {
					if pair := utf16.DecodeRune(hex4(src[i+2:]), hex4(src[i+8:])); pair != utf8.RuneError {
						r = pair
					}
				}
			}
			if r < 0 {
				return dst, i
			}
			dst = utf8.AppendRune(dst, r)
			i += n
			continue
		default:
			return dst, i
		}
		i += 2
	}
	return dst, -1
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
