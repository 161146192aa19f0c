package bencode

import (
	"errors"
	"io"
)

// RawMessage is the exact bytes of one bencoded value. Decoding into a
// RawMessage keeps a value undecoded (such as a torrent's info dictionary,
// whose SHA-1 is the info-hash); encoding one writes its bytes unchanged,
// after checking that they are one value.
type RawMessage []byte

var errEmptyRaw = errors.New("bencode: empty RawMessage")

// MarshalBencode returns m; an empty m is an error, since no value is empty.
func (m RawMessage) MarshalBencode() ([]byte, error) {
	if len(m) == 0 {
		return nil, errEmptyRaw
	}
	return m, nil
}

// UnmarshalBencode sets *m to a copy of data.
func (m *RawMessage) UnmarshalBencode(data []byte) error {
	*m = append((*m)[:0], data...)
	return nil
}

// checkValue reports whether data is exactly one bencoded value, accepting
// keys in any order (a RawMessage may come from lenient input), but not the
// whitespace before or after the value that lenient input may have: data
// copied into an encoding as it is must be the value alone.
func checkValue(data []byte) error {
	var s Scanner
	around := int64(-1) // the offset of the first byte around the value
	s.init(DecodeOptions{Lenient: true, Warn: func(w Warning) {
		if around < 0 {
			around = w.Offset
		}
	}}, false)
	s.setData(data, 0, true)
	s.fixed = true
	for {
		_, err := s.Next()
		switch {
		case err == io.EOF && around >= 0:
			return s.failAt(around, "whitespace around the value")
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}
