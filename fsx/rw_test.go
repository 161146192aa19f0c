package fsx_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/spf13/afero"
)

func TestWriteRead(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		for _, n := range sizes {
			name := fmt.Sprintf("f%d", n)
			want := randomBytes(n, uint64(n))
			mustWrite(t, fsys, name, want)
			checkContent(t, fsys, name, want)

			stored := mustRead(t, base, name+suffix(c))
			if got, err := decode(c, stored); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: stored data decodes to %d bytes, %v; want %d bytes", name, len(got), err, n)
			}

			f, err := fsys.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			// iotest.TestReader reads every byte with a ReadAt of its
			// own, backwards: over the network each is a request, so
			// larger files are read there as a whole and byte by byte.
			if n <= 100 || !can(base).remote {
				if err := iotest.TestReader(f, want); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			if got, err := readOneByte(f); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: 1-byte reads gave %d bytes, %v", name, len(got), err)
			}
			f.Close()
		}
	})
}

// TestStoredBytes checks that a block codec's stored file is exactly the
// codec's encoding, however it was written.
func TestStoredBytes(t *testing.T) {
	t.Parallel()
	for _, c := range []core.Codec{b64{}, b64{header: true}} {
		base := afero.NewMemMapFs()
		fsys := newFs(t, base, c)
		want := randomBytes(1000, 7)
		f, err := fsys.Create("x")
		if err != nil {
			t.Fatal(err)
		}
		w := iotest.TruncateWriter(f, 1<<20) // a writer that is not an io.ReaderFrom
		for i := range want {
			w.Write(want[i : i+1])
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, base, "x.b64"); !bytes.Equal(got, encode(c, want)) {
			t.Errorf("header=%v: stored %.40q, want %.40q", c.(b64).header, got, encode(c, want))
		}
	}
}

func TestReadAt(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		want := randomBytes(100, 3)
		mustWrite(t, fsys, "x", want)
		f, err := fsys.Open("x")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, n := range []int{0, 1, 2, 3, 4, 5, 9, 50, 100, 101} {
			for off := int64(0); off <= 102; off++ {
				p := make([]byte, n)
				got, err := f.ReadAt(p, off)
				wantN := max(0, min(n, 100-int(off)))
				switch {
				case got != wantN:
					t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d", n, off, got, err, wantN)
				case got < n && err != io.EOF:
					t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want io.EOF", n, off, got, err)
				case got == n && err != nil && err != io.EOF:
					t.Fatalf("ReadAt(%d bytes, %d) = %d, %v", n, off, got, err)
				case !bytes.Equal(p[:got], want[min(off, 100):min(off, 100)+int64(got)]):
					t.Fatalf("ReadAt(%d bytes, %d) read wrong data", n, off)
				}
			}
		}
		if _, err := f.ReadAt(make([]byte, 1), -1); err == nil {
			t.Error("ReadAt at a negative offset succeeded")
		}
	})
}

func TestSeek(t *testing.T) {
	t.Parallel()
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		want := randomBytes(50, 4)
		mustWrite(t, fsys, "x", want)
		f, err := fsys.Open("x")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		tests := []struct {
			offset int64
			whence int
			pos    int64
		}{
			{10, io.SeekStart, 10},
			{5, io.SeekCurrent, 15},
			{-3, io.SeekCurrent, 12},
			{-7, io.SeekEnd, 43},
			{0, io.SeekStart, 0},
			{60, io.SeekStart, 60},
			{2, io.SeekEnd, 52},
		}
		for _, tt := range tests {
			pos, err := f.Seek(tt.offset, tt.whence)
			if err != nil || pos != tt.pos {
				t.Fatalf("Seek(%d, %d) = %d, %v; want %d", tt.offset, tt.whence, pos, err, tt.pos)
			}
			p := make([]byte, 4)
			n, err := io.ReadFull(f, p)
			if tt.pos >= 50 {
				if err != io.EOF {
					t.Fatalf("read after Seek(%d, %d): %d, %v; want io.EOF", tt.offset, tt.whence, n, err)
				}
			} else if err != nil || !bytes.Equal(p, want[tt.pos:tt.pos+4]) {
				t.Fatalf("read after Seek(%d, %d) = %q, %v", tt.offset, tt.whence, p[:n], err)
			}
			f.Seek(tt.pos, io.SeekStart)
		}
		if _, err := f.Seek(-1, io.SeekStart); err == nil {
			t.Error("Seek to a negative offset succeeded")
		}
		if _, err := f.Seek(0, 7); err == nil {
			t.Error("Seek with a bad whence succeeded")
		}
	})
}

