package fsx_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

// TestBadDataOffset checks that a decoding error names the codec and the
// offset of the bad data in the stored file, however far into the file a
// read starts.
func TestBadDataOffset(t *testing.T) {
	t.Parallel()
	c := base16384.NewCodec()
	stored := encode(c, randomBytes(7000, 1))
	const bad = 6000
	stored[bad], stored[bad+1] = 0, 0 // not a base16384 unit
	base := afero.NewMemMapFs()
	mustWrite(t, base, "x.b14", stored)
	fsys := newFs(t, base, c)
	f, err := fsys.Open("x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reads := []struct {
		name string
		read func() error
	}{
		{"ReadAt at the bad block", func() error { _, err := f.ReadAt(make([]byte, 10), bad/8*7-3); return err }},
		{"ReadAt across it", func() error { _, err := f.ReadAt(make([]byte, 2000), 4000); return err }},
		{"Read", func() error { _, err := io.ReadAll(f); return err }},
	}
	for _, r := range reads {
		err := r.read()
		var de *core.DataError
		if !errors.As(err, &de) || de.Codec != "base16384" || de.Offset != bad {
			t.Errorf("%s: error %v, want a base16384 *core.DataError at offset %d", r.name, err, bad)
		}
		checkPathError(t, r.name, err, core.ErrInvalidData)
	}
	if _, err := f.ReadAt(make([]byte, 100), 0); err != nil {
		t.Errorf("ReadAt before the bad data: %v", err)
	}
}

// FuzzRead stores arbitrary bytes as a base16384 file and reads it through
// fsx: it must never panic, and what it reads must be what the codec decodes.
func FuzzRead(f *testing.F) {
	c := base16384.NewCodec()
	for _, n := range []int{0, 1, 6, 7, 8, 20} {
		f.Add(encode(c, randomBytes(n, uint64(n))))
		f.Add(encode(base16384Codec("form=utf8", "bom=true"), randomBytes(n, uint64(n))))
	}
	f.Add([]byte{0xFE, 0xFF})
	f.Add([]byte{0x4E, 0x00, 0x3D, 0x07})
	f.Add([]byte{0x3D, 0x01, 0x4E, 0x00})
	f.Fuzz(func(t *testing.T, stored []byte) {
		base := afero.NewMemMapFs()
		mustWrite(t, base, "x.b14", stored)
		fsys := newFs(t, base, c)
		want, werr := decode(c, stored)
		got, err := afero.ReadFile(fsys, "x")
		if (werr == nil) != (err == nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("fsx read %x, %v; the codec decodes %x, %v", got, err, want, werr)
		}
		if err != nil {
			return
		}
		if info, err := fsys.Stat("x"); err != nil || info.Size() != int64(len(want)) {
			t.Fatalf("Stat = %v, %v; want size %d", info, err, len(want))
		}
		file, err := fsys.Open("x")
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		for _, off := range []int{0, 1, len(want) / 2, len(want) - 1} {
			if off < 0 || off >= len(want) {
				continue
			}
			p := make([]byte, min(9, len(want)-off))
			if _, err := file.ReadAt(p, int64(off)); err != nil && err != io.EOF || !bytes.Equal(p, want[off:off+len(p)]) {
				t.Fatalf("ReadAt(%d) = %x, %v; want %x", off, p, err, want[off:off+len(p)])
			}
		}
	})
}

// TestTextWithLineBreaks reads base16384 text with line breaks: a trailing
// one keeps the O(1) layout, others leave the stream without one, and fsx
// decodes it from its start; either way it reads the right data at any
// offset, and appends rewrite it whole.
func TestTextWithLineBreaks(t *testing.T) {
	t.Parallel()
	plain := randomBytes(5000, 7)
	text := []byte(base16384.EncodeToString(plain))
	wrapped := encode(base16384Codec("form=utf8", "wrap=38", "newline=true"), plain)
	for _, tc := range []struct {
		name   string
		stored []byte
	}{
		{"trailing LF", append(bytes.Clone(text), '\n')},
		{"trailing CRLF", append(bytes.Clone(text), '\r', '\n')},
		// 3 line breaks: the length alone looks like that of whole units.
		{"breaks that keep the length", bytes.Join([][]byte{text[:300], text[300:600], text[600:900], text[900:]}, []byte("\n"))},
		{"wrapped", wrapped},
	} {
		base := afero.NewMemMapFs()
		mustWrite(t, base, "x.b14", tc.stored)
		fsys := newFs(t, base, base16384.NewCodec())
		fi, err := fsys.Stat("x")
		if err != nil || fi.Size() != int64(len(plain)) {
			t.Errorf("%s: Stat: %v, %v; want size %d", tc.name, fi, err, len(plain))
			continue
		}
		f, err := fsys.Open("x")
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []int64{0, 1, 700, 2000, 4990} {
			got := make([]byte, 10)
			if n, err := f.ReadAt(got, off); err != nil || !bytes.Equal(got[:n], plain[off:off+10]) {
				t.Errorf("%s: ReadAt(10, %d) = %q, %v; want %q", tc.name, off, got[:n], err, plain[off:off+10])
			}
		}
		f.Close()
		f, err = fsys.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("more")); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, fsys, "x"); !bytes.Equal(got, append(bytes.Clone(plain), "more"...)) {
			t.Errorf("%s: after an append: %d bytes, not the data and the appended bytes", tc.name, len(got))
		}
	}
}

// TestReadAtDamagedBlock reads at an offset in a damaged block whose first
// bytes start a unit of the other form (raw UTF-16BE in the UTF-8 form, or
// the reverse): the read fails, as decoding the stream from its start does,
// and does not decode the block in that form.
func TestReadAtDamagedBlock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		form   string
		block  int    // encoded bytes in a block
		damage string // a block of the other form
	}{
		{"utf8", 12, "X0X0X0X0X0X0"},
		{"utf16be", 8, "\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8"},
	} {
		stored := encode(base16384Codec("form="+tc.form), randomBytes(14, 1))
		copy(stored[tc.block:], tc.damage)
		c := base16384.NewCodec()
		if _, err := decode(c, stored); !errors.Is(err, core.ErrInvalidData) {
			t.Fatalf("%s: the codec decodes the damaged stream: %v", tc.form, err)
		}
		base := afero.NewMemMapFs()
		mustWrite(t, base, "x.b14", stored)
		f, err := newFs(t, base, c).Open("x")
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 7)
		if n, err := f.ReadAt(p, 7); !errors.Is(err, core.ErrInvalidData) {
			t.Errorf("%s: ReadAt in the damaged block = %x, %v; want a DataError", tc.form, p[:n], err)
		}
		f.Close()
	}
}
