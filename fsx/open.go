package fsx

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/afero"
)

const accessMode = os.O_RDONLY | os.O_WRONLY | os.O_RDWR

// OpenFile opens the named file with the given flags (os.O_RDONLY etc.),
// creating it with perm when os.O_CREATE is given and it does not exist.
// Directories and unmapped files are opened in the base as they are.
func (f *Fs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	name = filepath.Clean(name)
	t, err := f.resolve(name)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	isDir := t.info != nil && t.info.IsDir()
	if isDir && flag&accessMode != os.O_RDONLY {
		return nil, pathError("open", name, errIsDir)
	}
	if !t.encoded {
		bf, err := f.base.OpenFile(t.stored, flag, perm)
		if err != nil {
			return nil, pathError("open", name, err)
		}
		if isDir {
			return &dir{File: bf, fsys: f, name: name}, nil
		}
		return unmappedFile{bf}, nil
	}
	file, err := f.openEncoded(name, t, flag, perm)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	return file, nil
}

func (f *Fs) openEncoded(name string, t target, flag int, perm os.FileMode) (*file, error) {
	switch {
	case t.info != nil && flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		return nil, fs.ErrExist
	case t.info == nil && flag&os.O_CREATE == 0:
		return nil, fs.ErrNotExist
	}
	created := false
	if t.info == nil {
		var err error
		if created, err = f.reserve(t.stored, perm, flag&os.O_EXCL != 0); err != nil {
			return nil, err
		}
	}
	ino, err := f.acquire(t.stored, t.seen(), created)
	if err != nil {
		if created {
			f.base.Remove(t.stored)
		}
		return nil, err
	}
	file := &file{ino: ino, name: name, flag: flag}
	ino.mu.Lock()
	if (t.info == nil || flag&os.O_TRUNC != 0) && flag&accessMode != os.O_RDONLY {
		// Even when the file is empty already, so that Close stores the
		// codec's encoding of no data.
		var s *streamEdit
		if s, err = ino.newStream(nil); err == nil {
			ino.setEdit(s)
			file.changed = true
		}
	}
	if err == nil {
		ino.opens[file] = struct{}{}
	}
	ino.mu.Unlock()
	if err != nil {
		f.releaseInode(ino)
		if created {
			f.base.Remove(t.stored)
		}
		return nil, err
	}
	return file, nil
}

// reserve creates the stored file of a new file, empty (which stands for
// no data whatever the codec), so that the name exists from now on, as with
// os.OpenFile, and reports whether it did. Unless excl is set, a file
// created there meanwhile is not an error.
func (f *Fs) reserve(path string, perm os.FileMode, excl bool) (bool, error) {
	bf, err := f.base.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		if !excl && errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, bf.Close()
}

// unmappedFile is a base file shown as it is. Its ReadAt reports io.EOF
// along with a short read, as io.ReaderAt requires and not every base
// does (mem.File does not).
type unmappedFile struct {
	afero.File
}

func (u unmappedFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := u.File.ReadAt(p, off)
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}
