package bencode

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"slices"
	"strconv"
)

// toBencode transcodes JSON into bencode, the inverse of toJSON. In strict
// mode it sorts each object's keys (an object with a repeated key is an
// error), so the output is canonical bencode; in lenient mode it keeps keys
// as they come. Output waits in held while a dictionary that may need sorting
// is open.
//
// A bencoded string needs its length before its bytes, and a JSON string's
// length is not known until its end, so the bytes of long strings (of more
// than limits.longString bytes, or cut off by the end of the data after that
// many) go to a spool (see spill) as they are decoded, and so do long
// integers and, once held is over limits.heldBudget, any string of
// limits.heldSpoolMin bytes or more; held then keeps a mark that stands for them,
// and they are copied out, a piece at a time, when held is written out.
type toBencode struct {
	opts  DecodeOptions
	form  *binaryForm // of strings that are not text
	lim   limits
	scan  jsonScanner
	held  []byte
	dicts []openDict // the open dictionaries, innermost last (strict mode)
	tmp   []byte

	spool spill     // spooled strings and integers, one after another
	segs  []segment // where they are in spool; a mark in held stands for each
	long  jsonLong  // the long string or number being read
	flush flushState
	buf   []byte // decoded binary text; a key from the spool
	buf2  []byte // another key from the spool
	ioErr error  // a spool error met while sorting
}

// A segment is a string's bytes, or an integer's digits, in the spool.
type segment struct {
	off, n  int64
	integer bool
}

// segMark in held, followed by a segment's index in 4 bytes, big-endian,
// stands for the segment's bencoding. No bencoded value starts with it.
const (
	segMark    = 'S'
	segMarkLen = 5
)

// flushState is held being written out, with its segments.
type flushState struct {
	active bool
	pos    int   // held[:pos] is written
	next   int   // the next mark at or after pos, or len(held); -1: not found yet
	from   int   // where to look for it: the end of the last mark (a token boundary)
	seg    int   // the segment being written, or -1
	segPos int64 // its bytes written; -1 before its header
}

// openDict is an open dictionary's entries, by where each starts in held.
type openDict struct {
	entries []entry
}

type entry struct {
	at, end int   // the entry's key and value are held[at:end]
	offset  int64 // the key's input offset
}

func newToBencode(o DecodeOptions, form *binaryForm) *toBencode {
	t := &toBencode{opts: o, form: form, lim: limitsNow}
	t.spool.init(t.lim)
	t.reset()
	return t
}

func (t *toBencode) reset() {
	t.close()
	t.scan = jsonScanner{stack: t.scan.stack[:0], buf: t.scan.buf[:0]}
	t.scan.init(t.opts, t.opts.Lenient)
	t.scan.long = t.lim.longString
	t.held, t.dicts, t.segs = t.held[:0], t.dicts[:0], t.segs[:0]
	t.long.active, t.flush.active = false, false
}

// close releases the spool's file.
func (t *toBencode) close() { t.spool.close() }

// pending reports output to write before more input is needed.
func (t *toBencode) pending() bool { return t.flush.active }

func (t *toBencode) transcode(out, in []byte, atEOF bool) ([]byte, int, error) {
	t.scan.setData(in, t.scan.base, atEOF)
	var err error
	if t.flush.active {
		out, err = t.flushHeld(out)
	}
	for err == nil {
		switch {
		case t.long.active:
			err = t.longStep()
		case len(t.segs) > 0 && len(t.dicts) == 0:
			// A value with spooled parts is complete: write it out
			// before going on, which empties the spool.
			t.flush = flushState{active: true, next: -1, seg: -1}
			out, err = t.flushHeld(out)
		default:
			var tok Token
			if tok, err = t.scan.next(); err == nil {
				err = t.token(tok)
			} else if err == errLong {
				err = t.startLong(tok)
			}
		}
	}
	n := t.scan.off
	t.scan.base += int64(n)
	if len(t.dicts) == 0 && len(t.segs) == 0 {
		out = append(out, t.held...)
		t.held = t.held[:0]
	}
	if err == errShort || err == io.EOF || err == errFull {
		err = nil
	}
	return out, n, err
}