// TestEdits applies a sequence of writes, seeks and truncations to a file
// and to a byte slice, checking that both agree at every step and after
// Close.
func TestEdits(t *testing.T) {
	t.Parallel()
	type op struct {
		kind string // "write", "writeat", "seek", "truncate", "sync", "read"
		off  int64
		n    int
	}
	tests := []struct {
		name    string
		initial int
		flag    int
		ops     []op
	}{
		{"stream", 0, os.O_TRUNC, []op{{"write", 0, 10}, {"write", 0, 1}, {"write", 0, 100}}},
		{"overwrite middle", 50, 0, []op{{"writeat", 10, 5}}},
		{"write at end", 50, 0, []op{{"writeat", 50, 5}, {"write", 0, 3}}},
		{"seek back", 0, os.O_TRUNC, []op{{"write", 0, 20}, {"seek", 5, 0}, {"write", 0, 3}, {"read", 0, 4}}},
		{"read while streaming", 0, os.O_TRUNC, []op{{"write", 0, 20}, {"seek", 0, 0}, {"read", 0, 7}, {"write", 0, 2}}},
		{"hole", 10, 0, []op{{"writeat", 30, 4}}},
		{"truncate down", 40, 0, []op{{"truncate", 17, 0}, {"writeat", 3, 3}}},
		{"truncate up", 10, 0, []op{{"truncate", 25, 0}}},
		{"truncate to zero", 30, 0, []op{{"truncate", 0, 0}, {"write", 0, 9}}},
		{"truncate same", 30, 0, []op{{"truncate", 30, 0}}},
		{"sync between", 0, os.O_TRUNC, []op{{"write", 0, 9}, {"sync", 0, 0}, {"write", 0, 5}, {"sync", 0, 0}, {"writeat", 2, 2}}},
		{"trunc flag", 40, os.O_TRUNC, []op{}},
		{"no change", 40, 0, []op{{"read", 0, 3}}},
	}
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		for i, tt := range tests {
			name := fmt.Sprintf("e%d", i)
			model := randomBytes(tt.initial, uint64(i))
			mustWrite(t, fsys, name, model)
			f, err := fsys.OpenFile(name, os.O_RDWR|tt.flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tt.flag&os.O_TRUNC != 0 {
				model = nil
			}
			var pos int64
			for j, o := range tt.ops {
				data := randomBytes(o.n, uint64(100*i+j))
				var err error
				switch o.kind {
				case "write":
					_, err = f.Write(data)
					model = writeModel(model, data, pos)
					pos += int64(o.n)
				case "writeat":
					_, err = f.WriteAt(data, o.off)
					model = writeModel(model, data, o.off)
				case "seek":
					pos, err = f.Seek(o.off, io.SeekStart)
				case "truncate":
					err = f.Truncate(o.off)
					model = append(model[:min(int64(len(model)), o.off)], make([]byte, max(0, o.off-int64(len(model))))...)
				case "sync":
					err = f.Sync()
				case "read":
					p := make([]byte, o.n)
					var n int
					n, err = io.ReadFull(f, p)
					if !bytes.Equal(p[:n], model[pos:pos+int64(n)]) {
						t.Fatalf("%s: op %d: read %q, want %q", tt.name, j, p[:n], model[pos:pos+int64(n)])
					}
					pos += int64(n)
				}
				if err != nil {
					t.Fatalf("%s: op %d (%s): %v", tt.name, j, o.kind, err)
				}
				info, err := f.Stat()
				if err != nil || info.Size() != int64(len(model)) {
					t.Fatalf("%s: op %d: Stat = %v, %v; want size %d", tt.name, j, info, err, len(model))
				}
				p := make([]byte, len(model))
				if n, err := f.ReadAt(p, 0); n != len(model) || (err != nil && err != io.EOF) || !bytes.Equal(p, model) {
					t.Fatalf("%s: op %d: ReadAt of the whole file = %d, %v", tt.name, j, n, err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatalf("%s: Close: %v", tt.name, err)
			}
			checkContent(t, fsys, name, model)
		}
	})
}

// writeModel writes p at off in model, as a file write does (writing
// nothing changes nothing, even past the end).
func writeModel(model, p []byte, off int64) []byte {
	if len(p) == 0 {
		return model
	}
	if end := off + int64(len(p)); end > int64(len(model)) {
		model = append(model, make([]byte, end-int64(len(model)))...)
	}
	copy(model[off:], p)
	return model
}

// TestBaseReads reads through bases whose files' ReadAt return io.EOF with
// the last bytes, or fail after a few calls.
func TestBaseReads(t *testing.T) {
	t.Parallel()
	for cname, c := range codecs() {
		mem := afero.NewMemMapFs()
		want := randomBytes(200000, 5)
		mustWrite(t, newFs(t, mem, c), "x", want)

		fsys := newFs(t, quirkyFs{mem, func(f afero.File) afero.File { return dataEOFFile{f} }}, c)
		checkContent(t, fsys, "x", want)
		f, err := fsys.Open("x")
		if err != nil {
			t.Fatal(err)
		}
		if err := iotest.TestReader(f, want); err != nil {
			t.Errorf("%s: data with io.EOF: %v", cname, err)
		}
		f.Close()

		// Larger than the few reads of the base that fsx makes, of up to
		// 1 MiB each, before the base fails.
		mustWrite(t, newFs(t, mem, c), "big", randomBytes(5<<20, 6))
		var calls atomic.Int64
		fsys = newFs(t, quirkyFs{mem, func(f afero.File) afero.File { return timeoutFile{f, &calls} }}, c)
		_, err = afero.ReadFile(fsys, "big")
		checkPathError(t, cname+": reading with base timeouts", err, iotest.ErrTimeout)
	}
}

// TestCreateStoresEmpty checks that a new file closed without writes is
// stored as the codec's encoding of no data.
func TestCreateStoresEmpty(t *testing.T) {
	t.Parallel()
	for _, flag := range []int{os.O_TRUNC, 0} {
		base := afero.NewMemMapFs()
		fsys := newFs(t, base, gz{})
		f, err := fsys.OpenFile("x", os.O_WRONLY|os.O_CREATE|flag, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, base, "x.gz"); !bytes.Equal(got, encode(gz{}, nil)) {
			t.Errorf("flag %#x: stored %x, want %x", flag, got, encode(gz{}, nil))
		}
	}
}

// suffix returns the suffix fsx gives stored names by default for c.
func suffix(c core.Codec) string {
	if s, ok := c.(core.Suffixer); ok {
		return s.Suffix()
	}
	return ""
}
