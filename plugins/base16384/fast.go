package base16384

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/b14fs/b14fs/plugins/base16384/internal/kernel"
)

// The one-shot functions (EncodeTo, DecodeTo, the Encoding methods and the
// string forms) encode and decode whole buffers through encodeStd,
// decodeStd, encodeRaw and decodeRaw: on amd64 the assembly of
// raw_amd64.s, which does small inputs in the raw form in one call without
// a frame and jumps to the Go functions here for the rest; elsewhere these
// Go functions. They run the block kernels from kernelGroups groups, and
// below that one loop without calls whose few word operations take less
// time than a call would. Decoding here recognizes valid input only: on
// anything else, or a destination too small, it hands the whole input to
// decodeState, which finds the first fault and its offset. So errors are
// those of the streams.
//
// The package functions and the Encoding methods are wrappers of one call
// each, which inline: the whole job costs one call.

// kernelGroups is the number of whole groups from which the Go code here
// hands them to the block kernels: a step of the AVX-512 and NEON kernels,
// below which they give the groups to the generic code anyway (and the AVX2
// kernel takes 4).
const kernelGroups = 8

// be is the byte order of the units.
var be = binary.BigEndian

// tailBytes[r] is the length of the raw encoding of a tail of r bytes, its
// end marker included; the index is masked with 7.
var tailBytes = [8]int{0, 4, 6, 6, 8, 8, 10, 0}

// tailUnitCount returns tailUnits[r] without a table, for r = 1..6.
func tailUnitCount(r int) int { return (r + 2) >> 1 }

// encodeStdGo is encodeStd in Go: encoding with StdEncoding's options.
func encodeStdGo(dst, src []byte) (int, error) { return std.encodeTo(dst, src) }

// decodeStdGo is decodeStd in Go: decoding with StdEncoding's options.
func decodeStdGo(dst, src []byte) (int, error) { return std.decodeTo(dst, src) }

// encodeRawGo is encodeRaw in Go: e.encodeTo.
func encodeRawGo(e *Encoding, dst, src []byte) (int, error) { return e.encodeTo(dst, src) }

// decodeRawGo is decodeRaw in Go: e.decodeTo.
func decodeRawGo(e *Encoding, dst, src []byte) (int, error) { return e.decodeTo(dst, src) }

// appendEncodeGo is appendEncode in Go: AppendEncode.
func appendEncodeGo(e *Encoding, dst, src []byte) []byte {
	n := EncodeLen(len(src)) // inlined for the raw form, StdEncoding's
	if !e.cfg.plain() {
		n = e.EncodedLen(len(src))
	}
	dst = slices.Grow(dst, n)
	encodeRaw(e, dst[len(dst):len(dst)+n], src)
	return dst[:len(dst)+n]
}

// appendDecodeGo is appendDecode in Go: AppendDecode.
func appendDecodeGo(e *Encoding, dst, src []byte) ([]byte, error) {
	if cap(dst)-len(dst) < decodeRoom(src) {
		// Grow by what the decoding needs, not by the bound.
		n, err := e.DecodedLen(src)
		if err != nil {
			return dst, e.firstError(src, err)
		}
		dst = slices.Grow(dst, n)
	}
	// Decode into all the room: the bytes past the decoding that the
	// fast path writes are free.
	n, err := decodeRaw(e, dst[len(dst):cap(dst)], src)
	if err != nil {
		return dst, err
	}
	return dst[:len(dst)+n], nil
}

