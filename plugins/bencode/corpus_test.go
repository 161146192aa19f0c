package bencode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// testdataDir returns the shared test data directory, or skips the test
// when there is none.
func testdataDir(tb testing.TB) string {
	tb.Helper()
	dir := testdataDirOrEmpty()
	if dir == "" {
		tb.Skip("shared test data not found: set B14FS_TESTDATA or place it at ../shared/testdata beside the module")
	}
	return dir
}

// testdataDirOrEmpty returns $B14FS_TESTDATA, or ../shared/testdata beside
// the module root when it holds a bencode corpus, or "".
func testdataDirOrEmpty() string {
	if dir := os.Getenv("B14FS_TESTDATA"); dir != "" {
		return dir
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
		dir = filepath.Dir(dir)
	}
	dir = filepath.Join(dir, "..", "shared", "testdata")
	if _, err := os.Stat(filepath.Join(dir, "bencode")); err != nil {
		return ""
	}
	return dir
}

// A corpusFile is one file of the shared bencode corpus.
type corpusFile struct {
	name string
	data []byte
}

// corpus returns the files of one class of the shared bencode corpus:
// "valid", "edge" or "malformed".
func corpus(tb testing.TB, class string) []corpusFile {
	tb.Helper()
	files := corpusIn(testdataDir(tb), class)
	if len(files) == 0 {
		tb.Skipf("no files in the bencode %s corpus", class)
	}
	return files
}

// corpusIn returns the readable files of one class of the corpus in dir.
func corpusIn(dir, class string) []corpusFile {
	names, _ := filepath.Glob(filepath.Join(dir, "bencode", class, "*"))
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
