package base16384

// EncodeToString returns the encoding of b as UTF-8 text: the units of
// Encode(b), 3 bytes each, without a byte order mark.
func EncodeToString(b []byte) string {
	cfg := config{utf8: true}
	out := make([]byte, cfg.encodedLen(int64(len(b))))
	e := encodeState{cfg: cfg}
	e.encode(out, b)
	return string(out)
}

// EncodeString returns the encoding of the bytes of s as UTF-8 text.
func EncodeString(s string) string { return EncodeToString([]byte(s)) }

// EncodeFromString returns the raw UTF-16BE encoding of the bytes of s.
func EncodeFromString(s string) []byte { return Encode([]byte(s)) }

// DecodeToString returns the decoding of b as a string, or "" when b is not
// a valid encoding.
func DecodeToString(b []byte) string { return string(Decode(b)) }

// DecodeFromString returns the decoding of the encoded text s (UTF-8 or raw),
// or nil when s is not a valid encoding.
func DecodeFromString(s string) []byte { return Decode([]byte(s)) }

// DecodeString returns the decoding of the encoded text s (UTF-8 or raw) as a
// string, or "" when s is not a valid encoding.
func DecodeString(s string) string { return string(Decode([]byte(s))) }
