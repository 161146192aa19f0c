package base16384

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fastLengths returns the plain lengths the fast paths are checked at: every
// length up to 4 times kernelGroups groups and a bit, and those within two
// groups (and a tail) of kernelGroups groups and its multiples up to 1 KiB,
// where encodeGroups and decodeGroups hand over to the kernel, and of
// stringChunk and its multiples, where the string forms cut their input.
func fastLengths() []int {
	var ns []int
	for n := range 7*4*kernelGroups + 20 {
		ns = append(ns, n)
	}
	for _, step := range []int{7 * kernelGroups, stringChunk} {
		for m := step; m <= 3*stringChunk; m += step {
			for d := -15; d <= 15; d++ {
				ns = append(ns, m+d)
			}
		}
	}
	ns = append(ns, 4096, 4096+3, 20000)
	slices.Sort(ns)
	return slices.Compact(ns)
}

// fastInputs returns plain inputs of length n: random bytes, all zeros and
// all ones.
func fastInputs(n int) [][]byte {
	r := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(n), byte(n >> 8)}).Read(r)
	return [][]byte{r, make([]byte, n), bytes.Repeat([]byte{0xFF}, n)}
}

// TestFastEncode checks encodeTo, encodeUTF8 and the functions using them
// against encodeState on every length around the hand-overs, into exact
// buffers followed by guard bytes.
func TestFastEncode(t *testing.T) {
	for _, n := range fastLengths() {
		for _, plain := range fastInputs(n) {
			for _, cfg := range []config{{}, {utf8: true}} {
				want := encodeWith(cfg, plain)
				dst := bytes.Repeat([]byte{0xA5}, len(want)+16)
				var got int
				if cfg.utf8 {
					got = encodeUTF8(dst[:len(want)], plain)
				} else {
					got, _ = std.encodeTo(dst[:len(want)], plain)
				}
				if got != len(want) || !bytes.Equal(dst[:len(want)], want) {
					t.Fatalf("%d bytes, %+v: fast encoding differs", n, cfg)
				}
				if bytes.Count(dst[len(want):], []byte{0xA5}) != 16 {
					t.Fatalf("%d bytes, %+v: fast encoding wrote past its end", n, cfg)
				}
				if s := encodeString(plain, cfg.utf8); s != string(want) {
					t.Fatalf("%d bytes, %+v: encodeString differs", n, cfg)
				}
			}
			want := encodeWith(config{}, plain)
			if got := Encode(plain); !bytes.Equal(got, want) {
				t.Fatalf("%d bytes: Encode differs", n)
			}
			if got := StdEncoding.AppendEncode([]byte("x"), plain); string(got) != "x"+string(want) {
				t.Fatalf("%d bytes: StdEncoding.AppendEncode differs", n)
			}
			for _, room := range []int{len(want), len(want) - 1, len(want) + 9} {
				if room < 0 {
					continue
				}
				// A prefix, room past it, and guard bytes past the room.
				buf := bytes.Repeat([]byte{0xA5}, 3+room+16)
				copy(buf, "abc")
				got := StdEncoding.AppendEncode(buf[:3:3+room], plain)
				if string(got[:3]) != "abc" || !bytes.Equal(got[3:], want) {
					t.Fatalf("%d bytes, %d bytes of room: Encoding.AppendEncode differs", n, room)
				}
				if bytes.Count(buf[3+room:], []byte{0xA5}) != 16 {
					t.Fatalf("%d bytes, %d bytes of room: Encoding.AppendEncode wrote past its room", n, room)
				}
			}
		}
	}
}

