package torrent

import (
	"crypto/sha1"
	"crypto/sha256"
	"hash"
	"math/bits"
)

// blockSize is the size of the leaves of v2 merkle trees (BEP 52).
const blockSize = 16 << 10

// nextPow2 returns the least power of two >= n (1 for n <= 1).
func nextPow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

// hashPair returns SHA-256(a || b).
func hashPair(a, b []byte) [32]byte {
	var buf [64]byte
	copy(buf[:32], a)
	copy(buf[32:], b)
	return sha256.Sum256(buf[:])
}

// padHash returns the root of a tree of width zero leaves.
func padHash(width int64) [32]byte {
	var h [32]byte
	for ; width > 1; width /= 2 {
		h = hashPair(h[:], h[:])
	}
	return h
}

// merkleRoot returns the root of the tree whose leaves are hashes (32
// bytes each) followed by leaves equal to pad, width leaves in all (a power
// of two, at least len(hashes)/32).
func merkleRoot(hashes []byte, width int64, pad [32]byte) [32]byte {
	if len(hashes) == 0 {
		return padHashFrom(pad, width)
	}
	level := append([]byte(nil), hashes...)
	for ; width > 1; width /= 2 {
		n := len(level) / 32
		for i := 0; i < n; i += 2 {
			var h [32]byte
			if i+1 < n {
				h = hashPair(level[32*i:32*i+32], level[32*i+32:32*i+64])
			} else {
				h = hashPair(level[32*i:32*i+32], pad[:])
			}
			copy(level[16*i:], h[:])
		}
		level = level[:32*((n+1)/2)]
		pad = hashPair(pad[:], pad[:])
	}
	var root [32]byte
	copy(root[:], level)
	return root
}

// padHashFrom returns the root of a tree of width leaves equal to pad.
func padHashFrom(pad [32]byte, width int64) [32]byte {
	for ; width > 1; width /= 2 {
		pad = hashPair(pad[:], pad[:])
	}
	return pad
}

// layerRoot returns the pieces root that a piece layer of a file, with
// pieces of length pl, hashes up to.
func layerRoot(layer []byte, pl int64) [32]byte {
	return merkleRoot(layer, nextPow2(int64(len(layer)/32)), padHash(pl/blockSize))
}

// A fileHasher computes a file's v2 piece hashes and pieces root from its
// content, written in order.
type fileHasher struct {
	pl      int64     // piece length: a power of two, at least blockSize
	n       int64     // bytes written
	h       hash.Hash // the block being hashed, when it came in parts
	inBlock int       // bytes of that block
	leaves  []byte    // the leaf hashes of the piece being hashed
	pieces  []byte    // the hashes of the pieces done
	piece   func(i int64, h [32]byte)
}

func newFileHasher(pl int64, piece func(i int64, h [32]byte)) *fileHasher {
	return &fileHasher{pl: pl, h: sha256.New(), piece: piece}
}

// reset prepares f for another file.
func (f *fileHasher) reset() {
	f.n, f.inBlock = 0, 0
	f.h.Reset()
	f.leaves, f.pieces = f.leaves[:0], f.pieces[:0]
}

func (f *fileHasher) Write(p []byte) (int, error) {
	n := len(p)
	f.n += int64(n)
	for len(p) > 0 {
		if f.inBlock == 0 && len(p) >= blockSize {
			h := sha256.Sum256(p[:blockSize])
			f.leaf(h[:])
			p = p[blockSize:]
			continue
		}
		k := min(blockSize-f.inBlock, len(p))
		f.h.Write(p[:k])
		f.inBlock += k
		p = p[k:]
		if f.inBlock == blockSize {
			f.endBlock()
		}
	}
	return n, nil
}

func (f *fileHasher) endBlock() {
	var h [32]byte
	f.h.Sum(h[:0])
	f.h.Reset()
	f.inBlock = 0
	f.leaf(h[:])
}

func (f *fileHasher) leaf(h []byte) {
	f.leaves = append(f.leaves, h...)
	if int64(len(f.leaves)) == 32*(f.pl/blockSize) {
		f.endPiece()
	}
}

func (f *fileHasher) endPiece() {
	h := merkleRoot(f.leaves, f.pl/blockSize, [32]byte{})
	if f.piece != nil {
		f.piece(int64(len(f.pieces)/32), h)
	}
	f.pieces = append(f.pieces, h[:]...)
	f.leaves = f.leaves[:0]
}

// pieceHash ends a piece of a file larger than a piece, written into f
// since reset (the whole piece, or the file's last bytes), and returns its
// hash: the root of the piece's blocks, zero hashes after the last.
func (f *fileHasher) pieceHash() [32]byte {
	if f.inBlock > 0 {
		f.endBlock()
	}
	if len(f.leaves) > 0 {
		f.endPiece()
	}
	var h [32]byte
	copy(h[:], f.pieces[len(f.pieces)-32:])
	return h
}

// root ends the file and returns its pieces root, and its piece layer
// when it is larger than a piece.
func (f *fileHasher) root() (root [32]byte, layer []byte) {
	if f.inBlock > 0 {
		f.endBlock()
	}
	if f.n <= f.pl {
		if len(f.pieces) == 32 {
			copy(root[:], f.pieces)
			return root, nil
		}
		root = merkleRoot(f.leaves, nextPow2(int64(len(f.leaves)/32)), [32]byte{})
		if f.piece != nil && f.n > 0 {
			f.piece(0, root)
		}
		return root, nil
	}
	if len(f.leaves) > 0 {
		f.endPiece()
	}
	return layerRoot(f.pieces, f.pl), f.pieces
}

// A pieceHasher computes the v1 piece hashes (SHA-1) of a stream.
type pieceHasher struct {
	pl    int64
	pos   int64 // bytes of the stream so far
	h     hash.Hash
	piece func(i int64, h [20]byte, tainted bool) // a piece ended
	bad   func(first, end int64)                  // pieces [first, end) lack data
	taint bool                                    // the current piece lacks data
}

func newPieceHasher(pl int64, piece func(i int64, h [20]byte, tainted bool), bad func(first, end int64)) *pieceHasher {
	return &pieceHasher{pl: pl, h: sha1.New(), piece: piece, bad: bad}
}

func (p *pieceHasher) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		k := min(int64(len(b)), p.pl-p.pos%p.pl)
		p.h.Write(b[:k])
		b = b[k:]
		p.pos += k
		if p.pos%p.pl == 0 {
			p.end()
		}
	}
	return n, nil
}

// skip passes over n bytes that are not there: the pieces they touch fail.
func (p *pieceHasher) skip(n int64) {
	if n <= 0 {
		return
	}
	first := p.pos / p.pl
	p.pos += n
	last := (p.pos - 1) / p.pl
	p.h.Reset()
	if p.pos%p.pl == 0 {
		p.bad(first, last+1)
		p.taint = false
		return
	}
	if last > first {
		p.bad(first, last)
	}
	p.taint = true // the piece last ends later
}

// zeros writes n zero bytes (padding files).
func (p *pieceHasher) zeros(n int64) {
	var z [4096]byte
	for n > 0 {
		k := min(n, int64(len(z)))
		p.Write(z[:k])
		n -= k
	}
}

func (p *pieceHasher) end() {
	var h [20]byte
	p.h.Sum(h[:0])
	p.h.Reset()
	p.piece((p.pos-1)/p.pl, h, p.taint)
	p.taint = false
}

// close ends the last piece if it is short.
func (p *pieceHasher) close() {
	if p.pos%p.pl != 0 {
		p.end()
	}
}
