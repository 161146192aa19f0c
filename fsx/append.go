package fsx

import (
	"bytes"
	"io"
	"os"

	"github.com/b14fs/b14fs/core"
)

// appendEdit holds data appended to a non-empty file stored by a
// core.BlockCodec. Its commit rewrites only the stored file's last, partial
// block (and whatever trailer follows it): it encodes that block's plain
// bytes followed by the appended data, and writes the result in place.
// Blocks decode on their own, so the encoding of data that starts at a block
// boundary is the tail of the encoding of the whole.
type appendEdit struct {
	f       *file
	codec   core.BlockCodec
	layout  core.Layout
	tailOff int64  // stored offset of the last, partial block
	tail    []byte // that block's plain bytes
	pending []byte // the appended data
}

// newAppendEdit returns an appendEdit for f, or false when f's codec cannot
// append in place: it is not a core.BlockCodec, it would encode blocks of
// another size than the stored file's (another text form), or its encoding
// of a block depends on the blocks before (as a running checksum does).
func (f *file) newAppendEdit() (*appendEdit, bool, error) {
	bc, ok := f.fsys.codec.(core.BlockCodec)
	if !ok || f.src.layout == nil {
		return nil, false, nil
	}
	l := *f.src.layout
	if bc.EncodedLen(int64(l.PlainBlock)) != int64(l.EncodedBlock) || !f.fsys.encodesBlocksAlone(bc, l) {
		return nil, false, nil
	}
	full := l.Size / int64(l.PlainBlock) * int64(l.PlainBlock)
	a := &appendEdit{f: f, codec: bc, layout: l, tail: make([]byte, l.Size-full)}
	a.tailOff, _ = l.EncodedOffset(full)
	if len(a.tail) > 0 {
		if _, err := f.src.ReadAt(a.tail, full); err != nil {
			return nil, false, err
		}
	}
	return a, true, nil
}

// encodesBlocksAlone reports whether bc encodes a block the same whatever
// comes before it, by encoding two streams that differ only in their first
// block. The answer is found once per Fs.
func (f *Fs) encodesBlocksAlone(bc core.BlockCodec, l core.Layout) bool {
	f.probe.Do(func() {
		a := make([]byte, l.PlainBlock+l.PlainBlock/2+1)
		b := bytes.Clone(a)
		for i := range l.PlainBlock {
			b[i] = 0xFF
		}
		ea, okA, errA := encodeBlocks(bc, a)
		eb, okB, errB := encodeBlocks(bc, b)
		f.blocksAlone = okA && okB && errA == nil && errB == nil && len(ea) == len(eb) &&
			len(ea) > l.EncodedBlock && bytes.Equal(ea[l.EncodedBlock:], eb[l.EncodedBlock:])
	})
	return f.blocksAlone
}

// encodeBlocks returns the encoding of p by bc without the header the codec
// may write first, or false when the output is shorter than bc.EncodedLen
// says.
func encodeBlocks(bc core.BlockCodec, p []byte) ([]byte, bool, error) {
	var b bytes.Buffer
	w := bc.NewEncodeWriter(&b)
	if _, err := w.Write(p); err != nil {
		return nil, false, err
	}
	if err := w.Close(); err != nil {
		return nil, false, err
	}
	header := int64(b.Len()) - bc.EncodedLen(int64(len(p)))
	if header < 0 {
		return nil, false, nil
	}
	return b.Bytes()[header:], true, nil
}

func (a *appendEdit) size() (int64, error) {
	return a.layout.Size + int64(len(a.pending)), nil
}

func (a *appendEdit) writeAt(p []byte, off int64) (bool, error) {
	if size, _ := a.size(); off != size {
		return false, nil
	}
	a.pending = append(a.pending, p...)
	return true, nil
}

func (a *appendEdit) readAt(p []byte, off int64) (int, error) {
	n := 0
	if off < a.layout.Size {
		m, err := a.f.src.ReadAt(p[:min(int64(len(p)), a.layout.Size-off)], off)
		if err != nil && err != io.EOF {
			return m, err
		}
		n = m
	}
	rest := off + int64(n) - a.layout.Size
	if rest < int64(len(a.pending)) {
		n += copy(p[n:], a.pending[rest:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (a *appendEdit) plain() ([]byte, error) {
	data, err := readAll(a.f.src)
	return append(data, a.pending...), err
}

// commit writes the encoding of the last block and the appended data over
// the stored file's last block.
func (a *appendEdit) commit() error {
	encoded, ok, err := encodeBlocks(a.codec, append(a.tail, a.pending...))
	if err != nil {
		return err
	}
	end := a.tailOff + int64(len(encoded))
	if !ok || end != a.layout.Header+a.codec.EncodedLen(a.layout.Size+int64(len(a.pending))) {
		return a.rewrite()
	}
	bf, err := a.f.fsys.base.OpenFile(a.f.stored, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = bf.WriteAt(encoded, a.tailOff)
	if err == nil && end < a.f.src.stored {
		err = bf.Truncate(end)
	}
	if err == nil {
		err = bf.Sync()
	}
	if cerr := bf.Close(); err == nil {
		err = cerr
	}
	return err
}

// rewrite stores the whole content through a temporary file.
func (a *appendEdit) rewrite() error {
	data, err := a.plain()
	if err != nil {
		return err
	}
	b := &bufferEdit{f: a.f, data: data}
	return b.commit()
}

func (a *appendEdit) discard() {}