// flushHeld writes out held, copying out the segments its marks stand for,
// until it is done or the output is full (errFull).
func (t *toBencode) flushHeld(out []byte) ([]byte, error) {
	f := &t.flush
	for {
		if f.seg >= 0 {
			var err error
			if out, err = t.flushSegment(out); err != nil {
				return out, err
			}
		}
		if f.pos == len(t.held) {
			t.held, t.segs = t.held[:0], t.segs[:0]
			t.spool.truncate(0)
			f.active = false
			return out, nil
		}
		if len(out) >= t.lim.drainChunk {
			return out, errFull
		}
		if f.next < 0 {
			f.next = nextMark(t.held, f.from)
		}
		k := min(f.next-f.pos, t.lim.drainChunk)
		out = append(out, t.held[f.pos:f.pos+k]...)
		f.pos += k
		if f.pos == f.next && f.pos < len(t.held) {
			f.seg, f.segPos = markSegment(t.held[f.pos:]), -1
			f.pos += segMarkLen
			f.from, f.next = f.pos, -1
		}
	}
}

// flushSegment writes out the bencoding of segment f.seg from where it is.
func (t *toBencode) flushSegment(out []byte) ([]byte, error) {
	f := &t.flush
	sg := t.segs[f.seg]
	if f.segPos < 0 {
		if sg.integer {
			out = append(out, 'i')
		} else {
			out = strconv.AppendInt(out, sg.n, 10)
			out = append(out, ':')
		}
		f.segPos = 0
	}
	for f.segPos < sg.n {
		if len(out) >= t.lim.drainChunk {
			return out, errFull
		}
		k := int(min(int64(t.lim.drainChunk), sg.n-f.segPos))
		out = slices.Grow(out, k)
		if err := t.spool.readAt(out[len(out):len(out)+k], sg.off+f.segPos); err != nil {
			return out, err
		}
		out = out[:len(out)+k]
		f.segPos += int64(k)
	}
	if sg.integer {
		out = append(out, 'e')
	}
	f.seg = -1
	return out, nil
}

// nextMark returns the offset of the first mark in held from offset from, a
// token boundary, on, or len(held).
func nextMark(held []byte, from int) int {
	for i := from; i < len(held); {
		switch c := held[i]; {
		case c == segMark:
			return i
		case c == 'i':
			i += bytes.IndexByte(held[i:], 'e') + 1
		case '0' <= c && c <= '9':
			colon := i + bytes.IndexByte(held[i:], ':')
			n, _ := strconv.Atoi(string(held[i:colon]))
			i = colon + 1 + n
		default: // 'l', 'd', 'e'
			i++
		}
	}
	return len(held)
}

// markSegment returns the index of the segment the mark b starts with
// stands for.
func markSegment(b []byte) int {
	return int(binary.BigEndian.Uint32(b[1:segMarkLen]))
}

// spoolSegment adds the segment of the spool from off on to the output, as
// a mark in held.
func (t *toBencode) spoolSegment(off int64, integer bool) {
	t.held = append(t.held, segMark)
	t.held = binary.BigEndian.AppendUint32(t.held, uint32(len(t.segs)))
	t.segs = append(t.segs, segment{off: off, n: t.spool.len() - off, integer: integer})
}

// startLong begins the long string or number tok, which the scanner has
// begun.
func (t *toBencode) startLong(tok Token) error {
	l := &t.long
	*l = jsonLong{active: true, kind: tok.Kind, start: tok.Offset, badEsc: -1, segOff: t.spool.len(), b64: l.b64[:0]}
	if tok.Kind == Integer {
		l.neg = tok.Value[0] == '-'
		l.first, l.digits = tok.Value[0], len(tok.Value)
		if l.neg {
			l.first, l.digits = tok.Value[1], len(tok.Value)-1
		}
		return t.spool.write(tok.Value)
	}
	return nil
}

