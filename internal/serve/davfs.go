package serve

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"sync"
	"syscall"

	"github.com/spf13/afero"
	"golang.org/x/net/webdav"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/fsutil/parallel"
)

// davFS adapts an afero.Fs to webdav.FileSystem. Its FileInfos carry
// their own ETag and content type, so that PROPFIND and GET never read a
// file to find them. The operations of a MOVE or COPY go through the
// request's replacement (replace.go), those of a PUT through an upload
// (put.go).
type davFS struct {
	fs       afero.Fs
	writable bool
	props    *deadProps
	caps     *capabilities
	guard    *treeGuard
}

// capabilities are what the file system can do, found out once.
type capabilities struct {
	mu      sync.Mutex
	known   bool // renames is found out
	renames bool
}

// renames reports whether the file system renames (S3 does not), trying
// it on a temporary directory of the project's until it knows: a rename
// that works, or one refused as unsupported. A try that fails otherwise (a
// full disk: no directory can be made) tells nothing, and is made again by
// the next write; meanwhile writes go as where nothing renames.
func (d davFS) renames() bool {
	d.caps.mu.Lock()
	defer d.caps.mu.Unlock()
	if d.caps.known {
		return d.caps.renames
	}
	from, to := "/"+atomicfile.TempName("rename"), "/"+atomicfile.TempName("rename")
	if d.fs.Mkdir(from, 0o700) != nil {
		return false
	}
	err := d.fs.Rename(from, to)
	if err == nil {
		from = to
	}
	d.fs.RemoveAll(from)
	d.caps.renames = err == nil
	d.caps.known = err == nil || errors.Is(err, errors.ErrUnsupported)
	return d.caps.renames
}

// lstat describes the named file, or the link it is, where the file system
// tells links apart.
func (d davFS) lstat(name string) (os.FileInfo, error) {
	if l, ok := d.fs.(afero.Lstater); ok {
		fi, _, err := l.LstatIfPossible(name)
		return fi, err
	}
	return d.fs.Stat(name)
}

var errReadOnly = &fs.PathError{Op: "write", Path: "/", Err: fs.ErrPermission}

func (d davFS) Mkdir(ctx context.Context, name string, perm os.FileMode) error {
	if !d.writable {
		return errReadOnly
	}
	name, err := replacementOf(ctx).path(clean(name), true)
	if err == nil {
		err = d.fs.Mkdir(name, perm)
	}
	return noteFailure(ctx, err)
}

func (d davFS) OpenFile(ctx context.Context, name string, flag int, perm os.FileMode) (webdav.File, error) {
	if !d.writable && flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return nil, errReadOnly
	}
	r := replacementOf(ctx)
	name, err := r.path(clean(name), flag&os.O_CREATE != 0)
	if err != nil {
		return nil, noteFailure(ctx, err)
	}
	if flag&os.O_TRUNC != 0 {
		if b, ok := ctx.Value(putKey{}).(*putBody); ok {
			return d.openUpload(ctx, name, b, perm)
		}
		if r != nil && r.method == "COPY" {
			return d.openUpload(ctx, name, r, perm)
		}
	}
	f, err := d.fs.OpenFile(name, flag, perm)
	if errors.Is(err, syscall.EISDIR) && flag == os.O_RDWR {
		// PROPPATCH opens what it patches for writing: a collection's dead
		// properties are not in the directory.
		f, err = d.fs.OpenFile(name, os.O_RDONLY, 0)
	}
	if err != nil {
		return nil, noteFailure(ctx, err)
	}
	file := davFile{File: f, ctx: ctx, fs: d.fs, name: name, props: d.props, listed: listedOf(ctx)}
	if r != nil && r.method == "COPY" && flag&accessMode == os.O_RDONLY {
		return copySource{file, r}, nil
	}
	return file, nil
}

// accessMode are the bits of an open's flags that say how it reads and
// writes.
const accessMode = os.O_RDONLY | os.O_WRONLY | os.O_RDWR

func (d davFS) RemoveAll(ctx context.Context, name string) error {
	if !d.writable {
		return errReadOnly
	}
	if clean(name) == "/" {
		return &fs.PathError{Op: "removeall", Path: name, Err: fs.ErrPermission}
	}
	r := replacementOf(ctx)
	if r != nil && clean(name) == r.dst && !r.staged {
		if err := r.setAside(); err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				noteStatus(ctx, http.StatusConflict, "the storage cannot replace the destination: remove it first")
			}
			return noteFailure(ctx, err)
		}
		return nil
	}
	name, err := r.path(clean(name), false)
	if err == nil {
		err = d.fs.RemoveAll(name)
	}
	if err != nil {
		return noteFailure(ctx, err)
	}
	d.props.remove(name)
	return nil
}

