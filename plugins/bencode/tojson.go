package bencode

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// toJSON transcodes bencode into JSON: one line of JSON per top-level value.
//
// A string of more than limits.longString bytes is read in pieces as they
// arrive: they are spooled (see spill), checked as UTF-8 and compared with
// the dictionary's previous key (when the string is a key) as they go, and
// once the string is complete its JSON form, text or base64, is written out
// from the spool a piece at a time. An integer with that many digits is
// written out as its digits arrive.
type toJSON struct {
	opts    DecodeOptions
	form    *binaryForm // of strings that are not text
	lim     limits
	scan    Scanner
	closers []byte // ']' or '}' for each open container
	items   []bool // whether each open container has an item yet
	keys    spill  // the last key of each open dictionary (strict)
	spool   spill  // the bytes of the long string being read
	long    longToken
	buf     []byte // a piece of the spool
}

// A longToken is a long string or integer being transcoded in pieces.
type longToken struct {
	active bool
	kind   Kind  // String, Key or Integer
	start  int64 // the token's input offset

	// A string: n bytes long, got of them read so far. Once all are
	// read, drain: its JSON form is being written out, the spool's bytes
	// from pos on being still to go.
	n, got  int
	utf8    utf8State
	head    [maxQuotedKey]byte // the first bytes
	cmp     int                // a key: bytes.Compare(previous key, this key) so far
	drain   bool
	binary  bool // its JSON form is t.form's
	pos     int
	emitted bool // an integer: its digits are written out as they come
	first   byte // an integer's first digit
	digits  int  // how many it has so far
	neg     bool
}

func newToJSON(o DecodeOptions, form *binaryForm) *toJSON {
	t := &toJSON{opts: o, form: form, lim: limitsNow}
	t.keys.init(t.lim)
	t.spool.init(t.lim)
	t.reset()
	return t
}

func (t *toJSON) reset() {
	t.close()
	t.scan = Scanner{stack: t.scan.stack[:0], keys: t.scan.keys[:0], kbuf: t.scan.kbuf}
	t.scan.init(t.opts, t.opts.Lenient)
	t.scan.long = t.lim.longString
	if !t.opts.Lenient {
		t.scan.ks = &t.keys
	}
	t.closers, t.items = t.closers[:0], t.items[:0]
	t.long.active = false
}

// close releases the spools' files.
func (t *toJSON) close() {
	t.keys.close()
	t.spool.close()
}

// pending reports output to write before more input is needed.
func (t *toJSON) pending() bool { return t.long.active && t.long.drain }

// errFull stops a transcoder that has made enough output for one call; it
// goes on at the next (see pending).
var errFull = errors.New("bencode: output full")

func (t *toJSON) transcode(out, in []byte, atEOF bool) ([]byte, int, error) {
	t.scan.setData(in, t.scan.base, atEOF)
	var tok Token
	var err error
	for err == nil {
		switch {
		case t.long.active:
			out, err = t.longStep(out)
		default:
			if err = t.scan.read(&tok); err == nil {
				out = t.token(out, &tok)
			} else if err == errLong {
				out, err = t.startLong(out, &tok)
			}
		}
	}
	n := t.scan.off
	t.scan.base += int64(n)
	if err == errShort || err == io.EOF || err == errFull {
		err = nil
	}
	return out, n, err
}

// startLong begins the long string or integer tok, whose header the scanner
// has consumed.
func (t *toJSON) startLong(out []byte, tok *Token) ([]byte, error) {
	l := &t.long
	*l = longToken{active: true, kind: tok.Kind, start: tok.Offset}
	if tok.Kind == Integer {
		digits := tok.Value
		l.neg = digits[0] == '-'
		l.first, l.digits = digits[0], len(digits)
		if l.neg {
			l.first, l.digits = digits[1], len(digits)-1
		}
		// Starting with 0, the integer is 0 or an error, whatever follows.
		if l.emitted = l.first != '0'; l.emitted {
			out = t.before(out, Integer)
			out = append(out, digits...)
		}
		return out, nil
	}
	l.n = t.scan.longN
	t.spool.truncate(0)
	return out, nil
}

// longStep goes on with the long token: it reads the input there is, or
// writes out a piece of a complete string.
func (t *toJSON) longStep(out []byte) ([]byte, error) {
	l, s := &t.long, &t.scan
	switch {
	case l.kind == Integer:
		return t.longInteger(out)
	case l.drain:
		return t.drain(out)
	}
	if k := min(len(s.data)-s.off, l.n-l.got); k > 0 {
		if err := t.piece(s.data[s.off : s.off+k]); err != nil {
			return out, err
		}
		s.off += k
		l.got += k
	}
	if l.got < l.n {
		if s.atEOF {
			return out, s.pastEnd(l.start, l.n, l.got)
		}
		return out, errShort
	}
	top := s.top()
	if l.kind == Key {
		if err := s.longKeyEnd(top, l.start, l.n, l.cmp, l.head[:]); err != nil {
			return out, err
		}
	} else {
		s.valueDone(top)
	}
	out = t.before(out, l.kind)
	out = append(out, '"')
	prefix := t.form.prefix
	l.binary = !l.utf8.valid() || l.n >= len(prefix) && string(l.head[:len(prefix)]) == prefix
	if l.binary {
		out = append(out, prefix...)
	}
	l.drain, l.pos = true, 0
	return out, nil
}