// longStep reads the next piece of the long string or number.
func (t *toBencode) longStep() error {
	l := &t.long
	if l.kind == Integer {
		digits, done, err := t.scan.longNumber(l)
		if werr := t.spool.write(digits); werr != nil {
			return werr
		}
		if !done {
			return err
		}
		t.spoolSegment(l.segOff, true)
		l.active = false
		t.scan.valueDone()
		return nil
	}
	var done bool
	var err error
	t.tmp, done, err = t.scan.longString(l, t.tmp[:0], max(t.lim.drainChunk, 16))
	if err != nil && err != errShort {
		return err
	}
	if werr := t.longBytes(t.tmp); werr != nil {
		return werr
	}
	if !done {
		return err // errShort, or nil with more to come
	}
	switch {
	case !l.utf8.valid():
		return t.scan.failAt(l.start, "invalid UTF-8 in string")
	case l.badEsc >= 0:
		return t.scan.failAt(l.badEsc, "invalid escape in string")
	}
	if l.mode == 0 { // shorter than the prefix
		if err := t.spool.write(l.head[:l.headN]); err != nil {
			return err
		}
	}
	if l.mode == 'b' && !l.b64bad {
		if err := t.binaryPiece(true); err != nil {
			return err
		}
	}
	if l.b64bad {
		return t.badBinary(l.start)
	}
	if l.kind == Key {
		if !t.opts.Lenient {
			d := &t.dicts[len(t.dicts)-1]
			d.entries = append(d.entries, entry{at: len(t.held), offset: l.start})
		}
		t.scan.state = jsonColon
	} else {
		t.scan.valueDone()
	}
	t.spoolSegment(l.segOff, false)
	l.active = false
	return nil
}

// badBinary reports the string at input offset start, whose text after the
// binary form's prefix is not in its encoding.
func (t *toBencode) badBinary(start int64) error {
	return t.scan.failAt(start, "invalid %s after %q", t.form.name, t.form.prefix)
}

// longBytes takes the next decoded bytes p of a long string: text goes to
// the spool, and so does what the binary form's text after its prefix
// stands for.
func (t *toBencode) longBytes(p []byte) error {
	l := &t.long
	if l.mode == 0 {
		head := l.head[:len(t.form.prefix)]
		k := copy(head[l.headN:], p)
		l.headN += k
		p = p[k:]
		if l.headN < len(head) {
			return nil
		}
		if string(head) == t.form.prefix {
			l.mode = 'b'
		} else {
			l.mode = 't'
			if err := t.spool.write(head); err != nil {
				return err
			}
		}
	}
	if l.mode == 't' {
		return t.spool.write(p)
	}
	if l.b64bad {
		return nil
	}
	for len(p) > 0 && t.form.lineBreaks { // (base64 decoding ignores CR and LF)
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			break
		}
		l.b64 = append(l.b64, p[:i]...)
		p = p[i+1:]
	}
	l.b64 = append(l.b64, p...)
	if len(l.b64) <= t.lim.drainChunk {
		return nil
	}
	return t.binaryPiece(false)
}

// binaryPiece decodes the binary text of a long string kept so far into the
// spool: all of it at the end of the string, else all but the last quantum
// (the only one that may hold padding).
func (t *toBencode) binaryPiece(end bool) error {
	l := &t.long
	m := len(l.b64)
	if !end {
		q := t.form.quantum
		m = (m - 1) / q * q
		if t.form.padding != 0 && bytes.IndexByte(l.b64[:m], t.form.padding) >= 0 {
			l.b64bad = true
			return nil
		}
	}
	var err error
	if t.buf, err = t.form.decode(t.buf[:0], l.b64[:m]); err != nil {
		l.b64bad = true
		return nil
	}
	l.b64 = l.b64[:copy(l.b64, l.b64[m:])]
	return t.spool.write(t.buf)
}

func (t *toBencode) token(tok Token) error {
	switch tok.Kind {
	case Integer:
		t.held = append(t.held, 'i')
		t.held = append(t.held, tok.Value...)
		t.held = append(t.held, 'e')
	case Key:
		if !t.opts.Lenient {
			d := &t.dicts[len(t.dicts)-1]
			d.entries = append(d.entries, entry{at: len(t.held), offset: tok.Offset})
		}
		return t.str(tok)
	case String:
		return t.str(tok)
	case ListStart:
		t.held = append(t.held, 'l')
	case DictStart:
		t.held = append(t.held, 'd')
		if !t.opts.Lenient {
			n := len(t.dicts)
			t.dicts = slices.Grow(t.dicts, 1)[:n+1]
			t.dicts[n].entries = t.dicts[n].entries[:0]
		}
	case End:
		if !t.opts.Lenient && t.scan.closed == '{' {
			if err := t.sortDict(); err != nil {
				return err
			}
			t.dicts = t.dicts[:len(t.dicts)-1]
		}
		t.held = append(t.held, 'e')
	}
	return nil
}

