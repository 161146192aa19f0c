package fsx_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/spf13/afero"
)

// FuzzEdits runs a sequence of file operations, read from the fuzz input,
// on a base16384 or gzip file through fsx and on a byte slice, and checks that both
// agree throughout and after Close.
func FuzzEdits(f *testing.F) {
	f.Add([]byte{0, 10, 1, 3, 2, 5})
	f.Add([]byte{6, 0, 0, 20, 3, 4, 7, 0, 0, 3})
	f.Add([]byte{8, 1, 0, 9, 4, 30, 5, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var c core.Codec = base16384.NewCodec()
		if len(ops) > 0 && ops[0]&4 != 0 {
			c = gz{}
		}
		fsys := newFs(t, afero.NewMemMapFs(), c)
		model := randomBytes(int(len(ops)%20), 1)
		mustWrite(t, fsys, "x", model)
		flag := os.O_RDWR
		if len(ops) > 0 && ops[0]%3 == 0 {
			flag |= os.O_APPEND
		}
		file, err := fsys.OpenFile("x", flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		var pos int64
		for i := 0; i+1 < len(ops); i += 2 {
			arg := int64(ops[i+1] % 40)
			data := randomBytes(int(arg), uint64(i))
			var err error
			switch ops[i] % 7 {
			case 0:
				if flag&os.O_APPEND != 0 {
					pos = int64(len(model))
				}
				_, err = file.Write(data)
				model = writeModel(model, data, pos)
				pos += arg
			case 1:
				if flag&os.O_APPEND == 0 {
					_, err = file.WriteAt(data, arg)
					model = writeModel(model, data, arg)
				}
			case 2:
				pos, err = file.Seek(arg, io.SeekStart)
			case 3:
				err = file.Truncate(arg)
				model = append(model[:min(int64(len(model)), arg)], make([]byte, max(0, arg-int64(len(model))))...)
			case 4:
				err = file.Sync()
			case 5:
				p := make([]byte, arg)
				n, rerr := file.Read(p)
				if rerr != nil && rerr != io.EOF {
					err = rerr
				}
				want := model[min(pos, int64(len(model))):min(pos+int64(n), int64(len(model)))]
				if !bytes.Equal(p[:n], want) {
					t.Fatalf("op %d: Read at %d = %x, want %x", i, pos, p[:n], want)
				}
				pos += int64(n)
			case 6:
				p := make([]byte, arg)
				n, rerr := file.ReadAt(p, pos)
				if rerr != nil && rerr != io.EOF {
					err = rerr
				}
				want := model[min(pos, int64(len(model))):min(pos+int64(n), int64(len(model)))]
				if n != len(want) && n != len(p) || !bytes.Equal(p[:n], want) {
					t.Fatalf("op %d: ReadAt at %d = %x, want %x", i, pos, p[:n], want)
				}
			}
			if err != nil {
				t.Fatalf("op %d (%d): %v", i, ops[i]%7, err)
			}
		}
		if err := file.Close(); err != nil {
			t.Fatal(err)
		}
		checkContent(t, fsys, "x", model)
	})
}
