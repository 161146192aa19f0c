package bencode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// testdataDir returns the shared test data directory: $B14FS_TESTDATA, or
// ../shared/testdata beside the module root.
func testdataDir(tb testing.TB) string {
	tb.Helper()
	if dir := os.Getenv("B14FS_TESTDATA"); dir != "" {
		return dir
	}
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			tb.Skip("shared test data not found: no go.mod above the package")
		}
		dir = filepath.Dir(dir)
	}
	dir = filepath.Join(dir, "..", "shared", "testdata")
	if _, err := os.Stat(filepath.Join(dir, "bencode")); err != nil {
		tb.Skipf("shared test data not found at %s (set B14FS_TESTDATA)", dir)
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
	names, err := filepath.Glob(filepath.Join(testdataDir(tb), "bencode", class, "*"))
	if err != nil || len(names) == 0 {
		tb.Skipf("no files in the bencode %s corpus", class)
	}
	slices.Sort(names)
	files := make([]corpusFile, len(names))
	for i, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		files[i] = corpusFile{filepath.Base(name), data}
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
