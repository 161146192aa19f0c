package bencode

import (
	"bytes"
	"encoding/base64"
	"io"
	"unicode/utf8"
)

// binaryPrefix starts the JSON form of a string that is not UTF-8 text (or
// that starts with binaryPrefix itself): the prefix, then the string's bytes
// in standard base64 with padding.
const binaryPrefix = "base64:"

// toJSON transcodes bencode into JSON: one line of JSON per top-level value.
type toJSON struct {
	opts    DecodeOptions
	scan    Scanner
	closers []byte // ']' or '}' for each open container
	items   []bool // whether each open container has an item yet
}

func newToJSON(o DecodeOptions) *toJSON {
	t := &toJSON{opts: o}
	t.reset()
	return t
}

func (t *toJSON) reset() {
	t.scan = Scanner{stack: t.scan.stack[:0], keys: t.scan.keys[:0]}
	t.scan.init(t.opts, t.opts.Lenient)
	t.closers, t.items = t.closers[:0], t.items[:0]
}

func (t *toJSON) transcode(out, in []byte, atEOF bool) ([]byte, int, error) {
	t.scan.setData(in, t.scan.base, atEOF)
	var tok Token
	var err error
	for {
		if err = t.scan.read(&tok); err != nil {
			break
		}
		out = t.token(out, &tok)
	}
	n := t.scan.off
	t.scan.base += int64(n)
	if err == errShort || err == io.EOF {
		err = nil
	}
	return out, n, err
}

func (t *toJSON) token(out []byte, tok *Token) []byte {
	top := len(t.closers) - 1
	switch tok.Kind {
	case Key:
		if t.items[top] {
			out = append(out, ',')
		}
		t.items[top] = true
		out = appendJSONString(out, tok.Value)
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
		out = appendJSONString(out, tok.Value)
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
// of the same text, or binaryPrefix and base64.
func appendJSONString(out, b []byte) []byte {
	out = append(out, '"')
	if !utf8.Valid(b) || bytes.HasPrefix(b, []byte(binaryPrefix)) {
		out = append(out, binaryPrefix...)
		out = base64.StdEncoding.AppendEncode(out, b)
		return append(out, '"')
	}
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
	out = append(out, b[start:]...)
	return append(out, '"')
}

const hexDigits = "0123456789abcdef"
