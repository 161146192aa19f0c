package bencode

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// DefaultMaxDepth is the nesting depth accepted when DecodeOptions.MaxDepth
// is zero: 10,000 levels, as encoding/json accepts.
const DefaultMaxDepth = 10000

// A Kind is the kind of a Token.
type Kind uint8

// The kinds of tokens.
const (
	Integer   Kind = iota + 1 // an integer; Value holds its decimal digits, '-' first if negative
	String                    // a string that is a value; Value holds its bytes
	Key                       // a string that is a dictionary key; Value holds its bytes
	ListStart                 // 'l', the start of a list
	DictStart                 // 'd', the start of a dictionary
	End                       // 'e', the end of the innermost open list or dictionary
)

var kindNames = [...]string{Integer: "integer", String: "string", Key: "key", ListStart: "list", DictStart: "dictionary", End: "end"}

// String returns the kind's name, such as "integer" or "dictionary".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Token is one element of bencoded input.
type Token struct {
	Kind   Kind
	Offset int64  // byte offset of the token's first byte in the input
	Value  []byte // Integer, String, Key: the digits or bytes, sharing the input's memory; nil otherwise
}

// A SyntaxError reports input that is not bencode, or that breaks the strict
// rules (or the depth limit) in force.
type SyntaxError struct {
	Offset int64 // byte offset in the input where the error was found
	msg    string
}

// Error returns the message and the offset.
func (e *SyntaxError) Error() string {
	return "bencode: " + e.msg + " at byte offset " + strconv.FormatInt(e.Offset, 10)
}

// errShort reports that a token runs past the data a streaming scanner holds
// so far; the caller supplies more and scans again.
var errShort = errors.New("bencode: short input")

// errLong reports a string longer than Scanner.long, or an integer with more
// digits than that cut off by the end of the data: the scanner has consumed
// its header (a string's length and colon, an integer's 'i' and the digits
// it has) and set the token's Kind and Offset (and longN, a string's
// length), and the caller reads the rest in pieces (see toJSON).
var errLong = errors.New("bencode: long token")

// A Scanner splits bencoded input into tokens, checking the grammar, the key
// order (unless lenient), and the depth limit as it goes. It does not use
// reflection and allocates nothing but its stack of open containers.
type Scanner struct {
	data  []byte
	off   int   // next byte of data to scan
	base  int64 // input offset of data[0]
	atEOF bool  // data holds all of the remaining input

	fixed    bool // data is all of the input, and stays as it is
	lenient  bool // accept unsorted and duplicate keys
	multi    bool // accept several top-level values
	maxDepth int
	long     int // strings and cut integers longer than this are errLong
	longN    int // the length of the string errLong reports

	ks   *spill // if not nil, the keys, in place of keys (the codec, strict)
	kbuf []byte // for comparing keys in ks's file

	stack []frame
	keys  []byte // copies of the last key of every open dictionary, unless fixed
	done  bool   // a top-level value is complete
	err   error  // sticky error

	intAt, intPos int64 // input offsets: an integer token at intAt has digits checked up to intPos

	warnf   func(Warning)
	spaceAt int64 // input offset of the whitespace being skipped outside values, or -1
}

// A frame is an open list or dictionary. It holds no pointers, so that
// storing one costs no write barrier while the garbage collector runs.
type frame struct {
	dict    bool
	wantKey bool // the next token is a key or End
	hasKey  bool // the dictionary has had a key
	keyOff  int  // offset of this dictionary's last key in keys, or in data if the scanner is fixed
	keyLen  int
}

// NewScanner returns a strict scanner of data with the default depth limit.
func NewScanner(data []byte) *Scanner {
	return DecodeOptions{}.NewScanner(data)
}

// Reset makes s a scanner of data that applies the options o, as
// DecodeOptions.NewScanner makes one, keeping the memory of its stack of
// open containers (up to maxKeptDepth of them), so that a scanner reused for
// many inputs allocates nothing. Reset(o, nil) drops s's reference to its
// previous input.
func (s *Scanner) Reset(o DecodeOptions, data []byte) {
	if cap(s.stack) > maxKeptDepth {
		s.stack = nil
	}
	*s = Scanner{stack: s.stack[:0]}
	s.init(o, o.Lenient)
	s.setData(data, 0, true)
	s.fixed = true
}

// maxKeptDepth is how deep a stack a reused Scanner keeps.
const maxKeptDepth = 1024

// init sets s's rules; multi accepts several top-level values.
func (s *Scanner) init(o DecodeOptions, multi bool) {
	s.lenient = o.Lenient
	s.multi = multi
	s.maxDepth = o.depth()
	s.intAt = -1
	s.long = maxInt
	s.warnf = o.Warn
	s.spaceAt = -1
}

