// Package umask tells the file mode creation mask of this process, which
// os.OpenFile and os.Mkdir apply to the files they make, for the file
// systems that must apply it themselves (a remote one, whose server does
// not know it).
package umask

import "os"

// Apply returns perm less the bits the process's umask removes, as the
// kernel does for a file or directory made with perm.
func Apply(perm os.FileMode) os.FileMode { return perm &^ Get() }
