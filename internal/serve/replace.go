package serve

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
)

// A MOVE or COPY changes its destination only when it succeeds, and at
// once, as far as the storage allows. x/net/webdav removes an existing
// destination (RemoveAll) before it renames or copies the source, and
// copies a collection file by file into place, so a rename or copy that
// failed, or a server killed meanwhile, left neither the destination nor a
// whole copy. A replacement, kept in the request's context, changes that:
//
//   - COPY makes the copy in a temporary directory of the project's (a
//     stage, named by atomicfile.TempName) beside the destination: webdav's
//     writes to the destination go there. Once webdav answers that the copy
//     succeeded, the copy is renamed into place; when it failed, or the
//     server was killed, the stage is dropped (a stale one by the next
//     write into its directory) and the destination never changed.
//   - MOVE of a file over a file renames over it. Anything else (a
//     collection, or a file and a collection) sets the destination aside
//     when webdav would remove it: it is renamed to a hidden name beside
//     it, and removed once webdav answers that the move succeeded, or
//     renamed back when it failed.
//   - A destination that COPY replaces with a collection, or replaces a
//     collection with, is set aside the same way for the moment of the
//     swap.
//
// A server killed between the two renames of a swap leaves the old
// destination under its hidden name: not lost, but not back in place.
// A base that cannot rename (S3) cannot move, stage or set aside: COPY
// there writes files in place, each through the base's own atomic
// replacement, and a collection onto one that exists gets 409 Conflict.

// replacementKey is the context key of a request's *replacement.
type replacementKey struct{}

// A replacement is the destination of one MOVE or COPY request.
type replacement struct {
	fs       afero.Fs
	props    *deadProps
	method   string // MOVE or COPY
	src, dst string // clean paths
	existed  bool   // the destination was there when the request came
	staged   bool   // COPY makes its copy in a stage
	log      func(error)

	mu      sync.Mutex
	stage   string // the stage of a COPY, "" until made
	aside   string // where a MOVE set the destination aside, "" while it did not
	readErr error  // the first error reading a file that COPY copies
	done    bool
}

// newReplacement returns the replacement of a MOVE or COPY of src onto dst
// in d; log gets the errors of cleaning up that no response can tell.
func newReplacement(d davFS, method, src, dst string, log func(error)) *replacement {
	_, err := d.fs.Stat(dst)
	return &replacement{
		fs: d.fs, props: d.props, method: method, src: src, dst: dst, existed: err == nil,
		staged: method == "COPY" && d.renames(), log: log,
	}
}

// replacementOf returns the replacement of the request of ctx, or nil.
func replacementOf(ctx context.Context) *replacement {
	r, _ := ctx.Value(replacementKey{}).(*replacement)
	return r
}

// path returns where the request's operation on name happens: for a COPY
// that stages, a name at or under the destination is in the stage, which
// is made when make is set and it is not there yet.
func (r *replacement) path(name string, make bool) (string, error) {
	if r == nil || !r.staged || !under(name, r.dst) || r.dst == "/" {
		return name, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stage == "" {
		stage := path.Join(path.Dir(r.dst), atomicfile.TempName(path.Base(r.dst)))
		if !make {
			return path.Join(stage, path.Base(r.dst), strings.TrimPrefix(name, r.dst)), nil
		}
		if err := r.fs.Mkdir(stage, 0o700); err != nil {
			return "", err
		}
		r.stage = stage
	}
	return path.Join(r.stage, path.Base(r.dst), strings.TrimPrefix(name, r.dst)), nil
}

// setAside does what webdav's removal of the destination of a MOVE stands
// for: it keeps a file that a file replaces in place, and renames anything
// else aside.
func (r *replacement) setAside() error {
	src, err := r.fs.Stat(r.src)
	if err != nil {
		return err
	}
	dst, err := r.fs.Stat(r.dst)
	if err != nil {
		return err
	}
	if !src.IsDir() && !dst.IsDir() {
		return nil
	}
	aside := path.Join(path.Dir(r.dst), asideName(path.Base(r.dst)))
	if err := r.fs.Rename(r.dst, aside); err != nil {
		return err
	}
	r.mu.Lock()
	r.aside = aside
	r.mu.Unlock()
	return nil
}

// asideTag starts the names that destinations are set aside under.
const asideTag = ".b14fs-aside-"

// asideName returns a hidden name for a destination named base while it is
// set aside. It ends as base does, so that a file's name keeps the
// extension its mapping to a stored name needs, and it is no longer than
// base or 64 bytes, whichever is more, so that it fits where base fits.
func asideName(base string) string {
	prefix := asideTag + strconv.FormatUint(rand.Uint64(), 36) + "-"
	room := max(len(base), 64) - len(prefix)
	tail := base[len(base)-min(len(base), max(room, 0)):]
	for tail != "" && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return prefix + tail
}

// drop removes name, which was set aside, renaming it first to a temporary
// name of the project's, so that what a server killed while removing it
// leaves is removed by the next write into its directory.
func (r *replacement) drop(name string) {
	tmp := path.Join(path.Dir(name), atomicfile.TempName(path.Base(name)))
	if r.fs.Rename(name, tmp) == nil {
		name = tmp
	}
	if err := r.fs.RemoveAll(name); err != nil {
		r.log(err)
	}
}

// moved drops what a MOVE set aside, once the source is renamed into
// place.
func (r *replacement) moved() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aside != "" {
		r.drop(r.aside)
		r.aside = ""
	}
}