// setData gives s the unscanned input, whose first byte is at input offset
// base. Unless s is fixed, earlier data may be overwritten afterwards.
func (s *Scanner) setData(data []byte, base int64, atEOF bool) {
	s.data, s.off, s.base, s.atEOF = data, 0, base, atEOF
}

// Offset returns the input offset just past the last token returned.
func (s *Scanner) Offset() int64 { return s.base + int64(s.off) }

// Depth returns the number of lists and dictionaries open.
func (s *Scanner) Depth() int { return len(s.stack) }

// Next returns the next token. It returns io.EOF at the end of the input
// once a complete value has been scanned (in lenient mode, any number of
// values), and a *SyntaxError for input that breaks the rules.
func (s *Scanner) Next() (Token, error) {
	var tok Token
	err := s.read(&tok)
	return tok, err
}

// Scan reads the next token into *tok and returns what Next returns with
// it; callers that read many tokens save copying each.
func (s *Scanner) Scan(tok *Token) error {
	return s.read(tok)
}

// Skip scans past the rest of the value whose first token, just returned by
// Next, was tok (an Integer, a String, a ListStart or a DictStart), checking
// it as Next does. It returns the input offset just past the value.
func (s *Scanner) Skip(tok Token) (int64, error) {
	if tok.Kind == ListStart || tok.Kind == DictStart {
		for depth := len(s.stack); len(s.stack) >= depth; {
			if err := s.read(&tok); err != nil {
				return 0, unexpectedEOF(s, err)
			}
		}
	}
	return s.Offset(), nil
}

// unexpectedEOF turns io.EOF, met inside a value, into a *SyntaxError.
func unexpectedEOF(s *Scanner, err error) error {
	if err == io.EOF {
		return s.fail(s.off, "unexpected end of input")
	}
	return err
}

func (s *Scanner) fail(at int, format string, args ...any) error {
	return s.failAt(s.base+int64(at), format, args...)
}

// failAt is fail at input offset off.
func (s *Scanner) failAt(off int64, format string, args ...any) error {
	s.err = &SyntaxError{Offset: off, msg: fmt.Sprintf(format, args...)}
	return s.err
}

// pastEnd reports a string, at input offset start, whose n bytes run past
// the end of the input, which holds left of them.
func (s *Scanner) pastEnd(start int64, n, left int) error {
	return s.failAt(start, "string of %d bytes runs past the end of input (%d bytes left)", n, left)
}

// read scans the next token into *tok.
func (s *Scanner) read(tok *Token) error {
	if s.err != nil {
		return s.err
	}
	if len(s.stack) == 0 && s.lenient {
		s.skipSpace()
	}
	if s.off >= len(s.data) {
		switch {
		case !s.atEOF:
			return errShort
		case len(s.stack) == 0 && (s.done || s.multi):
			return io.EOF
		}
		return s.fail(s.off, "unexpected end of input")
	}
	start := s.off
	c := s.data[start]
	var top *frame
	if n := len(s.stack); n > 0 {
		top = &s.stack[n-1]
	} else if s.done && !s.multi {
		return s.fail(start, "data after the top-level value")
	}
	if top != nil && top.wantKey {
		switch {
		case c == 'e':
			return s.end(tok, start, top)
		case '0' <= c && c <= '9':
			return s.key(tok, start, top)
		}
		return s.fail(start, "dictionary key must be a string, found %s", quoteByte(c))
	}
	var err error
	switch {
	case '0' <= c && c <= '9':
		err = s.str(tok, start, String)
	case c == 'i':
		err = s.integer(tok, start)
	case c == 'l' || c == 'd':
		return s.open(tok, start, c == 'd', top)
	case c == 'e':
		if top == nil {
			return s.fail(start, "unexpected 'e' outside a list or dictionary")
		}
		if top.dict {
			return s.fail(start, "dictionary key without a value")
		}
		return s.end(tok, start, top)
	default:
		return s.fail(start, "invalid byte %s at the start of a value", quoteByte(c))
	}
	if err == nil {
		s.valueDone(top)
	}
	return err
}

// skipSpace passes over whitespace outside the top-level values (lenient
// mode), reporting each run once, when it ends: at the next value or at the
// end of the input.
func (s *Scanner) skipSpace() {
	i := s.off
	for i < len(s.data) && isSpace(s.data[i]) {
		i++
	}
	if i == s.off && s.spaceAt < 0 {
		return // no whitespace
	}
	if s.spaceAt < 0 {
		s.spaceAt = s.base + int64(s.off)
	}
	s.off = i
	if i < len(s.data) || s.atEOF {
		kind := TrailingSpace
		if !s.done {
			kind = LeadingSpace
		}
		s.warn(Warning{Kind: kind, Offset: s.spaceAt, Len: s.base + int64(i) - s.spaceAt})
		s.spaceAt = -1
	}
}