// encodeTo writes the encoding of src to dst and returns the bytes written,
// or an error wrapping io.ErrShortBuffer when dst is shorter than
// EncodedLen(len(src)).
func (e *Encoding) encodeTo(dst, src []byte) (int, error) {
	if e.cfg.utf8 || e.cfg.bom || e.cfg.checksum {
		return e.encodeText(dst, src)
	}
	n := len(src)
	g := n / 7
	r := n - 7*g
	size := 8*g + tailBytes[r&7]
	if len(dst) < size {
		return 0, shortBuffer("EncodeTo", size, len(dst))
	}
	if g >= kernelGroups {
		return e.encodeLarge(dst, src, g)
	}
	// The groups that a byte follows, 8 bytes loaded a group. (The slices
	// name their ends: see decodeTo.)
	last := g
	if r == 0 {
		last--
	}
	for i := 0; i < last; i++ {
		be.PutUint64(dst[8*i:8*i+8], kernel.Units(be.Uint64(src[7*i:7*i+8])))
	}
	if r == 0 {
		if g > 0 {
			// The last group, loaded to the end of src.
			var x uint64
			if n >= 8 {
				x = be.Uint64(src[n-8:n]) << 8
			} else {
				// Two loads that agree on byte 3.
				x = uint64(be.Uint32(src[0:4]))<<32 | uint64(be.Uint32(src[3:7]))<<8
			}
			be.PutUint64(dst[8*last:8*last+8], kernel.Units(x))
		}
		return size, nil
	}
	// The tail: its r bytes at the top of the word, zeros below.
	var x uint64
	switch {
	case n >= 8:
		x = be.Uint64(src[n-8:n]) << ((64 - 8*uint(r)) & 63)
	case r >= 4:
		// Two loads that overlap unless r is 4, and agree where they do.
		x = uint64(be.Uint32(src[0:4]))<<32 | uint64(be.Uint32(src[r-4:r]))<<((64-8*uint(r))&63)
	case r >= 2:
		x = uint64(be.Uint16(src[0:2]))<<48 | uint64(be.Uint16(src[r-2:r]))<<((64-8*uint(r))&63)
	default:
		x = uint64(src[0]) << 56
	}
	w := kernel.Units(x)
	o := 8 * g
	if r == 6 {
		be.PutUint64(dst[o:o+8], w)
		be.PutUint16(dst[o+8:o+10], markerHi<<8|6)
		return size, nil
	}
	// The k units, then the marker, at the top of the word: 4, 6 or 8
	// bytes.
	s := (64 - 16*uint(tailUnitCount(r))) & 63
	w = w>>s<<s | uint64(markerHi<<8|r)<<((s-16)&63)
	if size-o == 8 {
		be.PutUint64(dst[o:o+8], w)
		return size, nil
	}
	be.PutUint32(dst[o:o+4], uint32(w>>32))
	if size-o == 6 {
		be.PutUint16(dst[o+4:o+6], uint16(w>>16))
	}
	return size, nil
}

// encodeLarge is encodeTo for g >= kernelGroups groups in the raw form.
func (e *Encoding) encodeLarge(dst, src []byte, g int) (int, error) {
	kernel.Encode(dst, src[:7*g])
	n, err := e.encodeTo(dst[8*g:], src[7*g:])
	return 8*g + n, err
}

// encodeText is encodeTo for the options other than the plain raw form.
func (e *Encoding) encodeText(dst, src []byte) (int, error) {
	if size := e.EncodedLen(len(src)); len(dst) < size {
		return 0, shortBuffer("Encode", size, len(dst))
	}
	enc := newEncodeState(e.cfg)
	if e.cfg.wrap == 0 && !e.cfg.newline {
		n := copy(dst, e.cfg.header())
		return n + enc.encode(dst[n:], src), nil
	}
	// Encode into the end of the room, then move it forward, putting the
	// line breaks in.
	total := e.EncodedLen(len(src))
	units := dst[total-int(e.cfg.encodedLen(int64(len(src)))) : total]
	enc.encode(units, src)
	h := copy(dst, e.cfg.header())
	lines := newLineState(e.cfg)
	lines.header = 0
	n, _ := lines.fill(dst[h:], units)
	return h + n + lines.end(dst[h+n:]), nil
}

// errNotFast is what decodeTo returns, for the receivers in fastOnly, where
// decodeState has to find the error.
var errNotFast = errors.New("base16384: not decoded by the fast path")

// fastOnly are receivers for decodeTo that decode only what its own words
// decode, and return errNotFast for anything else, ignoring non-zero pad
// bits (the first) or rejecting them (the second): for the tail after the
// groups the kernel decoded, and for the units after a byte order mark,
// whose errors the whole input's decoding reports.
var fastOnly = [2]Encoding{{}, {cfg: config{strict: true}}}

