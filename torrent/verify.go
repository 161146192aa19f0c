package torrent

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
)

// VerifyOptions adjust Verify.
type VerifyOptions struct {
	// Progress, if not nil, is called from time to time with the number of
	// content bytes checked (or found missing) since its last call.
	Progress func(n int64)
	// BufferSize is the size of the reads from the files; 0 means 1 MiB.
	BufferSize int
	// File, if not nil, is called with what Verify found of each file, in
	// the order of Info.Walk, as soon as it is known (once the last piece
	// the file touches is checked), and Result.Files is left nil: Verify
	// then holds the results of the files of a piece or so at a time,
	// however many files the torrent has.
	File func(FileResult)
}

// A Status says how a file compares with the torrent.
type Status int

// The statuses of a file.
const (
	Complete   Status = iota // every piece of the file is good and it has the right size
	Incomplete               // some pieces touching the file are bad, or its size is wrong
	Missing                  // the file could not be opened, or its path is not safe (see SafePath)
)

var statusNames = [...]string{"complete", "incomplete", "missing"}

// String returns "complete", "incomplete" or "missing".
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// A FileResult is what Verify found of one file.
type FileResult struct {
	FileEntry
	Status Status
	Size   int64   // the size found, -1 when missing
	Bad    []Range // the bad pieces that touch the file
	Err    error   // why the file is missing, or could not be read to its end
}

// A Range is the pieces [First, End).
type Range struct{ First, End int64 }

// A Result is what Verify found.
type Result struct {
	Pieces int64        // the number of pieces
	Bad    []Range      // the bad pieces, in order
	Files  []FileResult // every file, padding files included, in the order of Info.Walk; nil with VerifyOptions.File

	incomplete int // the files Verify found not complete
}

// NumBad returns the number of bad pieces.
func (r *Result) NumBad() int64 {
	var n int64
	for _, b := range r.Bad {
		n += b.End - b.First
	}
	return n
}

// OK reports whether every piece is good and every file complete.
func (r *Result) OK() bool {
	for i := range r.Files {
		if r.Files[i].Status != Complete {
			return false
		}
	}
	return r.incomplete == 0 && len(r.Bad) == 0
}

// Verify checks the content of torrent m, read from fsys (the directory m
// was downloaded to: it holds the file, or the directory, named
// m.Info.Name), against the piece hashes: SHA-1 for v1 torrents, SHA-256
// merkle trees (checked against each piece layer, or the pieces root of a
// file no larger than a piece, or without a layer) for v2, and both for
// hybrid torrents. Pieces are numbered as Info.Walk lays files out.
// Padding files are zeros and are not read. A file that is missing, short
// or unreadable makes its pieces bad, and Verify goes on with the next;
// every file that is not complete has an Err that says why. A file is
// opened only when fsys's Stat says it is a regular file: a FIFO, socket
// or device is ErrNotRegular, never opened (opening a FIFO waits for a
// writer). Give it RootFS to keep every name inside a directory.
//
// Verify returns an error only when ctx is done or the piece layers do not
// hash to their files' pieces roots.
func Verify(ctx context.Context, m *MetaInfo, fsys fs.FS, o *VerifyOptions) (*Result, error) {
	if o == nil {
		o = &VerifyOptions{}
	}
	if err := m.CheckPieceLayers(); err != nil {
		return nil, err
	}
	v := &verifier{ctx: ctx, m: m, in: &m.Info, fsys: fsys, o: o, pl: m.Info.PieceLength}
	size := o.BufferSize
	if size <= 0 {
		size = 1 << 20
	}
	v.buf = make([]byte, size)
	return v.run()
}

// CheckPieceLayers checks that each piece layer hashes up to the pieces
// root of its file (BEP 52).
func (m *MetaInfo) CheckPieceLayers() error {
	for root, layer := range m.PieceLayers {
		if r := layerRoot(layer, m.Info.PieceLength); string(r[:]) != root {
			return &Error{"piece layers", m.layersOff, fmt.Sprintf("the layer of root %x hashes to %x", root, r)}
		}
	}
	return nil
}

type verifier struct {
	ctx  context.Context
	m    *MetaInfo
	in   *Info
	fsys fs.FS
	o    *VerifyOptions
	pl   int64
	buf  []byte
	bad  []Range // the bad pieces found so far, in order, ranges that touch merged

	pending    []FileResult // the files whose results wait for pieces still to be checked
	files      []FileResult // the results, without VerifyOptions.File
	incomplete int          // the files found not complete

	v1   *pieceHasher
	v2   *fileHasher
	file *FileEntry // the file being hashed
}