// Finish ends a scan that is to hold one top-level value, called after that
// value's last token. Strictly, it returns nil at the end of the input and
// else the *SyntaxError for the data that follows. In lenient mode it
// accepts whitespace and then any data, reporting them to
// DecodeOptions.Warn, and returns nil: that is how Unmarshal ignores data
// after the value. Called before the value is complete, it returns an error.
func (s *Scanner) Finish() error {
	switch {
	case s.err != nil:
		return s.err
	case !s.done || len(s.stack) > 0:
		return s.fail(s.off, "Finish before the end of the value")
	case !s.lenient:
		if s.off < len(s.data) {
			return s.fail(s.off, "data after the top-level value")
		}
		return nil
	}
	s.skipSpace()
	if s.off < len(s.data) {
		s.warn(Warning{Kind: IgnoredData, Offset: s.base + int64(s.off), Len: int64(len(s.data) - s.off)})
		s.off = len(s.data)
	}
	return nil
}

// top returns the innermost open container, or nil.
func (s *Scanner) top() *frame {
	if n := len(s.stack); n > 0 {
		return &s.stack[n-1]
	}
	return nil
}

// valueDone records that a value inside top (nil at the top level) is complete.
func (s *Scanner) valueDone(top *frame) {
	if top == nil {
		s.done = true
	} else if top.dict {
		top.wantKey = true
	}
}

func (s *Scanner) open(tok *Token, start int, dict bool, top *frame) error {
	if len(s.stack) >= s.maxDepth {
		return s.fail(start, "nesting deeper than %d levels", s.maxDepth)
	}
	if top != nil && top.dict {
		top.wantKey = true
	}
	f := frame{dict: dict, wantKey: dict, keyOff: len(s.keys)}
	if s.ks != nil {
		f.keyOff = int(s.ks.n)
	}
	if n := len(s.stack); n < cap(s.stack) {
		s.stack = s.stack[:n+1] // unlike append, stores no pointer
		s.stack[n] = f
	} else {
		s.stack = append(s.stack, f)
	}
	s.off = start + 1
	tok.Kind, tok.Offset, tok.Value = ListStart, s.base+int64(start), nil
	if dict {
		tok.Kind = DictStart
	}
	return nil
}

func (s *Scanner) end(tok *Token, start int, top *frame) error {
	if top.dict && !s.fixed {
		if s.ks != nil {
			s.ks.truncate(int64(top.keyOff))
		} else {
			s.keys = s.keys[:top.keyOff]
		}
	}
	s.stack = s.stack[:len(s.stack)-1]
	s.off = start + 1
	if len(s.stack) == 0 {
		s.done = true
	}
	tok.Kind, tok.Offset, tok.Value = End, s.base+int64(start), nil
	return nil
}

func (s *Scanner) key(tok *Token, start int, top *frame) error {
	if err := s.str(tok, start, Key); err != nil {
		return err
	}
	if !s.lenient {
		if s.ks != nil {
			return s.spillKey(tok.Value, start, top)
		}
		if top.hasKey {
			if err := s.keyOrder(bytes.Compare(s.lastKey(top), tok.Value), s.base+int64(start), tok.Value, len(tok.Value)); err != nil {
				return err
			}
		}
		if s.fixed {
			top.keyOff = s.off - len(tok.Value)
		} else {
			s.keys = append(s.keys[:top.keyOff], tok.Value...)
		}
		top.keyLen = len(tok.Value)
	}
	top.hasKey = true
	top.wantKey = false
	return nil
}

// keyOrder reports a key, at input offset start, that compares as c (as
// bytes.Compare does) with the one before it in its dictionary; head holds
// the key's first bytes, and n is its length.
func (s *Scanner) keyOrder(c int, start int64, head []byte, n int) error {
	switch {
	case c == 0:
		return s.failAt(start, "duplicate dictionary key %s", keyText(head, int64(n)))
	case c > 0:
		return s.failAt(start, "dictionary key %s out of order", keyText(head, int64(n)))
	}
	return nil
}

// spillKey checks and keeps key k, at data[start], in s.ks.
func (s *Scanner) spillKey(k []byte, start int, top *frame) error {
	off := int64(top.keyOff)
	if top.hasKey {
		c, err := s.ks.compareAt(off, top.keyLen, k, &s.kbuf)
		if err != nil {
			return err
		}
		if err := s.keyOrder(c, s.base+int64(start), k, len(k)); err != nil {
			return err
		}
	}
	s.ks.truncate(off)
	if err := s.ks.write(k); err != nil {
		return err
	}
	top.keyLen = len(k)
	top.hasKey = true
	top.wantKey = false
	return nil
}

