package bencode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/shareddata"
)

// A corpusFile is one file of a bencode corpus.
type corpusFile struct {
	name string
	data []byte
}

// corpusDir returns the directory of the shared bencode corpus when it is
// there, and else the compact corpus in testdata/corpus.
func corpusDir() string {
	if root := shareddata.Root(); root != "" {
		if dir := filepath.Join(root, "bencode"); dirExists(dir) {
			return dir
		}
	}
	return filepath.Join("testdata", "corpus")
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// corpus returns the files of one class of the bencode corpus: "valid",
// "edge" or "malformed".
func corpus(tb testing.TB, class string) []corpusFile {
	tb.Helper()
	files := corpusIn(corpusDir(), class)
	if len(files) == 0 {
		tb.Fatalf("no files in the bencode %s corpus in %s", class, corpusDir())
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
