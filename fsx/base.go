package fsx

import (
	"os"

	"github.com/spf13/afero"
)

// A Replacer is a base filesystem that replaces a file's content whole,
// without a rename, such as an object store, where a PUT is atomic and
// there is no rename. fsx then writes a changed file's new content through
// Replace instead of into a temporary file renamed over it, and never
// changes a stored file in place. Its other optional capability is
// ConcurrentReaderAt, of the files a base opens.
type Replacer interface {
	afero.Fs
	// Replace returns a new, empty content for the file name, open for
	// reading and writing (at any offset). Its Close makes it name's
	// content, whole and at once; its Discard drops it, and name stays as
	// it was. Replacements keep no mode of their own: their Chmod does
	// nothing.
	Replace(name string, perm os.FileMode) (Replacement, error)
}

// A Replacement is the pending new content of a file of a Replacer.
type Replacement = interface {
	afero.File
	// Discard drops the content, leaving the file as it was. It does
	// nothing after Close.
	Discard()
}
