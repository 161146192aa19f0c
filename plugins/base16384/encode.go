package base16384

import "github.com/b14fs/b14fs/plugins/base16384/internal/kernel"

// A config holds a codec's options.
type config struct {
	utf8        bool // write the UTF-8 form instead of raw UTF-16BE
	bom         bool // write a byte order mark first
	strict      bool // reject non-zero pad bits and line breaks
	checksum    bool // write and verify the C CLI's checksum in the pad bits
	wrap        int  // write a line break after every wrap units (UTF-8 form), 0: none
	newline     bool // end the UTF-8 form with a line break
	newlineOff  bool // the options said newline=false: Text adds no line break
	skipGarbage bool // skip bytes outside the alphabet when decoding the UTF-8 form
	// pinned makes decoders take the form utf8 says, with no byte order
	// mark, rather than telling it from the first bytes (a stream started
	// at a block: Codec.NewFormDecodeReader).
	pinned bool
}

// plain reports whether c encodes to the raw form without a byte order mark
// or a checksum: the reference's bytes, what the fast path of encodeTo
// writes.
func (c config) plain() bool { return !c.utf8 && !c.bom && !c.checksum }

// header returns the byte order mark the encoder writes first, if any.
func (c config) header() []byte {
	switch {
	case !c.bom:
		return nil
	case c.utf8:
		return []byte{0xEF, 0xBB, 0xBF}
	}
	return []byte{0xFE, 0xFF}
}

// encodedLen returns the length of the encoding of n bytes, without a byte
// order mark and line breaks.
func (c config) encodedLen(n int64) int64 {
	if c.utf8 {
		return 3 * encodedUnits(n)
	}
	return 2 * encodedUnits(n)
}

// bodyLen returns the length of the encoding of n bytes, line breaks
// included, without a byte order mark.
func (c config) bodyLen(n int64) int64 { return c.encodedLen(n) + c.lineBreaks(n) }

// An encodeState encodes one stream: whole groups as they come, then the
// tail. The zero value encodes raw UTF-16BE without a checksum.
type encodeState struct {
	cfg config
	sum uint32 // the running checksum when cfg.checksum
}

func newEncodeState(cfg config) encodeState {
	return encodeState{cfg: cfg, sum: checksumInit}
}

// encode encodes the whole of src (groups and tail) into dst, which has room
// for cfg.encodedLen(len(src)) bytes, and returns the bytes written.
func (e *encodeState) encode(dst, src []byte) int {
	whole := len(src) / 7 * 7
	n := e.groups(dst, src[:whole])
	return n + e.tail(dst[n:], src[whole:])
}

// groups encodes src, a whole number of 7-byte groups, into dst and returns
// the bytes written.
func (e *encodeState) groups(dst, src []byte) int {
	if e.cfg.checksum {
		e.sum = checksum(e.sum, src)
	}
	g := len(src) / 7
	if !e.cfg.utf8 {
		kernel.Encode(dst[:8*g], src)
		return 8 * g
	}
	// Encode raw into the end of the UTF-8 output, then widen in place.
	raw := dst[4*g : 12*g]
	kernel.Encode(raw, src)
	expandUTF8(dst, raw)
	return 12 * g
}

// tail encodes the last len(src) < 7 bytes of the stream and the end marker
// into dst and returns the bytes written. With checksums on, the pad bits hold
// the top bits of the checksum, as the C CLI writes them.
func (e *encodeState) tail(dst, src []byte) int {
	r := len(src)
	if r == 0 {
		return 0
	}
	v := packTail(src)
	k := tailUnits[r]
	if e.cfg.checksum {
		e.sum = checksum(e.sum, src)
		v |= uint64(e.sum>>(32-padBits[r])) << (56 - 14*k)
	}
	n := 0
	for i := 0; i < k; i++ {
		n += putUnit(dst[n:], groupUnit(v, i), e.cfg.utf8)
	}
	return n + putUnit(dst[n:], markerHi<<8|uint16(r), e.cfg.utf8)
}