// only returns the receiver in fastOnly with e's strictness.
func (e *Encoding) only() *Encoding {
	if e.cfg.strict {
		return &fastOnly[1]
	}
	return &fastOnly[0]
}

// decodeTo decodes src into dst and returns the decoded length: the raw form
// without a byte order mark here, the rest (the UTF-8 form, a byte order
// mark, invalid input, a destination too small) by decodeOther.
//
// The slices here name their ends (s[i:i+8], not s[i:]) so that the
// compiler computes neither a capacity nor a mask for them, and the
// registers suffice.
func (e *Encoding) decodeTo(dst, src []byte) (int, error) {
	n := len(src)
	if n < 4 || n&1 != 0 || e.cfg.checksum {
		if n == 0 {
			return 0, nil
		}
		return e.decodeOther(dst, src)
	}
	// The shape from the length and the end marker: g groups, then r
	// bytes in k data units and the marker.
	m := be.Uint16(src[n-2 : n])
	g, r := n>>3, 0
	if m>>8 == markerHi {
		r = int(m & 0xFF)
		body := n - 2 - 2*tailUnitCount(r)
		if uint(r-1) >= 6 || body < 0 || body&7 != 0 {
			return e.decodeOther(dst, src)
		}
		g = body >> 3
	} else if n&7 != 0 {
		return e.decodeOther(dst, src)
	}
	size := 7*g + r
	if len(dst) < size {
		return e.decodeOther(dst, src)
	}
	if g >= kernelGroups {
		return e.decodeLarge(dst, src, g)
	}
	// A group's units, less UnitBase, have BadBits set if any unit is
	// outside U+4E00..U+8DFF. A group is stored as 8 bytes where there is
	// room for them: all but the last.
	for i := 0; i < g-1; i++ {
		w := be.Uint64(src[8*i:8*i+8]) - kernel.UnitBase
		if w&kernel.BadBits != 0 {
			return e.decodeOther(dst, src)
		}
		be.PutUint64(dst[7*i:7*i+8], kernel.Fields(w))
	}
	if g > 0 {
		w := be.Uint64(src[8*g-8:8*g]) - kernel.UnitBase
		if w&kernel.BadBits != 0 {
			return e.decodeOther(dst, src)
		}
		v := kernel.Fields(w)
		if o := 7*g - 7; len(dst) >= o+8 {
			be.PutUint64(dst[o:o+8], v)
		} else {
			be.PutUint32(dst[o:o+4], uint32(v>>32))
			be.PutUint16(dst[o+4:o+6], uint16(v>>16))
			dst[o+6] = byte(v >> 8)
		}
	}
	if r == 0 {
		return size, nil
	}
	// The tail: the k data units before the marker at the top of the
	// word, zeros below.
	var x uint64
	sh := (64 - 16*uint(tailUnitCount(r))) & 63
	switch n {
	case 4:
		x = uint64(be.Uint16(src[0:2])) << 48
	case 6:
		x = uint64(be.Uint32(src[0:4])) << 32
	case 8:
		x = be.Uint64(src[0:8]) >> 16 << 16
	default:
		x = be.Uint64(src[n-10:n-2]) << sh
	}
	w := x - kernel.UnitBase>>sh<<sh
	v := kernel.Fields(w)
	// The pad bits are all the bits past the tail's r bytes.
	if w&kernel.BadBits != 0 || e.cfg.strict && v<<((8*uint(r))&63) != 0 {
		return e.decodeOther(dst, src)
	}
	o := 7 * g
	if len(dst) >= o+8 {
		be.PutUint64(dst[o:o+8], v)
		return size, nil
	}
	if r&4 != 0 {
		be.PutUint32(dst[o:o+4], uint32(v>>32))
		o, v = o+4, v<<32
	}
	if r&2 != 0 {
		be.PutUint16(dst[o:o+2], uint16(v>>48))
		o, v = o+2, v<<16
	}
	if r&1 != 0 {
		dst[o] = byte(v >> 56)
	}
	return size, nil
}