// readFailed records an error reading a file that COPY copies.
func (r *replacement) readFailed(err error) {
	r.mu.Lock()
	if r.readErr == nil {
		r.readErr = err
	}
	r.mu.Unlock()
}

// failed returns the first error reading what COPY copies, so that an
// upload it writes is dropped.
func (r *replacement) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readErr
}

// finish ends the replacement once webdav has answered code, and returns
// the status to answer instead: on success a COPY's stage is swapped in
// and a destination set aside is dropped; on failure the stage is dropped
// and the destination set aside put back. It runs once; later calls
// return code as it is.
func (r *replacement) finish(code int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return code
	}
	r.done = true
	succeeded := code >= 200 && code < 300
	if r.stage != "" {
		staged := path.Join(r.stage, path.Base(r.dst))
		if succeeded {
			if err := r.swapIn(staged); err != nil {
				r.log(err)
				code = statusOf(err)
			} else {
				r.props.rename(staged, r.dst)
			}
		}
		r.props.remove(r.stage)
		if err := r.fs.RemoveAll(r.stage); err != nil {
			r.log(err)
		}
	}
	switch {
	case r.aside == "" && !succeeded && r.method == "COPY" && !r.staged && !r.existed:
		// What a copy in place made at a new name.
		if err := r.fs.RemoveAll(r.dst); err != nil {
			r.log(err)
		}
	case r.aside == "":
	case succeeded:
		r.drop(r.aside)
	default:
		err := r.fs.RemoveAll(r.dst)
		if err == nil {
			err = r.fs.Rename(r.aside, r.dst)
		}
		if err != nil {
			r.log(err)
		}
	}
	if code == http.StatusCreated && r.existed {
		code = http.StatusNoContent // webdav found no destination in the stage
	}
	return code
}

// swapIn renames the copy staged into the destination's place: over it
// when both are files, else setting the destination aside for the moment.
func (r *replacement) swapIn(staged string) error {
	dst, err := r.fs.Stat(r.dst)
	if errors.Is(err, fs.ErrNotExist) {
		return r.fs.Rename(staged, r.dst)
	}
	if err != nil {
		return err
	}
	copied, err := r.fs.Stat(staged)
	if err != nil {
		return err
	}
	if !dst.IsDir() && !copied.IsDir() {
		return r.fs.Rename(staged, r.dst)
	}
	aside := path.Join(path.Dir(r.dst), asideName(path.Base(r.dst)))
	if err := r.fs.Rename(r.dst, aside); err != nil {
		return err
	}
	if err := r.fs.Rename(staged, r.dst); err != nil {
		if berr := r.fs.Rename(aside, r.dst); berr != nil {
			err = errors.Join(err, berr)
		}
		return err
	}
	r.drop(aside)
	return nil
}

// statusOf returns the status of a request that failed with err.
func statusOf(err error) int {
	switch {
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		return http.StatusInsufficientStorage
	case errors.Is(err, fs.ErrPermission):
		return http.StatusForbidden
	}
	return http.StatusServiceUnavailable
}

// replacementWriter finishes the replacement of its request when webdav
// writes the response's status, before the client can learn it.
type replacementWriter struct {
	http.ResponseWriter
	r *replacement
}

func (w *replacementWriter) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(w.r.finish(code))
}

func (w *replacementWriter) Write(p []byte) (int, error) {
	w.r.finish(http.StatusOK)
	return w.ResponseWriter.Write(p)
}

func (w *replacementWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// copySource is a file that COPY reads, recording its read errors in the
// replacement so that the copy written from it is dropped.
type copySource struct {
	davFile
	r *replacement
}

// Readdir lists a collection that COPY copies: an entry that cannot be
// read (a file whose size does not decode) fails the copy.
func (f copySource) Readdir(n int) ([]os.FileInfo, error) {
	fis, err := f.davFile.Readdir(n)
	if err != nil && err != io.EOF {
		f.r.readFailed(noteFailure(f.ctx, err))
	}
	return fis, err
}

func (f copySource) Read(p []byte) (int, error) {
	n, err := f.davFile.Read(p)
	if err != nil && err != io.EOF {
		f.r.readFailed(noteFailure(f.ctx, err))
	}
	return n, err
}