// checkFastDecode checks that the functions decoding whole buffers give
// what decodeState gives for in under cfg: into buffers of the decoded
// length followed by guard bytes, one byte shorter, and with room to spare.
func checkFastDecode(t *testing.T, what string, cfg config, in []byte) {
	t.Helper()
	e := &Encoding{cfg: cfg}
	room := maxDecodedLen(len(in))
	all := make([]byte, room)
	size, wantErr := e.decodeSlow(all, in)
	want := all[:size]
	for _, l := range []int{size, size - 1, room} {
		if l < 0 {
			continue
		}
		// decodeSlow's result depends on the room only as to whether the
		// decoding fits: into room, and into size bytes when it did fit,
		// it is the one above.
		slow, wantN, wantErr := all, size, wantErr
		if l != room && (l != size || wantErr != nil) {
			slow = make([]byte, l)
			wantN, wantErr = e.decodeSlow(slow, in)
		}
		// 32 guard bytes: as many as the widest store of the assembly.
		guard := bytes.Repeat([]byte{0xA5}, l+32)
		n, err := e.Decode(guard[:l], in)
		if n != wantN || !sameResult(guard[:n], err, slow[:wantN], wantErr) {
			t.Fatalf("%s, %+v, %d bytes of room: Decode = %d, %v; want %d, %v", what, cfg, l, n, err, wantN, wantErr)
		}
		if bytes.Count(guard[l:], []byte{0xA5}) != 32 {
			t.Fatalf("%s, %+v: Decode wrote past its buffer", what, cfg)
		}
		if cfg != (config{}) {
			continue
		}
		err = DecodeTo(in, guard[:l])
		if !sameResult(guard[:wantN], err, slow[:wantN], wantErr) {
			t.Fatalf("%s, %d bytes of room: DecodeTo: %v; want %v", what, l, err, wantErr)
		}
		if bytes.Count(guard[l:], []byte{0xA5}) != 32 {
			t.Fatalf("%s: DecodeTo wrote past its buffer", what)
		}
	}
	for _, l := range []int{size, size - 1, room, size + 20} {
		if l < 0 {
			continue
		}
		// A prefix, l bytes of room past it, and guard bytes past the room.
		buf := bytes.Repeat([]byte{0xA5}, 2+l+32)
		copy(buf, "ab")
		out, err := e.AppendDecode(buf[:2:2+l], in)
		if string(out[:2]) != "ab" || err != nil && len(out) != 2 {
			t.Fatalf("%s, %+v, %d bytes of room: AppendDecode changed dst to %q, %v", what, cfg, l, out, err)
		}
		if err != nil {
			out = append(out[:2], want...)
		}
		if !sameResult(out[2:], err, want, wantErr) {
			t.Fatalf("%s, %+v, %d bytes of room: AppendDecode = %d bytes, %v; want %d bytes, %v", what, cfg, l, len(out)-2, err, len(want), wantErr)
		}
		if bytes.Count(buf[2+l:], []byte{0xA5}) != 32 {
			t.Fatalf("%s, %+v, %d bytes of room: AppendDecode wrote past its room", what, cfg, l)
		}
	}
	if cfg != (config{}) {
		return
	}
	dec := Decode(in)
	if (dec == nil) != (wantErr != nil) || wantErr == nil && !bytes.Equal(dec, want) {
		t.Fatalf("%s: Decode gives %d bytes; want %d bytes, %v", what, len(dec), len(want), wantErr)
	}
	if s := DecodeString(string(in)); wantErr == nil && s != string(want) || wantErr != nil && s != "" {
		t.Fatalf("%s: DecodeString gives %d bytes; want %d bytes, %v", what, len(s), len(want), wantErr)
	}
}

// fastDecodeInputs returns the valid encodings of plain the fast decoding
// paths take: raw, UTF-8, each with a byte order mark, the UTF-8 form with
// line breaks at the end, raw with the C CLI's checksum in the pad bits,
// and, for strict decoding to reject, with pad bits set.
func fastDecodeInputs(plain []byte) map[string][]byte {
	raw := encodeWith(config{}, plain)
	text := encodeWith(config{utf8: true}, plain)
	ins := map[string][]byte{
		"raw":          raw,
		"utf8":         text,
		"raw+bom":      encodeWith(config{bom: true}, plain),
		"raw+checksum": encodeWith(config{checksum: true}, plain),
		"utf8+bom":     encodeWith(config{utf8: true, bom: true}, plain),
		"utf8+LF":      append(slices.Clone(text), '\n'),
		"utf8+CRLFLF":  append(slices.Clone(text), "\r\n\n"...),
		"utf8+bom+LF":  append(encodeWith(config{utf8: true, bom: true}, plain), '\n'),
		"utf8+LF+unit": append(append(slices.Clone(text[:len(text)/6*3]), '\n'), text[len(text)/6*3:]...),
	}
	if r := len(plain) % 7; r != 0 {
		// Set the lowest pad bit: in the last data unit.
		padded := slices.Clone(raw)
		padded[len(padded)-3] |= 1
		ins["raw+pad"] = padded
		t := slices.Clone(text)
		t[len(t)-4] |= 1
		ins["utf8+pad"] = t
	}
	return ins
}

// TestFastDecode checks the whole-buffer decoding paths against decodeState
// on every length around the hand-overs, on valid encodings and encodings
// with one unit replaced by a bad one, a marker or a line break, cut or
// with a byte more.
func TestFastDecode(t *testing.T) {
	badUnits := []uint16{0x4DFF, 0x8E00, 0x0000, 0xFFFF, 0x3D01, 0x3D06, 0xFEFF, 0x0A0A}
	for _, n := range fastLengths() {
		for i, plain := range fastInputs(n) {
			if i > 0 && n > 7*4*kernelGroups {
				break
			}
			for name, in := range fastDecodeInputs(plain) {
				for _, cfg := range []config{{}, {strict: true}, {skipGarbage: true}, {checksum: true}} {
					checkFastDecode(t, name, cfg, in)
				}
				if i != 0 || n > 7*kernelGroups+10 && n != 7*2*kernelGroups+3 {
					continue
				}
				for c := range min(len(in), 4) {
					checkFastDecode(t, name+" cut", config{}, in[:len(in)-c-1])
				}
				checkFastDecode(t, name+" and a byte", config{}, append(slices.Clone(in), 0x4E))
				unit := 2
				if strings.HasPrefix(name, "utf8") {
					unit = 3
				}
				for pos := 0; pos+unit <= len(in); pos += unit {
					for _, u := range badUnits {
						bad := slices.Clone(in)
						if unit == 2 {
							bad[pos], bad[pos+1] = byte(u>>8), byte(u)
						} else {
							copy(bad[pos:], string(rune(u)))
						}
						checkFastDecode(t, name+" with a bad unit", config{}, bad)
					}
				}
			}
		}
	}
}
