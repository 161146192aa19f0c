package bencode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/b14fs/b14fs/internal/shareddata"
)

// A corpusFile is one file of the shared bencode corpus.
type corpusFile struct {
	name string
	data []byte
}

// corpus returns the files of one class of the shared bencode corpus:
// "valid", "edge" or "malformed".
func corpus(tb testing.TB, class string) []corpusFile {
	tb.Helper()
	files := corpusIn(shareddata.Dir(tb, "bencode"), class)
	if len(files) == 0 {
		tb.Skipf("no files in the bencode %s corpus", class)
	}
	return files
}

// corpusIn returns the readable files of one class of the bencode corpus in
// dir.
func corpusIn(dir, class string) []corpusFile {
	names, _ := filepath.Glob(filepath.Join(dir, class, "*"))
	slices.Sort(names)
	var files []corpusFile
	for _, name := range names {
		if data, err := os.ReadFile(name); err == nil {
			files = append(files, corpusFile{filepath.Base(name), data})
		}
	}
	return files
}

func corpusSize(files []corpusFile) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f.data))
	}
	return n
}