// fail records the pieces [first, end) as bad.
func (v *verifier) fail(first, end int64) {
	if first >= end {
		return
	}
	// Pieces fail in about the order they are checked: look from the end.
	i := len(v.bad)
	for i > 0 && v.bad[i-1].First > first {
		i--
	}
	if i > 0 && v.bad[i-1].End >= first {
		i--
		v.bad[i].End = max(v.bad[i].End, end)
	} else {
		v.bad = slices.Insert(v.bad, i, Range{first, end})
	}
	j := i + 1
	for j < len(v.bad) && v.bad[j].First <= v.bad[i].End {
		v.bad[i].End = max(v.bad[i].End, v.bad[j].End)
		j++
	}
	v.bad = slices.Delete(v.bad, i+1, j)
}

func (v *verifier) run() (*Result, error) {
	in := v.in
	r := &Result{Pieces: in.NumPieces()}
	if in.HasV1() {
		v.v1 = newPieceHasher(v.pl, func(i int64, h [20]byte, tainted bool) {
			if tainted || !bytes.Equal(h[:], in.Pieces[20*i:20*i+20]) {
				v.fail(i, i+1)
			}
		}, v.fail)
	}
	if in.HasV2() {
		v.v2 = newFileHasher(v.pl, v.v2piece)
	}
	for e := range in.Walk() {
		if err := v.ctx.Err(); err != nil {
			return nil, err
		}
		// The pieces before this file's first are checked.
		v.settle(e.Offset / v.pl)
		fr := FileResult{FileEntry: e, Size: -1}
		switch {
		case e.Pad:
			fr.Size = e.Length
			if v.v1 != nil {
				if err := v.zeros(e.Length); err != nil {
					return nil, err
				}
			}
		case e.Length == 0 && strings.IndexByte(e.Attr, 'l') >= 0:
			fr.Size = 0 // a link: nothing to check
		default:
			if err := v.check(&fr); err != nil {
				return nil, err
			}
		}
		v.pending = append(v.pending, fr)
	}
	if v.v1 != nil {
		v.v1.close()
	}
	v.settle(math.MaxInt64)
	r.Bad, r.Files, r.incomplete = v.bad, v.files, v.incomplete
	return r, nil
}

// settle ends the results of the pending files that touch no piece from
// piece p on, all of whose pieces are checked, and hands them on.
func (v *verifier) settle(p int64) {
	n := 0
	for ; n < len(v.pending); n++ {
		f := &v.pending[n]
		end := pieceCount(f.Offset+f.Length, v.pl)
		if !f.Pad && end > p {
			break
		}
		if !f.Pad {
			f.Bad = overlap(v.bad, f.Offset/v.pl, end)
			switch {
			case f.Size < 0:
				f.Status = Missing
			case len(f.Bad) > 0 || f.Size != f.Length || f.Err != nil:
				f.Status = Incomplete
			}
		}
		if f.Status != Complete {
			v.incomplete++
		}
		if v.o.File != nil {
			v.o.File(*f)
		} else {
			v.files = append(v.files, *f)
		}
	}
	v.pending = append(v.pending[:0], v.pending[n:]...)
}

// check hashes one file.
func (v *verifier) check(fr *FileResult) error {
	e := &fr.FileEntry
	v.file = e
	if v.v2 != nil {
		v.v2.reset()
	}
	n, err := v.read(fr)
	if err != nil {
		return err
	}
	if n < e.Length {
		if v.v1 != nil {
			v.v1.skip(e.Length - n)
		}
		v.progress(e.Length - n)
		if fr.Err == nil && fr.Size == e.Length {
			fr.Err = fmt.Errorf("%s read of %d: it changed while it was read", bytesOf(n), e.Length)
		}
	}
	if fr.Err == nil && fr.Size >= 0 && fr.Size != e.Length {
		fr.Err = sizeError(fr.Size, e.Length)
	}
	if v.v2 != nil {
		v.endV2(n)
	}
	return nil
}

