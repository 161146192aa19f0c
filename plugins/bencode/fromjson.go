package bencode

import (
	"bytes"
	"encoding/base64"
	"io"
	"slices"
	"strconv"
)

// toBencode transcodes JSON into bencode, the inverse of toJSON. In strict
// mode it sorts each object's keys (an object with a repeated key is an
// error), so the output is canonical bencode; in lenient mode it keeps keys
// as they come. Output waits in held while a dictionary that may need sorting
// is open.
type toBencode struct {
	opts  DecodeOptions
	scan  jsonScanner
	held  []byte
	dicts []openDict // the open dictionaries, innermost last (strict mode)
	tmp   []byte
}

// openDict is an open dictionary's entries, by where each starts in held.
type openDict struct {
	entries []entry
}

type entry struct {
	at, end int   // the entry's key and value are held[at:end]
	offset  int64 // the key's input offset
}

func newToBencode(o DecodeOptions) *toBencode {
	t := &toBencode{opts: o}
	t.reset()
	return t
}

func (t *toBencode) reset() {
	t.scan = jsonScanner{stack: t.scan.stack[:0], buf: t.scan.buf[:0]}
	t.scan.init(t.opts, t.opts.Lenient)
	t.held, t.dicts = t.held[:0], t.dicts[:0]
}

func (t *toBencode) transcode(out, in []byte, atEOF bool) ([]byte, int, error) {
	t.scan.setData(in, t.scan.base, atEOF)
	var err error
	for err == nil {
		var tok Token
		if tok, err = t.scan.next(); err == nil {
			err = t.token(tok)
		}
	}
	n := t.scan.off
	t.scan.base += int64(n)
	if len(t.dicts) == 0 {
		out = append(out, t.held...)
		t.held = t.held[:0]
	}
	if err == errShort || err == io.EOF {
		err = nil
	}
	return out, n, err
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
	if bytes.HasPrefix(b, []byte(binaryPrefix)) {
		var err error
		if t.tmp, err = base64.StdEncoding.Strict().AppendDecode(t.tmp[:0], b[len(binaryPrefix):]); err != nil {
			return t.scan.fail(int(tok.Offset-t.scan.base), "invalid base64 after %q", binaryPrefix)
		}
		b = t.tmp
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
		if i > 0 && bytes.Compare(heldKey(t.held, es[i-1].at), heldKey(t.held, es[i].at)) >= 0 {
			sorted = false
		}
	}
	if sorted {
		return nil
	}
	slices.SortStableFunc(es, func(a, b entry) int {
		return bytes.Compare(heldKey(t.held, a.at), heldKey(t.held, b.at))
	})
	for i := 1; i < len(es); i++ {
		if bytes.Equal(heldKey(t.held, es[i-1].at), heldKey(t.held, es[i].at)) {
			off := max(es[i-1].offset, es[i].offset)
			return t.scan.fail(int(off-t.scan.base), "duplicate object key %q", heldKey(t.held, es[i].at))
		}
	}
	first := slices.MinFunc(es, func(a, b entry) int { return a.at - b.at }).at
	t.tmp = append(t.tmp[:0], t.held[first:]...)
	w := first
	for _, e := range es {
		w += copy(t.held[w:], t.tmp[e.at-first:e.end-first])
	}
	return nil
}

// heldKey returns the bytes of the bencoded string at held[at:].
func heldKey(held []byte, at int) []byte {
	colon := at + bytes.IndexByte(held[at:], ':')
	n, _ := strconv.Atoi(string(held[at:colon]))
	return held[colon+1 : colon+1+n]
}
