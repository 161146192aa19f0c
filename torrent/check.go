package torrent

import (
	"encoding/hex"
	"math"
	"slices"
	"strconv"
)

// minV2PieceLength is the smallest piece length of a v2 torrent: one
// 16 KiB block (BEP 52).
const minV2PieceLength = blockSize

// check checks a decoded MetaInfo against the rules Parse documents.
func (m *MetaInfo) check() error {
	in := &m.Info
	at := in.off.info
	switch {
	case in.has&hasName == 0:
		return &Error{"info.name", at, "missing"}
	case in.Name == "":
		return &Error{"info.name", in.off.name, "empty"}
	}
	if in.has&hasPieceLength == 0 {
		return &Error{"info.piece length", at, "missing"}
	}
	if in.PieceLength <= 0 {
		return &Error{"info.piece length", in.off.pieceLength, strconv.FormatInt(in.PieceLength, 10) + " is not positive"}
	}
	v1, v2 := in.has&hasPieces != 0, in.MetaVersion == 2
	switch {
	case in.has&hasMetaVersion != 0 && !v2:
		// BEP 52: a version a client does not know is one it cannot read,
		// hybrid or not.
		return &Error{"info.meta version", at, "version " + strconv.FormatInt(in.MetaVersion, 10) + " is not known"}
	case !v2 && in.has&hasFileTree != 0:
		return &Error{"info.file tree", at, `in a torrent without "meta version" 2`}
	case v2 && in.has&hasFileTree == 0:
		return &Error{"info.file tree", at, "missing in a v2 torrent"}
	case !v1 && !v2:
		return &Error{"info", at, `neither "pieces" (v1) nor "meta version" 2 (v2)`}
	}
	if v1 {
		if err := in.checkV1(); err != nil {
			return err
		}
	}
	if v2 {
		if err := m.checkV2(); err != nil {
			return err
		}
	}
	if v1 && v2 {
		return in.checkHybrid()
	}
	return nil
}

func (in *Info) checkV1() error {
	switch {
	case in.has&hasLength != 0 && in.has&hasFiles != 0:
		return &Error{"info", in.off.info, `both "length" (one file) and "files"`}
	case in.has&hasLength == 0 && in.has&hasFiles == 0:
		return &Error{"info", in.off.info, `neither "length" (one file) nor "files"`}
	case in.has&hasLength != 0 && in.Length < 0:
		return &Error{"info.length", in.off.length, "negative"}
	}
	total := in.Length
	files := in.files.open(false)
	defer files.close()
	for files.next() {
		f := &files.f
		if total > math.MaxInt64-f.Length {
			return &Error{"info.files[" + strconv.Itoa(files.i-1) + "].length", f.off, "the total length overflows"}
		}
		total += f.Length
	}
	if total == 0 {
		return &Error{"info", in.off.info, "no content: every file is empty"}
	}
	if len(in.Pieces)%20 != 0 {
		return &Error{"info.pieces", in.off.pieces, "a length of " + strconv.Itoa(len(in.Pieces)) + " bytes, not a multiple of 20"}
	}
	if want := pieceCount(total, in.PieceLength); int64(len(in.Pieces)/20) != want {
		return &Error{"info.pieces", in.off.pieces, strconv.Itoa(len(in.Pieces)/20) + " piece hashes for " +
			strconv.FormatInt(want, 10) + " pieces of content"}
	}
	return nil
}

func (m *MetaInfo) checkV2() error {
	in := &m.Info
	pl := in.PieceLength
	if pl < minV2PieceLength || pl&(pl-1) != 0 {
		return &Error{"info.piece length", in.off.pieceLength, strconv.FormatInt(pl, 10) + " is not a power of two of 16 KiB or more"}
	}
	if in.tree.n == 0 {
		return &Error{"info.file tree", in.off.tree, "no files"}
	}
	// The files larger than a piece that have a piece layer, by root.
	type layered struct {
		path   string
		length int64
	}
	roots := make(map[string]layered, len(m.PieceLayers))
	var total int64
	tree := in.tree.open(true)
	defer tree.close()
	for tree.next() {
		f := &tree.f
		if total > math.MaxInt64-f.Length {
			return &Error{tree.d.treeField() + ".length", f.off, "the total length overflows"}
		}
		total += f.Length
		if f.IsPad() {
			return &Error{tree.d.treeField(), f.off, "a padding file in v2 metadata"}
		}
		if f.PiecesRoot != nil && allZero(f.PiecesRoot) {
			return &Error{tree.d.treeField() + ".pieces root", f.off, "all zeros"}
		}
		if _, ok := m.PieceLayers[string(f.PiecesRoot)]; ok && f.Length > pl {
			roots[string(f.PiecesRoot)] = layered{joinPath(tree.appendPath(nil)), f.Length}
		}
	}
	if total == 0 {
		return &Error{"info.file tree", in.off.tree, "no content: every file is empty"}
	}
	for _, root := range slices.Sorted(mapKeys(m.PieceLayers)) {
		layer := m.PieceLayers[root]
		f, ok := roots[root]
		if !ok {
			return &Error{"piece layers", m.layersOff, "a layer for no file larger than a piece (root " + hex.EncodeToString([]byte(root)) + ")"}
		}
		if want := pieceCount(f.length, pl) * 32; int64(len(layer)) != want {
			return &Error{"piece layers", m.layersOff, "the layer of " + f.path + " has " +
				strconv.Itoa(len(layer)) + " bytes, not " + strconv.FormatInt(want, 10)}
		}
	}
	return nil
}

// checkHybrid checks that a hybrid torrent's v1 and v2 files agree.
func (in *Info) checkHybrid() error {
	mismatch := func(off int64, msg string) error { return &Error{"info.files", off, "v1 and v2 differ: " + msg} }
	tree := in.tree.open(true)
	defer tree.close()
	if in.has&hasLength != 0 {
		if in.tree.n != 1 || !tree.next() || !tree.is(in.Name) || tree.f.Length != in.Length {
			return mismatch(in.off.length, "one file named "+strconv.Quote(in.Name)+" in v1, not in v2")
		}
		return nil
	}
	files := in.files.open(false)
	defer files.close()
	var off int64
	for files.next() {
		f := &files.f
		if f.IsPad() {
			off += f.Length
			continue
		}
		if !tree.next() {
			return mismatch(f.off, "more files in v1")
		}
		if f.Length != tree.f.Length || !files.samePath(tree) {
			return mismatch(f.off, joinPath(files.appendPath(nil))+" is not "+joinPath(tree.appendPath(nil)))
		}
		if off%in.PieceLength != 0 && f.Length > 0 {
			return mismatch(f.off, joinPath(files.appendPath(nil))+" does not start a piece")
		}
		off += f.Length
	}
	if tree.next() {
		return mismatch(in.off.files, "more files in v2")
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