// longKeyPiece compares the bytes p of a long key, from its byte pos on,
// with the key before it in the dictionary top, updating *c, the comparison
// so far (as bytes.Compare(previous, this)), and keeps them in s.ks.
func (s *Scanner) longKeyPiece(top *frame, pos int, p []byte, c *int) error {
	if *c == 0 && top.hasKey && pos < top.keyLen {
		k := min(len(p), top.keyLen-pos)
		r, err := s.ks.compareAt(int64(top.keyOff+pos), k, p[:k], &s.kbuf)
		if err != nil {
			return err
		}
		*c = r
	}
	return s.ks.writeAt(p, int64(top.keyOff+pos))
}

// longKeyEnd ends a long key of n bytes at input offset start, whose
// pieces compared as c; head holds its first bytes.
func (s *Scanner) longKeyEnd(top *frame, start int64, n, c int, head []byte) error {
	if !s.lenient {
		if top.hasKey {
			if c == 0 {
				c = cmp.Compare(top.keyLen, n)
			}
			if err := s.keyOrder(c, start, head, n); err != nil {
				return err
			}
		}
		s.ks.truncate(int64(top.keyOff + n))
		top.keyLen = n
	}
	top.hasKey = true
	top.wantKey = false
	return nil
}

// lastKey returns the last key of the dictionary top.
func (s *Scanner) lastKey(top *frame) []byte {
	if s.fixed {
		return s.data[top.keyOff : top.keyOff+top.keyLen]
	}
	return s.keys[top.keyOff : top.keyOff+top.keyLen]
}

// str scans a string at data[start], a digit.
func (s *Scanner) str(tok *Token, start int, kind Kind) error {
	data := s.data
	if data[start] == '0' && start+1 < len(data) && '0' <= data[start+1] && data[start+1] <= '9' {
		return s.fail(start, "leading zero in string length")
	}
	i := start
	n := 0
	for ; i < len(data) && '0' <= data[i] && data[i] <= '9'; i++ {
		if n > (maxInt-9)/10 {
			return s.fail(start, "string length overflows")
		}
		n = n*10 + int(data[i]-'0')
	}
	if i == len(data) {
		return s.short(start, "unterminated string length")
	}
	if data[i] != ':' {
		return s.fail(i, "invalid byte %s in string length", quoteByte(data[i]))
	}
	i++
	if n > s.long {
		s.off, s.longN = i, n
		tok.Kind, tok.Offset, tok.Value = kind, s.base+int64(start), nil
		return errLong
	}
	if n > len(data)-i {
		if !s.atEOF {
			return errShort
		}
		return s.pastEnd(s.base+int64(start), n, len(data)-i)
	}
	s.off = i + n
	tok.Kind, tok.Offset, tok.Value = kind, s.base+int64(start), data[i:i+n]
	return nil
}

// integer scans an integer at data[start], an 'i'.
func (s *Scanner) integer(tok *Token, start int) error {
	data := s.data
	digits := start + 1
	if digits < len(data) && data[digits] == '-' {
		digits++
	}
	i := digits
	if s.intAt == s.base+int64(start) {
		i = max(i, int(s.intPos-s.base)) // resume a long integer met before
	}
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	if i == len(data) {
		if !s.atEOF && i-digits > s.long {
			s.off, s.intAt = i, -1
			tok.Kind, tok.Offset, tok.Value = Integer, s.base+int64(start), data[start+1:i]
			return errLong
		}
		s.intAt, s.intPos = s.base+int64(start), s.base+int64(i)
		return s.short(start, "unterminated integer")
	}
	switch {
	case data[i] != 'e':
		return s.fail(i, "invalid byte %s in integer", quoteByte(data[i]))
	case i == digits:
		return s.fail(start, "integer without digits")
	case data[digits] == '0' && digits > start+1:
		return s.fail(start, "negative zero or leading zero in integer")
	case data[digits] == '0' && i > digits+1:
		return s.fail(start, "leading zero in integer")
	}
	s.off = i + 1
	tok.Kind, tok.Offset, tok.Value = Integer, s.base+int64(start), data[start+1:i]
	return nil
}

// short reports a token cut off by the end of the data: errShort while more
// may come, a *SyntaxError at the end of the input.
func (s *Scanner) short(start int, msg string) error {
	if !s.atEOF {
		return errShort
	}
	return s.fail(len(s.data), "%s starting at byte %d", msg, s.base+int64(start))
}

const maxInt = int(^uint(0) >> 1)

// quoteByte names the byte c in an error message: quoted when it is
// printable ASCII ('x'), in hex otherwise (0xff): never as the Latin-1
// character %q would make of it.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7F {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("0x%02x", c)
}
