package fsx_test

import (
	"io"
	"os"
	"testing"

	"github.com/spf13/afero"
	"go.uber.org/goleak"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
)

// TestCloseMidRead opens files of every codec, reads a little of each and
// closes them: no goroutine and no open base file may be left.
func TestCloseMidRead(t *testing.T) {
	forEach(t, func(t *testing.T, fsys *fsx.Fs, base afero.Fs, c core.Codec) {
		content := randomBytes(100000, 3)
		mustWrite(t, fsys, "f", content)
		fds := openFiles()
		for i := range 1000 {
			f, err := fsys.Open("f")
			if err != nil {
				t.Fatal(err)
			}
			p := make([]byte, 1+i%50)
			if i%2 == 0 {
				_, err = f.Read(p)
			} else {
				_, err = f.ReadAt(p, int64(i*97))
			}
			if err != nil && err != io.EOF {
				t.Fatalf("read %d: %v", i, err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
		goleak.VerifyNone(t)
		if n := openFiles(); n > fds {
			t.Errorf("%d files open after closing them all, %d before", n, fds)
		}
	})
}

// openFiles returns how many file descriptors the process has open, or 0
// where /proc does not tell.
func openFiles() int {
	fds, _ := os.ReadDir("/proc/self/fd")
	return len(fds)
}
