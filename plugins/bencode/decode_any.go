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
			v = anyInt(tok.Value)
		case String:
			v = d.bytes(tok.Value)
		case Key:
			stack[len(stack)-1].key = string(tok.Value)
		case ListStart:
			stack = append(stack, open{list: []any{}})
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
		var err error
		if tok, err = d.nextToken(); err != nil {
			return nil, err
		}
	}
}

// anyInt returns the value of an Integer token's digits as an int64, or a
// *big.Int when it does not fit.
func anyInt(digits []byte) any {
	if n, ok := parseInt(digits); ok {
		return n
	}
	n, _ := new(big.Int).SetString(string(digits), 10)
	return n
}
