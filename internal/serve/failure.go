package serve

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"sync"
	"syscall"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
)

// golang.org/x/net/webdav answers a failed open with 404 Not Found and a
// failed Stat (PROPFIND, DELETE) with 405 Method Not Allowed, whatever the
// error: a storage that failed to answer (an SFTP server or object store
// that is down) would tell clients that their files are gone. The
// filesystem notes such failures in the request's context, and the
// response they turned into a 404 or 405 becomes a 503 Service Unavailable
// (500 for stored data that does not decode), which clients retry.

// failureKey is the context key of a request's *failure.
type failureKey struct{}

// A failure is the first error of the storage met while serving a request
// that says nothing about the request itself, or the status that the
// failure of the request has (507 for a full disk, 413 for a body too
// large, 409 for a destination the storage cannot replace), which webdav
// does not tell apart.
type failure struct {
	mu     sync.Mutex
	err    error
	status int
	reason string
}

// withFailures returns r with a place for its storage failures.
func withFailures(r *http.Request) (*http.Request, *failure) {
	f := new(failure)
	return r.WithContext(context.WithValue(r.Context(), failureKey{}, f)), f
}

// requestErrors are the errors that are the request's answer, not the
// storage's failure: what webdav makes of them stands.
var requestErrors = []error{
	fs.ErrNotExist, fs.ErrExist, fs.ErrPermission, fs.ErrInvalid, errors.ErrUnsupported,
	syscall.ENOTDIR, syscall.EISDIR, syscall.ENOTEMPTY, syscall.ENAMETOOLONG, syscall.EXDEV,
	syscall.EINVAL, syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG,
	fsx.ErrNotMapped, fsx.ErrReadOnly, fsx.ErrWriteOnly, fsx.ErrAppendOffset,
}

// noteFailure records err in ctx's failure when it is a failure of the
// storage, or an error with a status of its own, and returns err.
func noteFailure(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		noteStatus(ctx, http.StatusInsufficientStorage, "the storage is full")
		return err
	case errors.As(err, &tooLarge):
		noteStatus(ctx, http.StatusRequestEntityTooLarge, "the body is over the upload limit")
		return err
	case errors.Is(err, syscall.EFBIG):
		noteStatus(ctx, http.StatusRequestEntityTooLarge, "the file would be too large")
		return err
	}
	for _, e := range requestErrors {
		if errors.Is(err, e) {
			return err
		}
	}
	if f, ok := ctx.Value(failureKey{}).(*failure); ok {
		f.mu.Lock()
		if f.err == nil {
			f.err = err
		}
		f.mu.Unlock()
	}
	return err
}

// noteStatus records in ctx's failure that the request failed with status,
// for reason, unless a status was recorded already.
func noteStatus(ctx context.Context, status int, reason string) {
	if f, ok := ctx.Value(failureKey{}).(*failure); ok {
		f.mu.Lock()
		if f.status == 0 {
			f.status, f.reason = status, reason
		}
		f.mu.Unlock()
	}
}

// failureWriter turns the 404, 405, 403 (MOVE, COPY) or 500 (a COPY cut
// short) that webdav answers a storage failure with into a 503, or a 500 for stored data that does not decode,
// and the error status webdav answers a failure that has a status of its
// own into that status.
type failureWriter struct {
	http.ResponseWriter
	failure  *failure
	replaced bool // the status was replaced: webdav's body is dropped
	sent     bool // a status was sent
}

// WriteHeader sends the status code, or the one it stands for. An error
// status after a status was sent (webdav's 500 for a PROPFIND whose walk
// failed after its first entries: a listingError) aborts the response, so
// that the client gets no well-formed listing of part of the tree: webdav
// ends the multistatus body, which would read as whole.
func (w *failureWriter) WriteHeader(code int) {
	if w.sent {
		if code >= 400 {
			panic(http.ErrAbortHandler)
		}
		return
	}
	w.sent = true
	w.failure.mu.Lock()
	err, status, reason := w.failure.err, w.failure.status, w.failure.reason
	w.failure.mu.Unlock()
	if status != 0 && code >= 400 {
		w.replaced = true
		http.Error(w.ResponseWriter, reason, status)
		return
	}
	if err == nil || (code != http.StatusNotFound && code != http.StatusMethodNotAllowed && code != http.StatusForbidden && code != http.StatusInternalServerError) {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.replaced = true
	status, text := http.StatusServiceUnavailable, "the storage failed to answer: retry later"
	if errors.Is(err, core.ErrInvalidData) {
		status, text = http.StatusInternalServerError, "the stored file does not decode"
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	http.Error(w.ResponseWriter, text, status)
}

func (w *failureWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	w.sent = true
	return w.ResponseWriter.Write(p)
}

func (w *failureWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
