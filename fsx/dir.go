package fsx

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/fsutil/parallel"
)

// dir is an open directory: the base's, listed under shown names.
type dir struct {
	afero.File
	fsys    *Fs
	name    string     // the name it was opened by
	entries []dirEntry // the shown entries, loaded by the first listing
	pos     int        // entries already returned
}

// Readdir returns the next count shown entries, or all the remaining ones
// when count <= 0, as os.File.Readdir does. It decodes the sizes of the
// encoded files it returns, several at once over a HighLatency base. An
// entry removed since the directory was listed is left out, as os.File
// leaves it; one whose size cannot be decoded is left out too, and the
// first such failure is returned along with the entries that could be
// read.
func (d *dir) Readdir(count int) ([]os.FileInfo, error) {
	entries, err := d.next(count)
	infos := make([]os.FileInfo, len(entries))
	errs := make([]error, len(entries))
	parallel.For(len(entries), ConcurrentLookups(d.fsys), func(i int) { infos[i], errs[i] = entries[i].Info() })
	shown := infos[:0]
	for i, info := range infos {
		if errors.Is(errs[i], fs.ErrNotExist) {
			continue
		}
		if errs[i] != nil {
			if err == nil || err == io.EOF {
				err = errs[i]
			}
			continue
		}
		shown = append(shown, info)
	}
	return shown, err
}

// ReadDir returns the next n shown entries, or all the remaining ones when
// n <= 0, as fs.ReadDirFile does. The size of an encoded file is decoded
// when its entry's Info method is called, so that a file that does not
// decode fails there, not the listing.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	entries, err := d.next(n)
	if err != nil {
		return nil, err
	}
	des := make([]fs.DirEntry, len(entries))
	for i := range entries {
		des[i] = entries[i]
	}
	return des, nil
}

// Readdirnames returns the names of the next n shown entries, as
// os.File.Readdirnames does, without decoding anything.
func (d *dir) Readdirnames(n int) ([]string, error) {
	entries, err := d.next(n)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, err
}

// next returns the next count shown entries, or all the remaining ones when
// count <= 0, listing the base directory on the first call.
func (d *dir) next(count int) ([]dirEntry, error) {
	if d.entries == nil {
		infos, err := d.File.Readdir(-1)
		if err != nil {
			return nil, pathError("readdir", d.name, err)
		}
		d.entries = d.fsys.shownEntries(d.name, infos)
	}
	rest := d.entries[d.pos:]
	if count <= 0 {
		d.pos = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(count, len(rest))]
	d.pos += len(rest)
	return rest, nil
}

// Seek to the start restarts the listing.
func (d *dir) Seek(offset int64, whence int) (int64, error) {
	n, err := d.File.Seek(offset, whence)
	if err == nil && n == 0 {
		d.entries, d.pos = nil, 0
	}
	return n, err
}

func (d *dir) Read([]byte) (int, error)           { return 0, pathError("read", d.Name(), errIsDir) }
func (d *dir) ReadAt([]byte, int64) (int, error)  { return 0, pathError("read", d.Name(), errIsDir) }
func (d *dir) Write([]byte) (int, error)          { return 0, pathError("write", d.Name(), errIsDir) }
func (d *dir) WriteAt([]byte, int64) (int, error) { return 0, pathError("write", d.Name(), errIsDir) }
func (d *dir) WriteString(string) (int, error)    { return 0, pathError("write", d.Name(), errIsDir) }
func (d *dir) Truncate(int64) error               { return pathError("truncate", d.Name(), errIsDir) }

// A dirEntry is a shown entry of a directory.
type dirEntry struct {
	fsys    *Fs
	info    os.FileInfo // the base's
	name    string      // the shown name
	stored  string      // the base path
	encoded bool        // a file whose content is decoded
	mapped  bool        // stored under a mapped name
}

func (e dirEntry) Name() string      { return e.name }
func (e dirEntry) IsDir() bool       { return e.info.IsDir() }
func (e dirEntry) Type() fs.FileMode { return e.info.Mode().Type() }

// Info returns the entry's FileInfo, decoding the size of an encoded file;
// a link's is the link's, with the size of its shown target.
func (e dirEntry) Info() (fs.FileInfo, error) {
	if e.mapped && e.info.Mode()&os.ModeSymlink != 0 {
		info, _, err := e.fsys.LstatIfPossible(filepath.Join(filepath.Dir(e.stored), e.name))
		return info, err
	}
	if !e.encoded {
		return asShown(e.info, e.name), nil
	}
	info, err := e.fsys.decodedInfo(e.name, e.stored, seen{})
	if err != nil {
		return nil, pathError("stat", filepath.Join(filepath.Dir(e.stored), e.name), err)
	}
	return info, nil
}

func (e dirEntry) String() string { return fs.FormatDirEntry(e) }

// shownEntries turns the base entries of directory name into the shown
// ones, sorted by name: directories, mapped files and, with ShowUnmapped,
// unmapped files, but no temporary file or directory; a mapped file wins a
// name over the others.
func (f *Fs) shownEntries(name string, infos []os.FileInfo) []dirEntry {
	shown := make([]dirEntry, 0, len(infos))
	mapped := make(map[string]bool)
	for _, info := range infos {
		base := info.Name()
		e := dirEntry{fsys: f, info: info, name: base, stored: filepath.Join(name, base)}
		switch s, ok := f.names.shownName(base); {
		case atomicfile.IsTemp(base):
			// A temporary file or directory of the project's: the stage
			// of a file or tree not made yet.
		case info.IsDir() || f.showsUnmapped(base):
			shown = append(shown, e)
		case ok:
			// (A link is no encoded file: its Info is the link's.)
			e.name, e.encoded, e.mapped = s, !isSpecial(info) && info.Mode()&os.ModeSymlink == 0, true
			shown = append(shown, e)
			mapped[s] = true
		}
	}
	shown = slices.DeleteFunc(shown, func(e dirEntry) bool { return !e.mapped && mapped[e.name] })
	slices.SortFunc(shown, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return shown
}