func (d davFS) Rename(ctx context.Context, oldName, newName string) error {
	if !d.writable {
		return errReadOnly
	}
	if err := d.fs.Rename(clean(oldName), clean(newName)); err != nil {
		return noteFailure(ctx, err)
	}
	if r := replacementOf(ctx); r != nil {
		r.moved() // at once: what was set aside stays visible no longer than it must
	}
	d.props.rename(clean(oldName), clean(newName))
	return nil
}

func (d davFS) Stat(ctx context.Context, name string) (os.FileInfo, error) {
	name, err := replacementOf(ctx).path(clean(name), false)
	if err != nil {
		return nil, err
	}
	if fi, ok := listedOf(ctx).take(name); ok {
		return info{fi}, nil // stated by the listing just made
	}
	fi, err := d.fs.Stat(name)
	if err != nil {
		return nil, noteFailure(ctx, err)
	}
	return info{fi}, nil
}

// clean makes name absolute and drops a trailing slash (MKCOL /a/ makes
// the directory /a).
func clean(name string) string { return path.Clean("/" + name) }

// davFile wraps an afero.File so that its FileInfos are infos.
// It holds the file's dead properties.
type davFile struct {
	afero.File
	ctx    context.Context // of the request that opened it
	fs     afero.Fs
	name   string
	props  *deadProps
	listed *listed // of the request that opened it, if a PROPFIND
}

func (f davFile) DeadProps() (map[xml.Name]webdav.Property, error) {
	return f.props.get(f.name), nil
}

func (f davFile) Patch(patches []webdav.Proppatch) ([]webdav.Propstat, error) {
	return f.props.patch(f.name, patches), nil
}

// Stat describes the file. A failure to tell its size (stored bytes that
// do not decode, for a codec that decodes a file to size it) is the
// storage's, which webdav would answer a GET with 404 Not Found.
func (f davFile) Stat() (os.FileInfo, error) {
	fi, err := f.File.Stat()
	if err != nil {
		return nil, noteFailure(f.ctx, err)
	}
	return info{fi}, nil
}

// Readdir lists the directory: the shown names, each with what Stat gives
// for it. An entry gone meanwhile, or a symbolic link out of the served
// tree, to nothing or in a loop, is left out; one that cannot be stated otherwise (a
// file whose size does not decode) fails the listing (listingError).
func (f davFile) Readdir(n int) ([]os.FileInfo, error) {
	names, err := f.File.Readdirnames(n)
	stats := make([]os.FileInfo, len(names))
	errs := make([]error, len(names))
	parallel.For(len(names), fsx.ConcurrentLookups(f.fs), func(i int) {
		stats[i], errs[i] = f.fs.Stat(path.Join(f.name, names[i]))
	})
	fis := make([]os.FileInfo, 0, len(names))
	for i, fi := range stats {
		switch {
		case errs[i] == nil:
		case errors.Is(errs[i], fs.ErrNotExist) || errors.Is(errs[i], fs.ErrPermission) || errors.Is(errs[i], syscall.ELOOP):
			continue // gone meanwhile, or a link leading out of the tree, to nothing or round
		default:
			return fis, &listingError{errs[i]}
		}
		fis = append(fis, info{fi})
		f.listed.add(path.Join(f.name, names[i]), fi)
	}
	return fis, err
}

// A listingError is the failure to tell of an entry of a directory what a
// listing shows (its size does not decode, the storage failed to answer).
// It fails the listing: a listing that left the entry out would tell a
// client that syncs (rclone sync) that the file is gone, and it would
// remove its copy. It is no *fs.PathError, which webdav takes for a bad
// entry to leave out of a PROPFIND: an error of another type ends the
// response there, which no client takes for a whole listing.
type listingError struct{ err error }

func (e *listingError) Error() string { return "listing: " + e.err.Error() }
func (e *listingError) Unwrap() error { return e.err }

// info is a FileInfo with an ETag (modification time and decoded size, as
// Apache and webdav's default make it) and a content type from the name's
// extension, both without reading the file.
type info struct{ os.FileInfo }

func (i info) ETag(context.Context) (string, error) {
	return fmt.Sprintf(`"%x%x"`, i.ModTime().UnixNano(), i.Size()), nil
}

func (i info) ContentType(context.Context) (string, error) {
	return contentType(i.Name()), nil
}

// contentType is the type of a file named name, from its extension.
func contentType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
