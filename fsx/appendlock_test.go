package fsx_test

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestAppendTwoViews appends lines to one file through two Fs over one
// directory at once, as two processes (two mounts) do: each append, made
// in place, lands whole, and the file decodes. A view of its own has no
// state in common with the other, so the base's lock on the stored file
// is what orders their appends.
func TestAppendTwoViews(t *testing.T) {
	dir := t.TempDir()
	views := []afero.Fs{
		newFs(t, afero.NewBasePathFs(afero.NewOsFs(), dir), base16384.NewCodec()),
		newFs(t, afero.NewBasePathFs(afero.NewOsFs(), dir), base16384.NewCodec()),
	}
	mustWrite(t, views[0], "log", []byte("start\n"))
	const lines = 150
	var wg sync.WaitGroup
	for v, fsys := range views {
		wg.Go(func() {
			for i := range lines {
				f, err := fsys.OpenFile("log", os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Error(err)
					return
				}
				fmt.Fprintf(f, "view %d line %03d\n", v, i)
				if err := f.Close(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	data, err := afero.ReadFile(newFs(t, afero.NewBasePathFs(afero.NewOsFs(), dir), base16384.NewCodec()), "log")
	if err != nil {
		t.Fatalf("the log after appends through two views: %v", err)
	}
	for v := range views {
		for i := range lines {
			if line := fmt.Sprintf("view %d line %03d\n", v, i); !bytes.Contains(data, []byte(line)) {
				t.Fatalf("%q lost (%d lines of %d)", line, bytes.Count(data, []byte("\n")), 2*lines+1)
			}
		}
	}
}