// decodeLarge is decodeTo for g >= kernelGroups groups.
func (e *Encoding) decodeLarge(dst, src []byte, g int) (int, error) {
	if kernel.Decode(dst, src[:8*g]) == g {
		if n, err := e.only().decodeTo(dst[7*g:], src[8*g:]); err == nil {
			return 7*g + n, nil
		}
	}
	return e.decodeOther(dst, src)
}

// decodeOther decodes src where the raw path of decodeTo did not: a byte
// order mark is skipped and the UTF-8 form decoded here, anything else by
// decodeState. The receivers in fastOnly return errNotFast instead.
func (e *Encoding) decodeOther(dst, src []byte) (int, error) {
	switch {
	case e == &fastOnly[0] || e == &fastOnly[1]:
		return 0, errNotFast
	case e.cfg.checksum || len(src) == 0:
	case len(src) >= 2 && src[0] == 0xFE && src[1] == 0xFF:
		if n, err := e.only().decodeTo(dst, src[2:]); err == nil {
			return n, nil
		}
	case src[0]&0xF0 == 0xE0:
		if n := decodeUTF8(dst, src, e.cfg.strict); n >= 0 {
			return n, nil
		}
	}
	return e.decodeSlow(dst, src)
}

// decodeSlow decodes src with decodeState.
func (e *Encoding) decodeSlow(dst, src []byte) (int, error) {
	n, err := e.DecodedLen(src)
	if err != nil {
		return 0, e.firstError(src, err)
	}
	if len(dst) < n {
		return 0, shortBuffer("Decode", n, len(dst))
	}
	d := newDecodeState(e.cfg)
	if _, _, err := d.decode(dst[:n], src, true); err != nil {
		return 0, err
	}
	return n, nil
}

// decodeRoom returns room enough for the decoding of src: MaxDecodedLen,
// less when src starts as the UTF-8 form does.
func decodeRoom(src []byte) int {
	if len(src) > 0 && src[0]&0xF0 == 0xE0 {
		return len(src)/12*7 + 7
	}
	return maxDecodedLen(len(src))
}

// utf8Units returns the four units of the UTF-8 form at the start of s (12
// bytes) as a word, first unit at the top, and a word that is not zero when
// the bytes are not four 3-byte sequences. It does not check the units.
func utf8Units(s []byte) (units, bad uint64) {
	a := be.Uint64(s)             // units 0 and 1, 2 bytes of unit 2
	b := uint64(be.Uint32(s[8:])) // the last byte of unit 2, unit 3
	bad = (a&0xF0C0C0F0C0C0F0C0 ^ 0xE08080E08080E080) | (b&0xC0F0C0C0 ^ 0x80E08080)
	u0 := a>>56&0x0F<<12 | a>>48&0x3F<<6 | a>>40&0x3F
	u1 := a>>32&0x0F<<12 | a>>24&0x3F<<6 | a>>16&0x3F
	u2 := a>>8&0x0F<<12 | a&0x3F<<6 | b>>24&0x3F
	u3 := b>>16&0x0F<<12 | b>>8&0x3F<<6 | b&0x3F
	return u0<<48 | u1<<32 | u2<<16 | u3, bad
}

// utf8UnitWord returns the unit of the 3-byte UTF-8 sequence at the start
// of s, and a word that is not zero when it is no such sequence.
func utf8UnitWord(s []byte) (unit, bad uint64) {
	x := uint64(s[0])<<16 | uint64(s[1])<<8 | uint64(s[2])
	return x>>16&0x0F<<12 | x>>8&0x3F<<6 | x&0x3F, x&0xF0C0C0 ^ 0xE08080
}

