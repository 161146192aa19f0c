package fsx

import (
	"os"

	"github.com/spf13/afero"
)

// A Replacer is a base filesystem that replaces a file's content whole,
// without a rename, such as an object store, where a PUT is atomic and
// there is no rename. fsx then writes a changed file's new content through
// Replace instead of into a temporary file renamed over it, and never
// changes a stored file in place. The other optional capabilities are
// HighLatency, CheapLookups, QuietOpener, and ConcurrentReaderAt of the
// files a base opens.
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

// A HighLatency base is one whose calls each wait for a round trip over a
// network (SFTP, S3), as its HighLatency method reports. fsx then makes at
// once the calls it has several of to make: the lookups of a directory's
// entries (ConcurrentLookups), the Stats of a store.
type HighLatency interface {
	HighLatency() bool
}

// A CheapLookups base is a HighLatency one whose lookups cost the server
// little, a name where nothing is included (SFTP: an lstat), as its
// CheapLookups method reports. fsx then makes the second lookup a name may
// need (the name itself, after its stored name) with the first, though it
// is wasted where the first finds a file: a lookup of a directory, or of a
// name where nothing is, takes one round trip, not two. S3's lookup of a
// missing name costs two requests (a HEAD and a LIST), so s3fs reports
// none.
type CheapLookups interface {
	CheapLookups() bool
}

// A QuietOpener is a base filesystem that can open a file for reading
// without changing its access time (with O_NOATIME, on Linux), as rootfs
// can. fsx opens a stored file so to read what its decoded size needs, so
// that a Stat does not count as a read of the file (relatime sets the
// access time of a file read since its last change); reading its content
// goes through Open and changes it as a read does.
type QuietOpener interface {
	OpenQuietly(name string) (afero.File, error)
}

// ConcurrentLookups returns how many lookups to make at once over fsys
// where there are several to make, such as the entries of a directory
// that fsx's Readdir, a mount or a WebDAV server lists: 16 where each call
// waits for a network (HighLatency), else 1, one after the other.
func ConcurrentLookups(fsys afero.Fs) int {
	if h, ok := fsys.(HighLatency); ok && h.HighLatency() {
		return 16
	}
	return 1
}