// str appends the bencoded string a JSON string stands for.
func (t *toBencode) str(tok Token) error {
	b := tok.Value
	if bytes.HasPrefix(b, []byte(t.form.prefix)) {
		var err error
		if t.tmp, err = t.form.decode(t.tmp[:0], b[len(t.form.prefix):]); err != nil {
			return t.badBinary(tok.Offset)
		}
		b = t.tmp
	}
	if len(b) > t.lim.longString || len(b) >= t.lim.heldSpoolMin && len(t.held) > t.lim.heldBudget && len(t.dicts) > 0 {
		off := t.spool.len()
		if err := t.spool.write(b); err != nil {
			return err
		}
		t.spoolSegment(off, false)
		return nil
	}
	t.held = strconv.AppendInt(t.held, int64(len(b)), 10)
	t.held = append(t.held, ':')
	t.held = append(t.held, b...)
	return nil
}

// sortDict puts the entries of the innermost dictionary, which ends here, in
// key order.
func (t *toBencode) sortDict() error {
	es := t.dicts[len(t.dicts)-1].entries
	if len(es) == 0 {
		return nil
	}
	sorted := true
	for i := range es {
		es[i].end = len(t.held)
		if i+1 < len(es) {
			es[i].end = es[i+1].at
		}
		if i > 0 && t.compareKeys(es[i-1].at, es[i].at) >= 0 {
			sorted = false
		}
	}
	if t.ioErr != nil {
		return t.ioErr
	}
	if sorted {
		return nil
	}
	slices.SortStableFunc(es, func(a, b entry) int {
		return t.compareKeys(a.at, b.at)
	})
	for i := 1; i < len(es); i++ {
		if t.compareKeys(es[i-1].at, es[i].at) == 0 && t.ioErr == nil {
			off := max(es[i-1].offset, es[i].offset)
			return t.scan.failAt(off, "duplicate object key %s", t.keyText(es[i].at))
		}
	}
	if t.ioErr != nil {
		return t.ioErr
	}
	first := slices.MinFunc(es, func(a, b entry) int { return a.at - b.at }).at
	t.tmp = append(t.tmp[:0], t.held[first:]...)
	w := first
	for _, e := range es {
		w += copy(t.held[w:], t.tmp[e.at-first:e.end-first])
	}
	return nil
}

// heldKey returns the bytes of the bencoded string at held[at:], or, when a
// mark is there, nil and the segment's index (else -1).
func heldKey(held []byte, at int) ([]byte, int) {
	if held[at] == segMark {
		return nil, markSegment(held[at:])
	}
	colon := at + bytes.IndexByte(held[at:], ':')
	n, _ := strconv.Atoi(string(held[at:colon]))
	return held[colon+1 : colon+1+n], -1
}

// compareKeys compares the keys at held[a:] and held[b:], as bytes.Compare
// does. A spool error ends the comparison and waits in t.ioErr.
func (t *toBencode) compareKeys(a, b int) int {
	ka, sa := heldKey(t.held, a)
	kb, sb := heldKey(t.held, b)
	if sa < 0 && sb < 0 {
		return bytes.Compare(ka, kb)
	}
	la, lb := t.keyLen(ka, sa), t.keyLen(kb, sb)
	const piece = 4096
	for i := int64(0); i < min(la, lb); i += piece {
		k := min(piece, la-i, lb-i)
		pa, err := t.keyPiece(ka, sa, i, k, &t.buf)
		if err != nil {
			t.ioErr = err
			return 0
		}
		pb, err := t.keyPiece(kb, sb, i, k, &t.buf2)
		if err != nil {
			t.ioErr = err
			return 0
		}
		if c := bytes.Compare(pa, pb); c != 0 {
			return c
		}
	}
	return cmp.Compare(la, lb)
}

func (t *toBencode) keyLen(k []byte, seg int) int64 {
	if seg < 0 {
		return int64(len(k))
	}
	return t.segs[seg].n
}

// keyPiece returns the n bytes from byte i on of key k, or of segment seg,
// read into *buf.
func (t *toBencode) keyPiece(k []byte, seg int, i, n int64, buf *[]byte) ([]byte, error) {
	if seg < 0 {
		return k[i : i+n], nil
	}
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	return b, t.spool.readAt(b, t.segs[seg].off+i)
}

// keyText quotes the key at held[at:] for an error message.
func (t *toBencode) keyText(at int) string {
	k, seg := heldKey(t.held, at)
	n := t.keyLen(k, seg)
	head, err := t.keyPiece(k, seg, 0, min(n, maxQuotedKey), &t.buf)
	if err != nil {
		return "(unreadable)"
	}
	return keyText(head, n)
}