// decodeUTF8 decodes src, the UTF-8 form, into dst and returns the decoded
// length, or -1 when it is not a valid encoding without line breaks but at
// its end (skipped unless strict), or dst is too small.
func decodeUTF8(dst, src []byte, strict bool) int {
	n := len(src)
	start := 0
	if n >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		start = 3
	}
	if !strict {
		for n > start && isLineBreak(src[n-1]) {
			n--
		}
	}
	s := src[start:n]
	if len(s)%3 != 0 {
		return -1
	}
	units := len(s) / 3
	if units == 0 {
		return 0
	}
	r := 0
	if u := utf8Unit(s[len(s)-3:]); u>>8 == markerHi {
		r = int(u & 0xFF)
		if uint(r-1) >= 6 {
			return -1
		}
		units -= 1 + tailUnitCount(r)
	}
	if units < 0 || units%4 != 0 {
		return -1
	}
	g := units / 4
	size := 7*g + r
	if len(dst) < size {
		return -1
	}
	var bad uint64
	for i := 0; i < g; i++ {
		u, b := utf8Units(s[12*i:])
		w := u - kernel.UnitBase
		bad |= b | w&kernel.BadBits
		v := kernel.Fields(w)
		if d := dst[7*i:]; len(d) >= 8 {
			be.PutUint64(d, v)
		} else {
			be.PutUint32(d, uint32(v>>32))
			be.PutUint16(d[4:], uint16(v>>16))
			d[6] = byte(v >> 8)
		}
	}
	if r != 0 {
		// The k data units, with UnitBase in the lanes past them.
		t := s[12*g:]
		x := uint64(kernel.UnitBase)
		for j := range tailUnitCount(r) {
			u, b := utf8UnitWord(t[3*j:])
			bad |= b
			sh := 48 - 16*uint(j)
			x = x&^(0xFFFF<<sh) | u<<sh
		}
		w := x - kernel.UnitBase
		bad |= w & kernel.BadBits
		v := kernel.Fields(w)
		if strict && v<<((8*uint(r))&63) != 0 {
			return -1
		}
		for j := range r {
			dst[7*g+j] = byte(v >> (56 - 8*uint(j)))
		}
	}
	if bad != 0 {
		return -1
	}
	return size
}

// utf8Seq returns the 3-byte UTF-8 sequence of the unit u (U+0800..U+FFFF)
// in the low 24 bits.
func utf8Seq(u uint64) uint64 { return 0xE08080 | u>>12<<16 | u>>6&0x3F<<8 | u&0x3F }

// putUTF8Group writes the four units of w, first unit at the top, to the
// start of d as UTF-8: 12 bytes.
func putUTF8Group(d []byte, w uint64) {
	t0, t1 := utf8Seq(w>>48), utf8Seq(w>>32&0xFFFF)
	t2, t3 := utf8Seq(w>>16&0xFFFF), utf8Seq(w&0xFFFF)
	be.PutUint64(d, t0<<40|t1<<16|t2>>8)
	be.PutUint32(d[8:], uint32(t2<<24|t3))
}

// encodeUTF8 writes the encoding of src in the UTF-8 form, end marker
// included, to dst, which must hold 3*encodedUnits(len(src)) bytes, and
// returns the bytes written.
func encodeUTF8(dst, src []byte) int {
	g := len(src) / 7
	r := len(src) - 7*g
	if g >= kernelGroups {
		// Encode raw into the end of the output, then widen in place.
		raw := dst[4*g : 12*g]
		kernel.Encode(raw, src[:7*g])
		expandUTF8(dst, raw)
	} else {
		var tmp [8 * kernelGroups]byte
		kernel.EncodeGeneric(tmp[:], src[:7*g])
		for i := range g {
			putUTF8Group(dst[12*i:], be.Uint64(tmp[8*i:]))
		}
	}
	n := 12 * g
	if r == 0 {
		return n
	}
	var t [10]byte
	if _, err := std.encodeTo(t[:], src[7*g:]); err != nil {
		panic(err)
	}
	k := tailUnitCount(r)
	d := dst[n : n+3*k+3]
	for j := range k {
		u := utf8Seq(uint64(be.Uint16(t[2*j:])))
		d[3*j], d[3*j+1], d[3*j+2] = byte(u>>16), byte(u>>8), byte(u)
	}
	// The marker U+3D0r: E3 B4 8r.
	d[3*k], d[3*k+1], d[3*k+2] = 0xE3, 0xB4, 0x80|byte(r)
	return n + 3*k + 3
}