// read reads and hashes the file of fr, and returns the number of bytes
// read. Only a done context is an error; what went wrong with the file is
// in fr.
func (v *verifier) read(fr *FileResult) (int64, error) {
	e := &fr.FileEntry
	f, fi, err := v.open(e)
	if err != nil {
		fr.Err = err
		return 0, nil
	}
	defer f.Close()
	fr.Size = fi.Size()
	var n int64
	for n < e.Length {
		if err := v.ctx.Err(); err != nil {
			return n, err
		}
		k, err := f.Read(v.buf[:min(int64(len(v.buf)), e.Length-n)])
		if k > 0 {
			p := v.buf[:k]
			if v.v1 != nil {
				v.v1.Write(p)
			}
			if v.v2 != nil {
				v.v2.Write(p)
			}
			n += int64(k)
			v.progress(int64(k))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fr.Err = err
			break
		}
	}
	return n, nil
}

// open opens the file of e, a regular file (see openRegular): at its path
// in the torrent when that is safe (see SafePath), or else, or when there
// is no such file, at its LocalPath.
func (v *verifier) open(e *FileEntry) (fs.File, fs.FileInfo, error) {
	name, ok := SafePath(e.Path)
	err := fmt.Errorf("%q is not a safe path", e.Path)
	if ok && validPath(name) {
		var f fs.File
		var fi fs.FileInfo
		if f, fi, err = openRegular(v.fsys, name); err == nil {
			return f, fi, nil
		}
	}
	if local, ok := e.LocalPath(); ok && local != name && validPath(local) {
		if f, fi, lerr := openRegular(v.fsys, local); lerr == nil || !errors.Is(lerr, fs.ErrNotExist) {
			return f, fi, lerr
		}
	}
	return nil, nil, err
}

// sizeError says how a file's size differs from the torrent's.
func sizeError(size, want int64) error {
	if size > want {
		return fmt.Errorf("%s too long: %s, want %d", bytesOf(size-want), bytesOf(size), want)
	}
	return fmt.Errorf("%s short: %s, want %d", bytesOf(want-size), bytesOf(size), want)
}

// bytesOf writes n bytes: "1 byte", "2 bytes".
func bytesOf(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// firstPiece returns the index of the first piece of the file being hashed.
func (v *verifier) firstPiece() int64 { return v.file.Offset / v.pl }

// v2piece checks the v2 hash of piece i of the file being hashed against
// its piece layer, if it has one.
func (v *verifier) v2piece(i int64, h [32]byte) {
	layer := v.m.PieceLayers[string(v.file.PiecesRoot)]
	if layer == nil {
		return // the root stands for the pieces
	}
	if 32*i+32 > int64(len(layer)) || !bytes.Equal(h[:], layer[32*i:32*i+32]) {
		v.fail(v.firstPiece()+i, v.firstPiece()+i+1)
	}
}

// endV2 ends the v2 hash of the file being hashed, of which n bytes were
// read.
func (v *verifier) endV2(n int64) {
	e := v.file
	first, end := v.firstPiece(), v.firstPiece()+pieceCount(e.Length, v.pl)
	layer := v.m.PieceLayers[string(e.PiecesRoot)]
	if n < e.Length {
		if layer != nil {
			first += n / v.pl // the pieces before were checked against the layer
		}
		v.fail(first, end)
		return
	}
	if e.Length == 0 {
		return
	}
	if root, _ := v.v2.root(); layer == nil && string(root[:]) != string(e.PiecesRoot) {
		v.fail(first, end)
	}
}

func (v *verifier) zeros(n int64) error {
	for n > 0 {
		if err := v.ctx.Err(); err != nil {
			return err
		}
		k := min(n, 1<<20)
		v.v1.zeros(k)
		n -= k
	}
	return nil
}

func (v *verifier) progress(n int64) {
	if v.o.Progress != nil && n > 0 {
		v.o.Progress(n)
	}
}

// overlap returns the parts of rs, sorted ranges that do not overlap,
// within [first, end): none when that is empty, as for an empty file
// where a piece starts.
func overlap(rs []Range, first, end int64) []Range {
	var out []Range
	if first >= end {
		return nil
	}
	i, _ := slices.BinarySearchFunc(rs, first, func(r Range, first int64) int { return cmp.Compare(r.End, first+1) })
	for ; i < len(rs) && rs[i].First < end; i++ {
		out = append(out, Range{max(rs[i].First, first), min(rs[i].End, end)})
	}
	return out
}
