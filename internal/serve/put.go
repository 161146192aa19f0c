package serve

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"syscall"

	"github.com/spf13/afero"
	"golang.org/x/net/webdav"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
)

// An upload (PUT, and each file COPY writes) replaces its target only when
// the whole of its source has been read and stored: a client that goes
// away mid-upload, a body over the limit, a source that does not decode or
// a full disk leave the previous content, or no file when the target was
// new, never part of the new content. fsx writes a file opened with
// os.O_TRUNC into a temporary file (named as every temporary file of the
// project, so that one a crash leaves is removed by the next write into its
// directory) that replaces the stored file on Close, and drops it on
// Discard. webdav closes the file it wrote to whatever happened, so Close
// of an upload discards when the source failed.

// A source is where an upload's data comes from.
type source interface {
	// failed returns the first error reading the source, or nil.
	failed() error
}

// putBody is the body of a PUT, recording the first error reading it.
type putBody struct {
	io.ReadCloser
	err error
}

func (b *putBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

func (b *putBody) failed() error { return b.err }

type putKey struct{}

// withPutBody wraps the body of a PUT so that the file it is written to
// knows whether all of it arrived.
func withPutBody(ctx context.Context, b *putBody) context.Context {
	return context.WithValue(ctx, putKey{}, b)
}

// A discarder is an open file that can be closed without storing what was
// written to it (fsx's files can).
type discarder interface {
	Discard() error
}

// errNoDiscard is the error of an upload to a file system whose files cannot
// drop what was written to them, which could not keep an upload whole.
var errNoDiscard = errors.New("serve: uploads need a file system whose files can discard writes (fsx)")

// openUpload opens name for an upload from src. A PUT is written in a
// stage, a temporary directory of the project's beside its target, and
// renamed into place whole when it is closed, keeping the mode (and as root
// the owner) of the file it replaces: the name shows the old content, or
// nothing, until then, to every other request and to a server killed
// meanwhile. (fsx shows what a file opened with O_TRUNC holds to every
// open of it, and makes the name of a file it creates at once, as a file
// system must.) A PUT through a symbolic link writes the file it leads to,
// and a base that cannot rename (S3) stores the file in place, at its
// Close.
func (d davFS) openUpload(ctx context.Context, name string, src source, perm os.FileMode) (webdav.File, error) {
	target := clean(name)
	_, put := src.(*putBody)
	if put && !d.guard.startUpload(target) {
		noteStatus(ctx, http.StatusLocked, "a MOVE, COPY or DELETE of a collection holding it is under way")
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	f, err := d.openUploadFile(ctx, name, src, perm)
	if err != nil {
		if put {
			d.guard.endUpload(target)
		}
		return nil, noteFailure(ctx, err)
	}
	if put {
		f.guard = d.guard
	}
	return f, nil
}

// openUploadFile opens the file an upload to name writes, as openUpload
// says.
func (d davFS) openUploadFile(ctx context.Context, name string, src source, perm os.FileMode) (*putFile, error) {
	fi, err := d.lstat(name)
	if err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	target, stage := name, ""
	replaces := err == nil && fi.Mode().IsRegular()
	if _, put := src.(*putBody); put && (replaces || errors.Is(err, fs.ErrNotExist)) && d.renames() {
		stage = path.Join(path.Dir(name), atomicfile.TempName(path.Base(name)))
		if err := d.fs.Mkdir(stage, 0o700); err != nil {
			return nil, err
		}
		name = path.Join(stage, path.Base(name))
	}
	created := true
	f, err := d.fs.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_TRUNC, perm)
	if errors.Is(err, fs.ErrExist) {
		created = false
		f, err = d.fs.OpenFile(name, os.O_RDWR|os.O_TRUNC, perm)
	}
	if err == nil {
		if _, ok := f.(discarder); !ok {
			f.Close()
			if created {
				d.fs.Remove(name)
			}
			err = &fs.PathError{Op: "open", Path: name, Err: errNoDiscard}
		}
	}
	if err != nil {
		if stage != "" {
			d.fs.RemoveAll(stage)
		}
		return nil, err
	}
	return &putFile{
		davFile: davFile{File: f, ctx: ctx, fs: d.fs, name: target, props: d.props},
		ctx:     ctx, created: created, stage: stage, written: name, src: src,
		replaces: replaces && stage != "",
	}, nil
}

// putFile is the file an upload writes: Close stores it when the whole
// source was read and written, and otherwise drops it, and the file it
// created if it did.
type putFile struct {
	davFile
	ctx      context.Context
	created  bool
	stage    string // the stage the upload is written in, or ""
	written  string // the name written: name, or name's place in the stage
	replaces bool   // the stage replaces a file: it takes its mode and owner
	src      source
	guard    *treeGuard // for a PUT: the guard that noted it
	writeErr error
}

func (f *putFile) Write(p []byte) (int, error) {
	n, err := f.davFile.Write(p)
	if err != nil && f.writeErr == nil {
		f.writeErr = err
	}
	return n, err
}

// Stat describes the upload, with an ETag that webdav's answer to the PUT
// takes: the stored file's as GET, HEAD and PROPFIND will give it, found
// when asked, after Close has stored and renamed the upload (the upload's
// own, before its store, has another modification time, so a client's next
// PUT with If-Match: that ETag failed).
func (f *putFile) Stat() (os.FileInfo, error) {
	fi, err := f.davFile.Stat()
	if err != nil {
		return nil, err
	}
	return storedInfo{fi, f.fs, f.name}, nil
}

// storedInfo is a FileInfo whose ETag is that of the file name of fs then.
type storedInfo struct {
	os.FileInfo
	fs   afero.Fs
	name string
}

func (i storedInfo) ETag(ctx context.Context) (string, error) {
	if fi, err := i.fs.Stat(i.name); err == nil {
		return info{fi}.ETag(ctx)
	}
	return info{i.FileInfo}.ETag(ctx)
}

func (f *putFile) Close() error {
	err := f.store()
	if f.stage != "" {
		f.fs.RemoveAll(f.stage)
	} else if err != nil && f.created {
		f.fs.Remove(f.written) // the empty file that held the name
	}
	if f.guard != nil {
		f.guard.endUpload(clean(f.name))
	}
	return err
}

// store stores the upload when all of it arrived and was written, and
// renames it into place from its stage; otherwise it drops it.
func (f *putFile) store() error {
	err := f.writeErr
	if srcErr := f.src.failed(); srcErr != nil {
		// The source's own error: a body over the limit has a status, a
		// client gone away or a file that does not decode is no failure
		// of the storage.
		var tooLarge *http.MaxBytesError
		if errors.As(srcErr, &tooLarge) {
			noteFailure(f.ctx, srcErr)
		}
		err = srcErr
	} else if err != nil {
		noteStoreFailure(f.ctx, err)
	}
	if err != nil {
		f.davFile.File.(discarder).Discard()
		return err
	}
	err = f.davFile.File.Close()
	if err == nil && f.replaces {
		err = f.keepAttrs()
	}
	if err == nil && f.stage != "" {
		err = f.fs.Rename(f.written, f.name)
	}
	return noteStoreFailure(f.ctx, err)
}

// noteStoreFailure is noteFailure for an error writing or storing an
// upload: a body the codec refuses to encode (not JSON for bencode's JSON
// side) is the request's fault, 422 Unprocessable Content with the codec's
// message and offset, not a stored file that does not decode (500).
func noteStoreFailure(ctx context.Context, err error) error {
	if de := (*core.DataError)(nil); errors.As(err, &de) {
		noteStatus(ctx, http.StatusUnprocessableEntity, "the body does not encode: "+de.Error())
	}
	return noteFailure(ctx, err)
}

// keepAttrs gives the stored upload the mode, and as root the owner, of the
// file it replaces, if that is still there.
func (f *putFile) keepAttrs() error {
	info, err := f.fs.Stat(f.name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	uinfo, err := f.fs.Stat(f.written)
	if err != nil {
		return err
	}
	return atomicfile.KeepAttrs(namedFile{f.fs, f.written}, info, uinfo)
}

// namedFile changes the mode and owner of a file of fs by its name.
type namedFile struct {
	fs   afero.Fs
	name string
}

func (n namedFile) Chmod(mode os.FileMode) error { return n.fs.Chmod(n.name, mode) }
func (n namedFile) Chown(uid, gid int) error     { return n.fs.Chown(n.name, uid, gid) }
