package bencode

import (
	"bytes"
	"cmp"
	"os"
	"strconv"
	"unicode/utf8"
)

// limits are the sizes that bound the memory the codec streams and the
// Decoder use, whatever the lengths of the strings they meet. Tests lower
// them so that small inputs take the chunked and spooled paths; each stream
// reads them when it is made.
type limits struct {
	// longString: the codec transcodes a string (or an integer) of more than
	// this many bytes in pieces as it arrives, spooling a string's bytes
	// (see spill) and writing them out once it has them all. Shorter ones
	// are transcoded whole, in memory.
	longString int
	// spillMemory: how many bytes a spill keeps in memory before it moves
	// the rest to a temporary file; spillBuffer: how many bytes it gathers
	// before it writes them to the file.
	spillMemory, spillBuffer int
	// drainChunk: the most bytes of a spooled string that a stream reads
	// and writes out at a time; a multiple of 3, so that base64 output in
	// pieces is base64 of the whole.
	drainChunk int
	// heldBudget, heldSpoolMin: when the strict JSON to bencode stream
	// holds more than heldBudget bytes of output (the open objects',
	// waiting to be sorted), it spools strings of heldSpoolMin bytes or
	// more instead of holding them.
	heldBudget, heldSpoolMin int
	// blockMin: a Decoder waiting for more than this many bytes of a
	// string reads them into blocks as they arrive, rather than growing its
	// buffer ahead of them.
	blockMin int
	// giveAway: a Decoder hands a value of at least this many bytes its
	// buffer, rather than copying it, and starts a new one.
	giveAway int
}

var defaultLimits = limits{
	longString:   1 << 20,
	spillMemory:  256 << 10,
	drainChunk:   48 << 10,
	heldBudget:   1 << 20,
	heldSpoolMin: 64,
	blockMin:     64 << 10,
	giveAway:     1 << 20,
}

// limitsNow are the limits new streams get.
var limitsNow = defaultLimits

const (
	maxBlock     = 1 << 20 // the largest block a Decoder reads a string into
	maxQuotedKey = 64      // error messages quote at most this much of a key
)

// A spill is a sequence of bytes kept in memory up to a limit and in a
// temporary file beyond it: the file is created when first needed, in
// os.TempDir() ($TMPDIR), and removed at once, so that it goes away with the
// process whatever happens; close closes it. Bytes appended beyond the file
// wait in a buffer until it holds limits.spillBuffer of them, so that the
// file is written in large pieces however small the pieces written to s.
type spill struct {
	mem  []byte   // bytes [0, len(mem)); len(mem) < n only when len(mem) == max
	max  int      // the most bytes mem holds
	f    *os.File // bytes [max, fn) at offsets [0, fn-max)
	fn   int64
	wbuf []byte // bytes [fn, n), when n > max
	wmax int    // the most bytes wbuf holds
	name string // the file's name, when removing it at once failed
	n    int64
}

func (s *spill) init(l limits) {
	s.max, s.wmax = l.spillMemory, l.spillBuffer
	s.fn = int64(s.max)
}

func (s *spill) len() int64 { return s.n }

// truncate shortens the sequence to n bytes.
func (s *spill) truncate(n int64) {
	s.n = n
	if n < int64(len(s.mem)) {
		s.mem = s.mem[:n]
	}
	if n < s.fn {
		s.fn = max(n, int64(s.max))
	}
	s.wbuf = s.wbuf[:max(0, int(n-s.fn))]
}

// write appends p.
func (s *spill) write(p []byte) error { return s.writeAt(p, s.n) }

// writeAt writes p at off, at most the length of the sequence, which grows
// when p runs past its end.
func (s *spill) writeAt(p []byte, off int64) error {
	end := off + int64(len(p))
	if off < int64(s.max) {
		k := min(len(p), s.max-int(off))
		if m := int(off) + k; m > len(s.mem) {
			s.mem = append(s.mem[:off], p[:k]...)
		} else {
			copy(s.mem[off:m], p[:k])
		}
		p, off = p[k:], off+int64(k)
	}
	if len(p) > 0 {
		if off < s.fn { // over bytes in the file
			if err := s.flush(); err != nil {
				return err
			}
			if err := s.fileWrite(p, off); err != nil {
				return err
			}
			s.fn = max(s.fn, end)
		} else if i := int(off - s.fn); i+len(p) <= len(s.wbuf) {
			copy(s.wbuf[i:], p)
		} else if i+len(p) <= s.wmax {
			s.wbuf = append(s.wbuf[:i], p...)
		} else {
			// Past the buffer: write it out, and p with it when p would
			// not fit in it either.
			s.wbuf = s.wbuf[:i]
			if len(p) > s.wmax {
				if err := s.flush(); err != nil {
					return err
				}
				if err := s.fileWrite(p, off); err != nil {
					return err
				}
				s.fn = end
			} else {
				s.wbuf = append(s.wbuf, p...)
				if err := s.flush(); err != nil {
					return err
				}
			}
		}
	}
	s.n = max(s.n, end)
	return nil
}