// piece takes the next bytes p of a long string.
func (t *toJSON) piece(p []byte) error {
	l := &t.long
	l.utf8.write(p)
	if l.got < len(l.head) {
		copy(l.head[l.got:], p)
	}
	if err := t.spool.write(p); err != nil {
		return err
	}
	if l.kind == Key && !t.scan.lenient {
		return t.scan.longKeyPiece(t.scan.top(), l.got, p, &l.cmp)
	}
	return nil
}

// drain writes out the JSON form of the spooled string, a piece at a time.
func (t *toJSON) drain(out []byte) ([]byte, error) {
	l := &t.long
	for l.pos < l.n {
		if len(out) >= t.lim.drainChunk {
			return out, errFull
		}
		k := min(t.lim.drainChunk, l.n-l.pos)
		if cap(t.buf) < k {
			t.buf = make([]byte, t.lim.drainChunk)
		}
		buf := t.buf[:k]
		if err := t.spool.readAt(buf, int64(l.pos)); err != nil {
			return out, err
		}
		if l.binary {
			out = t.form.encode(out, buf)
		} else {
			out = appendEscaped(out, buf)
		}
		l.pos += k
	}
	out = append(out, '"')
	if l.kind == Key {
		out = append(out, ':')
	} else {
		out = endValue(out, len(t.closers))
	}
	l.active = false
	t.spool.truncate(0)
	return out, nil
}

// longInteger writes out the digits of a long integer as they come, and
// checks its end as Scanner.integer does.
func (t *toJSON) longInteger(out []byte) ([]byte, error) {
	l, s := &t.long, &t.scan
	data := s.data
	j := s.off
	for j < len(data) && '0' <= data[j] && data[j] <= '9' {
		j++
	}
	if l.emitted {
		out = append(out, data[s.off:j]...)
	}
	l.digits += j - s.off
	s.off = j
	switch {
	case j == len(data) && s.atEOF:
		return out, s.fail(j, "unterminated integer starting at byte %d", l.start)
	case j == len(data):
		return out, errShort
	case data[j] != 'e':
		return out, s.fail(j, "invalid byte %s in integer", quoteByte(data[j]))
	case l.first == '0' && l.neg:
		return out, s.failAt(l.start, "negative zero or leading zero in integer")
	case l.first == '0' && l.digits > 1:
		return out, s.failAt(l.start, "leading zero in integer")
	case !l.emitted: // 0
		out = t.before(out, Integer)
		out = append(out, '0')
	}
	s.off = j + 1
	s.valueDone(s.top())
	l.active = false
	return endValue(out, len(t.closers)), nil
}

// before writes what goes before a value or key of the given kind: a comma
// after an earlier item of the same container.
func (t *toJSON) before(out []byte, kind Kind) []byte {
	top := len(t.closers) - 1
	if kind == Key || top >= 0 && t.closers[top] == ']' {
		if t.items[top] {
			out = append(out, ',')
		}
		t.items[top] = true
	}
	return out
}

func (t *toJSON) token(out []byte, tok *Token) []byte {
	top := len(t.closers) - 1
	switch tok.Kind {
	case Key:
		if t.items[top] {
			out = append(out, ',')
		}
		t.items[top] = true
		out = appendJSONString(out, tok.Value, t.form)
		return append(out, ':')
	case End:
		out = append(out, t.closers[top])
		t.closers, t.items = t.closers[:top], t.items[:top]
		return endValue(out, top)
	}
	if top >= 0 && t.closers[top] == ']' {
		if t.items[top] {
			out = append(out, ',')
		}
		t.items[top] = true
	}
	switch tok.Kind {
	case Integer:
		out = append(out, tok.Value...)
	case String:
		out = appendJSONString(out, tok.Value, t.form)
	case ListStart:
		t.closers, t.items = append(t.closers, ']'), append(t.items, false)
		return append(out, '[')
	case DictStart:
		t.closers, t.items = append(t.closers, '}'), append(t.items, false)
		return append(out, '{')
	}
	return endValue(out, top+1)
}

// endValue ends the line after a top-level value, when depth is 0.
func endValue(out []byte, depth int) []byte {
	if depth == 0 {
		out = append(out, '\n')
	}
	return out
}

// appendJSONString appends the JSON form of bencoded string b: a JSON string
// of the same text, or form's prefix and encoding.
func appendJSONString(out, b []byte, form *binaryForm) []byte {
	out = append(out, '"')
	if !utf8.Valid(b) || bytes.HasPrefix(b, []byte(form.prefix)) {
		out = append(out, form.prefix...)
		out = form.encode(out, b)
		return append(out, '"')
	}
	out = appendEscaped(out, b)
	return append(out, '"')
}

// appendEscaped appends text b as the inside of a JSON string.
func appendEscaped(out, b []byte) []byte {
	start := 0
	for i, c := range b {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, b[start:i]...)
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	return append(out, b[start:]...)
}

const hexDigits = "0123456789abcdef"
