package fsx

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/afero"
)

var (
	errIsDir  = syscall.EISDIR
	errNotDir = syscall.ENOTDIR
)

// dir is an open directory: the base's, listed under shown names.
type dir struct {
	afero.File
	fsys    *Fs
	name    string        // the name it was opened by
	entries []os.FileInfo // the shown entries, loaded by the first listing
	pos     int           // entries already returned
}

// Readdir returns the next count shown entries, or all the remaining ones
// when count <= 0, as os.File.Readdir does.
func (d *dir) Readdir(count int) ([]os.FileInfo, error) {
	if d.entries == nil {
		infos, err := d.File.Readdir(-1)
		if err == nil {
			d.entries, err = d.fsys.shownEntries(d.name, infos)
		}
		if err != nil {
			return nil, pathError("readdir", d.name, err)
		}
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

// Readdirnames returns the names of the next n shown entries, as
// os.File.Readdirnames does.
func (d *dir) Readdirnames(n int) ([]string, error) {
	infos, err := d.Readdir(n)
	names := make([]string, len(infos))
	for i, info := range infos {
		names[i] = info.Name()
	}
	return names, err
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

// shownEntries turns the base entries of directory name into the shown
// ones, sorted by name: directories, mapped files (with decoded sizes) and,
// with ShowUnmapped, unmapped files; a mapped file wins a name over the
// others.
func (f *Fs) shownEntries(name string, infos []os.FileInfo) ([]os.FileInfo, error) {
	shown := make([]os.FileInfo, 0, len(infos))
	mapped := make(map[string]bool)
	for _, info := range infos {
		base := info.Name()
		switch s, ok := f.names.shownName(base); {
		case info.IsDir() || f.showsUnmapped(base):
			shown = append(shown, info)
		case ok:
			di, err := f.decodedInfo(s, filepath.Join(name, base))
			if err != nil {
				return nil, err
			}
			shown = append(shown, di)
			mapped[s] = true
		}
	}
	shown = slices.DeleteFunc(shown, func(fi os.FileInfo) bool {
		_, isMapped := fi.(*fileInfo)
		return !isMapped && mapped[fi.Name()]
	})
	slices.SortFunc(shown, func(a, b os.FileInfo) int { return strings.Compare(a.Name(), b.Name()) })
	return shown, nil
}
