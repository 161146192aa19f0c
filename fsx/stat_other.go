//go:build !unix

package fsx

import "os"

// hasIdentity reports whether info tells which file of the base it
// describes: never, here.
func hasIdentity(os.FileInfo) bool { return false }

// A fileID identifies a file of the base.
type fileID struct{}

// identity returns the identity of the base file info describes: not
// told, here.
func identity(os.FileInfo) (fileID, bool) { return fileID{}, false }

// sameID reports whether a and b describe one file, as os.SameFile tells.
func sameID(a, b os.FileInfo) bool { return os.SameFile(a, b) }

// links returns the number of names the base file info describes has: 1,
// as far as can be told here.
func links(os.FileInfo) uint64 { return 1 }
