//go:build !unix

package fsx

import "os"

// hasIdentity reports whether info tells which file of the base it
// describes: never, here.
func hasIdentity(os.FileInfo) bool { return false }

// owner returns the owner and group of the base file info describes: not
// told, here.
func owner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
