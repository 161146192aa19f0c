package fsx

import (
	"path/filepath"
	"strings"

	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
)

// A mapping turns the base names of shown files into the base names of the
// stored files holding their encoding, and back. Names are single path
// elements; directories are never mapped.
type mapping struct {
	stored string // suffix of stored names
	shown  string // suffix that replaces it in shown names ("" to drop it)
}

// storedName returns the stored name of the shown file name, and false when
// the name has no stored form (a stored name cannot be a temporary file's).
func (m mapping) storedName(shown string) (string, bool) {
	if !strings.HasSuffix(shown, m.shown) || len(shown) == len(m.shown) {
		return "", false
	}
	stored := shown[:len(shown)-len(m.shown)] + m.stored
	return stored, !atomicfile.IsTemp(stored)
}

// shownName returns the shown name of the stored file name, and false when
// the name is not one the mapping produces.
func (m mapping) shownName(stored string) (string, bool) {
	if !strings.HasSuffix(stored, m.stored) || len(stored) == len(m.stored) || atomicfile.IsTemp(stored) {
		return "", false
	}
	return stored[:len(stored)-len(m.stored)] + m.shown, true
}

// isRoot reports whether name denotes the root of a filesystem, which has no
// base name to map.
func isRoot(name string) bool {
	name = filepath.Clean(name)
	return filepath.Dir(name) == name
}

// NameOverhead returns how many bytes longer a stored name is than the
// name shown for it (0 when not longer): a name shown can be at most the
// base's longest name less that (statfs's NAME_MAX, as a mount reports it).
func (f *Fs) NameOverhead() int { return max(len(f.names.stored)-len(f.names.shown), 0) }
