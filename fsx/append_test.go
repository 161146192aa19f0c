package fsx_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

func TestAppend(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		ns, adds := []int{0, 1, 2, 3, 4, 5, 100}, []int{1, 2, 3, 4, 7, 1000}
		if can(base).remote { // fewer of the sizes around the blocks
			ns, adds = []int{0, 1, 3, 5, 100}, []int{1, 3, 7, 1000}
		}
		for _, n := range ns {
			for _, add := range adds {
				name := fmt.Sprintf("a%d-%d", n, add)
				want := randomBytes(n, uint64(n))
				mustWrite(t, fsys, name, want)
				f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				more := randomBytes(add, uint64(add))
				for i := range more { // 1-byte writes
					if _, err := f.Write(more[i : i+1]); err != nil {
						t.Fatal(err)
					}
				}
				want = append(want, more...)
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				checkContent(t, fsys, name, want)
			}
		}
	})
}

// TestAppendStored checks that appending to a block codec file gives the
// bytes encoding the whole content would, header included.
func TestAppendStored(t *testing.T) {
	t.Parallel()
	for _, c := range []core.Codec{
		b64{}, b64{header: true},
		base16384.NewCodec(), base16384Codec("form=utf8", "bom=true"), base16384Codec("bom=true"),
		base16384Codec("checksum=true"), // rewritten whole: the checksum covers all the data
	} {
		for n := range 16 {
			base := afero.NewMemMapFs()
			fsys := newFs(t, base, c, fsx.WithSuffix(".enc"))
			want := randomBytes(n, 1)
			mustWrite(t, fsys, "x", want)
			for add := range 5 {
				f, err := fsys.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				more := randomBytes(add, uint64(add))
				f.Write(more)
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
				want = append(want, more...)
				if got := mustRead(t, base, "x.enc"); !bytes.Equal(got, encode(c, want)) {
					t.Fatalf("%v: %d+%d bytes: stored %q, want %q", c, n, add, got, encode(c, want))
				}
			}
		}
	}
}

// TestAppendTail checks that appending to a block codec file writes only
// its last block and the new data, and that appending to another file
// rewrites it whole through a temporary file.
func TestAppendTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		codec      core.Codec
		maxWritten int64
		creates    int64
	}{
		{b64{}, 4 + 4*4, 0},
		{base16384.NewCodec(), 10 + 3*8, 0},
		{base16384Codec("form=utf8"), 15 + 3*12, 0},
		{gz{}, 10000, 1},
		{base16384Codec("checksum=true"), 0, 1},
		{base16384Codec("form=utf8", "newline=true"), 0, 1}, // no blocks: WriteLayout says core.ErrNoLayout
	}
	for _, tt := range tests {
		base := &countingFs{Fs: afero.NewMemMapFs()}
		fsys := newFs(t, base, tt.codec)
		old := randomBytes(100000, 1)
		mustWrite(t, fsys, "x", old)
		base.written.Store(0)
		base.creates.Store(0)
		f, err := fsys.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("0123456789"))
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		written, creates := base.written.Load(), base.creates.Load()
		if tt.creates == 0 && (written > tt.maxWritten || creates != 0) {
			t.Errorf("%s: append wrote %d bytes, created %d files; want at most %d bytes and no file", tt.codec.Name(), written, creates, tt.maxWritten)
		}
		if tt.creates > 0 && creates != tt.creates {
			t.Errorf("%s: append created %d files, want %d", tt.codec.Name(), creates, tt.creates)
		}
		checkContent(t, fsys, "x", append(old, "0123456789"...))
	}
}

// TestAppendRead reads a file opened with O_RDWR|O_APPEND while appending.
func TestAppendRead(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		want := []byte("hello")
		mustWrite(t, fsys, "x", want)
		f, err := fsys.OpenFile("x", os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, more := range []string{", ", "world", "!"} {
			if _, err := f.WriteString(more); err != nil {
				t.Fatal(err)
			}
			want = append(want, more...)
			p := make([]byte, len(want)+1)
			n, err := f.ReadAt(p, 0)
			if err != io.EOF || !bytes.Equal(p[:n], want) {
				t.Fatalf("ReadAt = %q, %v; want %q, EOF", p[:n], err, want)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("Read = %q, %v; want %q", got, err, want)
			}
		}
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		checkContent(t, fsys, "x", want)
		f.WriteString("?")
		if err := f.Truncate(3); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		checkContent(t, fsys, "x", want[:3])
	})
}

// TestAppendOtherForm appends through a codec writing another form than the
// stored file's: the file is rewritten whole, in the codec's form.
func TestAppendOtherForm(t *testing.T) {
	t.Parallel()
	base := afero.NewMemMapFs()
	utf8 := newFs(t, base, base16384Codec("form=utf8"))
	raw := newFs(t, base, base16384.NewCodec())
	mustWrite(t, utf8, "x", []byte("0123456789"))
	f, err := raw.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("abc"))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := []byte("0123456789abc")
	checkContent(t, raw, "x", want)
	if got := mustRead(t, base, "x.b14"); !bytes.Equal(got, encode(base16384.NewCodec(), want)) {
		t.Errorf("stored %x, want the raw form %x", got, encode(base16384.NewCodec(), want))
	}
}

// TestAppendTwice appends through two files open at once: both appends
// land, in the order they were made, as with os.O_APPEND on a local file.
func TestAppendTwice(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "log", []byte("start\n"))
		var files []afero.File
		for range 2 {
			f, err := fsys.OpenFile("log", os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		files[0].WriteString("one\n")
		files[1].WriteString("two\n")
		for _, f := range files {
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
		checkContent(t, fsys, "log", []byte("start\none\ntwo\n"))
	})
}

// TestWriteAtNoAppend checks that a file opened with O_APPEND writes at an
// offset through WriteAtNoAppend, before and after appends (which stay at
// the end), with the other write held either way (in memory as an append,
// or staged).
func TestWriteAtNoAppend(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		mustWrite(t, fsys, "f", []byte("abcdefghij"))
		f, err := fsys.OpenFile("f", os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := f.(fsx.NoAppendWriterAt)
		if !ok {
			t.Fatalf("%T is not a NoAppendWriterAt", f)
		}
		f.Write([]byte("+"))
		if _, err := w.WriteAtNoAppend([]byte("XY"), 2); err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("-"))
		if _, err := w.WriteAtNoAppend([]byte("Z"), 10); err != nil {
			t.Fatal(err)
		}
		_, err = w.WriteAtNoAppend([]byte("x"), -1)
		checkPathError(t, "WriteAtNoAppend at a negative offset", err, fs.ErrInvalid)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		checkContent(t, fsys, "f", []byte("abXYefghijZ-"))

		r, err := fsys.Open("f")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		_, err = r.(fsx.NoAppendWriterAt).WriteAtNoAppend([]byte("x"), 0)
		checkPathError(t, "WriteAtNoAppend on a read-only file", err, fsx.ErrReadOnly)
	})
}
