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
// keys in any order (a RawMessage may come from lenient input).
func checkValue(data []byte) error {
	var s Scanner
	s.init(DecodeOptions{Lenient: true}, false)
	s.setData(data, 0, true)
	s.fixed = true
	for {
		if _, err := s.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}
