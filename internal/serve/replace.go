package serve

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/spf13/afero"
	"golang.org/x/net/webdav"
)

// A MOVE or COPY with "Overwrite: T" onto a name that exists replaces it.
// x/net/webdav does so by removing the destination (RemoveAll) before it
// renames or copies the source, so a rename or copy that then failed left
// neither. A replacement, kept in the request's context, keeps the
// destination until the operation has succeeded:
//
//   - a file replaced by a file stays in place: MOVE renames over it, and
//     COPY writes it as an upload, through a temporary file that replaces it
//     only when the whole source was read (and is dropped otherwise);
//   - anything else (a collection, or a file and a collection) is renamed
//     aside, to a hidden name beside it, when webdav would remove it; the
//     name set aside is removed once webdav answers that the operation
//     succeeded, and renamed back when it answers a failure;
//   - what a failed COPY made at a destination that did not exist is
//     removed.
//
// A base that cannot rename (S3) cannot set a collection aside: such a
// request gets 409 Conflict and the destination stays.

// replacementKey is the context key of a request's *replacement.
type replacementKey struct{}

// A replacement is the destination of one MOVE or COPY request.
type replacement struct {
	fs       afero.Fs
	method   string // MOVE or COPY
	src, dst string // clean paths
	existed  bool   // the destination was there when the request came
	props    *deadProps
	log      func(error)

	mu      sync.Mutex
	aside   string                                  // where the destination was set aside; "" while it was not
	stash   map[string]map[xml.Name]webdav.Property // the destination's dead properties, that COPY replaces
	readErr error                                   // the first error reading a file that COPY copies
	done    bool
}

// newReplacement returns the replacement of a MOVE or COPY of src onto dst
// in d; log gets the errors of cleaning up that no response can tell.
func newReplacement(d davFS, method, src, dst string, log func(error)) *replacement {
	_, err := d.fs.Stat(dst)
	return &replacement{fs: d.fs, props: d.props, method: method, src: src, dst: dst, existed: err == nil, log: log}
}

// replacementOf returns the replacement of the request of ctx, or nil.
func replacementOf(ctx context.Context) *replacement {
	r, _ := ctx.Value(replacementKey{}).(*replacement)
	return r
}

// setAside does what webdav's removal of the destination stands for: it
// keeps a file that a file replaces in place, and renames anything else
// aside. COPY keeps the destination's dead properties aside too (MOVE
// replaces them when it renames).
func (r *replacement) setAside() error {
	if r.method == "COPY" {
		stash := r.props.remove(r.dst)
		r.mu.Lock()
		r.stash = stash
		r.mu.Unlock()
	}
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

// finish ends the replacement once webdav has answered code: on success
// the destination set aside is removed; on a failure it is put back, and
// what a COPY made at a new destination is removed. It runs once.
func (r *replacement) finish(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	succeeded := code >= 200 && code < 300
	if !succeeded && r.method == "COPY" {
		r.props.remove(r.dst)
		r.props.restore(r.stash)
	}
	switch {
	case succeeded && r.aside != "":
		if err := r.fs.RemoveAll(r.aside); err != nil {
			r.log(err)
		}
	case succeeded:
	case r.aside != "":
		err := r.fs.RemoveAll(r.dst)
		if err == nil {
			err = r.fs.Rename(r.aside, r.dst)
		}
		if err != nil {
			r.log(err)
		}
	case r.method == "COPY" && !r.existed:
		if err := r.fs.RemoveAll(r.dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.log(err)
		}
	}
}

// replacementWriter finishes the replacement of its request when webdav
// writes the response's status, before the client can learn it.
type replacementWriter struct {
	http.ResponseWriter
	r *replacement
}

func (w *replacementWriter) WriteHeader(code int) {
	w.r.finish(code)
	w.ResponseWriter.WriteHeader(code)
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
	ctx context.Context
	r   *replacement
}

// Readdir lists a collection that COPY copies: an entry that cannot be
// read (a file whose size does not decode) fails the copy, where a listing
// leaves it out.
func (f copySource) Readdir(n int) ([]os.FileInfo, error) {
	fis, err := f.readdir(n, true)
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
