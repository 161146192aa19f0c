package bencode

import "math/big"

// anyFrom decodes the value begun by tok as an int64 (a *big.Int beyond 64
// bits), a []byte, a []any or a map[string]any. It keeps its own stack
// instead of recursing, so deep input costs heap, not goroutine stack.
func (d *decodeState) anyFrom(tok Token) (any, error) {
	type open struct {
		list []any
		dict map[string]any
		key  string
	}
	var stack []open
	for {
		var v any
		switch tok.Kind {
		case Integer:
			if v = anyInt(tok.Value); v == nil {
				return nil, d.typeError(tok, bigIntPtrType)
			}
		case String:
			v = d.bytes(tok.Value)
		case Key:
			stack[len(stack)-1].key = d.keys.intern(tok.Value)
		case ListStart:
			stack = append(stack, open{list: make([]any, 0, 4)}) // from 4, then doubling
		case DictStart:
			stack = append(stack, open{dict: map[string]any{}})
		case End:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.dict != nil {
				v = top.dict
			} else {
				v = top.list
			}
		}
		if v != nil {
			if len(stack) == 0 {
				return v, nil
			}
			top := &stack[len(stack)-1]
			if top.dict != nil {
				top.dict[top.key] = v
			} else {
				top.list = append(top.list, v)
			}
		}
		if err := d.scan.read(&tok); err != nil {
			return nil, err
		}
	}
}

// anyInt returns the value of an Integer token's digits as an int64, or a
// *big.Int when it does not fit, or nil when it has more than maxBigDigits.
func anyInt(digits []byte) any {
	if n, ok := parseInt(digits); ok {
		return n
	}
	if len(digits) > maxBigDigits {
		return nil
	}
	n, _ := new(big.Int).SetString(string(digits), 10)
	return n
}

// A keyCache holds recently seen dictionary keys, so that the keys repeated
// in a list of dictionaries (such as a torrent's files) share one string.
type keyCache [64]string

// intern returns b as a string, from the cache when it is there.
func (c *keyCache) intern(b []byte) string {
	if len(b) == 0 || len(b) > 32 {
		return string(b)
	}
	h := (len(b)*7 + int(b[0])*31 + int(b[len(b)-1])) % len(c)
	if c[h] != string(b) {
		c[h] = string(b)
	}
	return c[h]
}