// flush writes wbuf to the file.
func (s *spill) flush() error {
	if len(s.wbuf) == 0 {
		return nil
	}
	if err := s.fileWrite(s.wbuf, s.fn); err != nil {
		return err
	}
	s.fn += int64(len(s.wbuf))
	s.wbuf = s.wbuf[:0]
	return nil
}

func (s *spill) fileWrite(p []byte, off int64) error {
	if s.f == nil {
		f, err := os.CreateTemp("", "b14fs-bencode-*")
		if err != nil {
			return err
		}
		if os.Remove(f.Name()) != nil {
			s.name = f.Name() // (Windows) removed by close
		}
		s.f = f
	}
	_, err := s.f.WriteAt(p, off-int64(s.max))
	return err
}

// readAt fills p with the bytes at off; off+len(p) is at most the length.
func (s *spill) readAt(p []byte, off int64) error {
	if off < int64(len(s.mem)) {
		k := copy(p, s.mem[off:])
		p, off = p[k:], off+int64(k)
	}
	if off < s.fn && len(p) > 0 {
		k := int(min(int64(len(p)), s.fn-off))
		if _, err := s.f.ReadAt(p[:k], off-int64(s.max)); err != nil {
			return err
		}
		p, off = p[k:], off+int64(k)
	}
	if len(p) > 0 {
		copy(p, s.wbuf[off-s.fn:])
	}
	return nil
}

// close empties s and closes its file.
func (s *spill) close() {
	s.truncate(0)
	if s.f != nil {
		s.f.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
		s.f, s.name = nil, ""
	}
	if cap(s.wbuf) > s.wmax+64<<10 {
		s.wbuf = nil
	}
}

// compareAt compares the n bytes at off with b, as bytes.Compare does,
// reading them into *buf (made when needed) when they are not in memory.
func (s *spill) compareAt(off int64, n int, b []byte, pbuf *[]byte) (int, error) {
	if end := off + int64(n); end <= int64(len(s.mem)) {
		return bytes.Compare(s.mem[off:end], b), nil
	}
	if *pbuf == nil {
		*pbuf = make([]byte, 4096)
	}
	buf := *pbuf
	for i := 0; i < n && i < len(b); {
		k := min(n-i, len(b)-i, len(buf))
		if err := s.readAt(buf[:k], off+int64(i)); err != nil {
			return 0, err
		}
		if c := bytes.Compare(buf[:k], b[i:i+k]); c != 0 {
			return c, nil
		}
		i += k
	}
	return cmp.Compare(n, len(b)), nil
}

// A utf8State checks that bytes that arrive in pieces are UTF-8, as
// utf8.Valid would check them all at once: a rune cut at the end of one
// piece waits in carry for the next.
type utf8State struct {
	carry [utf8.UTFMax]byte
	n     int
	bad   bool
}

func (u *utf8State) write(p []byte) {
	if u.bad {
		return
	}
	if u.n > 0 {
		for u.n < utf8.UTFMax && len(p) > 0 && !utf8.FullRune(u.carry[:u.n]) {
			u.carry[u.n] = p[0]
			u.n++
			p = p[1:]
		}
		if !utf8.FullRune(u.carry[:u.n]) {
			return
		}
		if r, size := utf8.DecodeRune(u.carry[:u.n]); r == utf8.RuneError && size == 1 || size != u.n {
			u.bad = true
			return
		}
		u.n = 0
	}
	// Keep back a rune that p cuts off: one that starts in its last 3
	// bytes and is not complete.
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-(utf8.UTFMax-1); i-- {
		if c := p[i]; c < utf8.RuneSelf {
			break
		} else if utf8.RuneStart(c) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(p[:cut]) {
		u.bad = true
		return
	}
	u.n = copy(u.carry[:], p[cut:])
}

// valid reports whether all the bytes written were UTF-8.
func (u *utf8State) valid() bool { return !u.bad && u.n == 0 }

// keyText quotes a dictionary key for an error message: whole when it is
// short, else its first bytes (head holds at least maxQuotedKey of them) and
// its length, so that a message never grows with a key.
func keyText(head []byte, n int64) string {
	if n <= maxQuotedKey {
		return strconv.Quote(string(head[:n]))
	}
	return strconv.Quote(string(head[:maxQuotedKey])) + "... (" + strconv.FormatInt(n, 10) + " bytes)"
}
