package fsx

import (
	"io/fs"
	"os"
	"sync"
	"sync/atomic"

	"github.com/spf13/afero"
)

// file is an open encoded file.
//
// What it holds is in one of four states: the stored content as it is (src);
// a stream of sequential writes being encoded into a temporary file; the
// whole plain content in memory, for writes at other offsets; or data
// appended to a block codec file, held until Close or Sync rewrite the
// stored file's last block.
type file struct {
	fsys   *Fs
	name   string // the shown name it was opened by
	stored string // the base path
	flag   int

	closed atomic.Bool
	// src is the stored file's content. It is replaced under mu, and read
	// without it by ReadAt on a file opened read-only.
	src atomic.Pointer[source]

	mu     sync.Mutex // guards the fields below
	off    int64
	info   os.FileInfo   // the stored file's, as of the last load
	base   afero.File    // the stored file, open for reading
	baseAt *baseReaderAt // base, for the sources over it (Refresh makes more)
	edit   edit          // nil while the content is src's
}

// An edit is a change to a file's content not yet stored.
type edit interface {
	size() (int64, error)
	// writeAt writes p at off, or returns false when this edit cannot take
	// that write.
	writeAt(p []byte, off int64) (bool, error)
	// plain returns the whole plain content, ending the edit.
	plain() ([]byte, error)
	// commit stores the content, ending the edit.
	commit() error
	// discard drops the edit.
	discard()
}

var _ afero.File = (*file)(nil)

// load opens the stored file and reads its layout.
func (f *file) load() error {
	bf, err := f.fsys.base.Open(f.stored)
	if err != nil {
		return err
	}
	info, err := bf.Stat()
	switch {
	case err == nil && info.IsDir(): // a directory named like a stored file
		err = errIsDir
	case err == nil:
		at := newBaseReaderAt(bf)
		var src *source
		if src, err = newSource(f.fsys.decoders, at, info.Size()); err == nil {
			f.src.Store(src)
			f.baseAt = at
		}
	}
	if err != nil {
		bf.Close()
		return err
	}
	f.base, f.info = bf, info
	return nil
}

func (f *file) release() {
	if f.edit != nil {
		f.edit.discard()
		f.edit = nil
	}
	f.src.Load().close()
	f.base.Close()
}

// Name returns the name the file was opened by.
func (f *file) Name() string { return f.name }

func (f *file) check(op string, access int) error {
	mode := f.flag & accessMode
	switch {
	case f.closed.Load():
		return pathError(op, f.name, fs.ErrClosed)
	case access == os.O_RDONLY && mode == os.O_WRONLY:
		return pathError(op, f.name, ErrWriteOnly)
	case access == os.O_WRONLY && mode == os.O_RDONLY:
		return pathError(op, f.name, ErrReadOnly)
	}
	return nil
}

func (f *file) size() (int64, error) {
	if f.edit != nil {
		return f.edit.size()
	}
	return f.src.Load().Size()
}

// Close stores what was written and closes the file.
func (f *file) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Swap(true) {
		return pathError("close", f.name, fs.ErrClosed)
	}
	err := f.commit()
	f.release()
	if err != nil {
		return pathError("close", f.name, err)
	}
	return nil
}

// Sync stores what was written so far.
func (f *file) Sync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("sync", accessMode); err != nil {
		return err
	}
	if f.edit == nil {
		return nil
	}
	if err := f.commit(); err != nil {
		return pathError("sync", f.name, err)
	}
	f.src.Load().close()
	f.base.Close()
	if err := f.load(); err != nil {
		f.closed.Store(true)
		return pathError("sync", f.name, err)
	}
	return nil
}

func (f *file) commit() error {
	if f.edit == nil {
		return nil
	}
	unlock := lockStored(f.fsys, f.stored)
	err := f.edit.commit()
	unlock()
	if err != nil {
		f.edit = failedEdit{err}
		return err
	}
	f.edit = nil
	return nil
}

// Stat returns the file's FileInfo, with its current decoded size.
func (f *file) Stat() (os.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("stat", accessMode); err != nil {
		return nil, err
	}
	size, err := f.size()
	if err != nil {
		return nil, pathError("stat", f.name, err)
	}
	return shownInfo(f.info, f.name, size), nil
}

// Readdir fails: a file is not a directory.
func (f *file) Readdir(int) ([]os.FileInfo, error) {
	return nil, pathError("readdir", f.name, errNotDir)
}

// Readdirnames fails: a file is not a directory.
func (f *file) Readdirnames(int) ([]string, error) {
	return nil, pathError("readdirnames", f.name, errNotDir)
}

// commitLocks serializes the commits to each stored file within a process,
// so that two files committing in place (an append, a stage) do not
// interleave their writes.
var commitLocks struct {
	mu sync.Mutex
	m  map[storedKey]*storedLock
}

type storedKey struct {
	fsys *Fs
	path string
}

type storedLock struct {
	sync.Mutex
	users int
}

// lockStored locks the stored file path of fsys for a commit and returns
// the function that unlocks it.
func lockStored(fsys *Fs, path string) (unlock func()) {
	k := storedKey{fsys, path}
	commitLocks.mu.Lock()
	if commitLocks.m == nil {
		commitLocks.m = make(map[storedKey]*storedLock)
	}
	l := commitLocks.m[k]
	if l == nil {
		l = &storedLock{}
		commitLocks.m[k] = l
	}
	l.users++
	commitLocks.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		commitLocks.mu.Lock()
		if l.users--; l.users == 0 {
			delete(commitLocks.m, k)
		}
		commitLocks.mu.Unlock()
	}
}

// Refresh brings a file that holds no writes up to date with the stored file
// it has open, when that changed in place since it was opened or last
// refreshed: appended to in place, truncated, rewritten by another program.
// Reads then go on with the new content. It reports whether the stored
// file's size or modification time changed. A stored file replaced by a
// rename is not followed: the file goes on reading the one it has open, as
// an open os.File does. (internal/mount uses it so that a program reading a
// file sees what is appended to it, as tail -f needs.) Reads running
// meanwhile finish with the content they started on.
func (f *file) Refresh() (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check("refresh", accessMode); err != nil {
		return false, err
	}
	if f.edit != nil {
		return false, nil
	}
	info, err := f.base.Stat()
	if err != nil {
		return false, pathError("refresh", f.name, err)
	}
	changed := info.Size() != f.info.Size() || !info.ModTime().Equal(f.info.ModTime())
	src, err := newSource(f.fsys.decoders, f.baseAt, info.Size())
	if err != nil {
		return changed, pathError("refresh", f.name, err)
	}
	f.src.Swap(src).close()
	f.info = info
	return changed, nil
}

// Discard closes the file without storing the writes it holds: the stored
// file stays as the last Sync left it. (internal/mount discards the writes
// to a file removed while open, which a local file system would drop with
// the file.)
func (f *file) Discard() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Swap(true) {
		return pathError("close", f.name, fs.ErrClosed)
	}
	f.release()
	return nil
}
