// Package serve serves an afero.Fs (an fsx view of a directory, for b14fs
// serve) over WebDAV and plain HTTP, with the checks a server reachable by
// others needs: HTTP Basic authentication, a read-only mode, confinement of
// every path to the served tree, limits on headers and request bodies, and
// an access log.
package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/afero"
	"golang.org/x/net/webdav"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
)

// Limits on what a client sends.
const (
	MaxHeaderBytes = 64 << 10 // request line and headers
	MaxXMLBody     = 1 << 20  // bodies of PROPFIND, PROPPATCH, LOCK and the like
)

// Options configure a Handler.
type Options struct {
	// Writable allows PUT, MKCOL, MOVE, COPY, DELETE, PROPPATCH and LOCK.
	// Without it they get 405 Method Not Allowed.
	Writable bool
	// User and Password, when Password is not empty, are the credentials
	// every request must present by HTTP Basic authentication.
	User, Password string
	// MaxUpload limits the body of a PUT, in bytes; 0 means no limit.
	MaxUpload int64
	// Log, when not nil, gets an access log line per request and the
	// errors of the WebDAV handler.
	Log io.Writer
}

// writeMethods are the methods that change the tree.
var writeMethods = map[string]bool{
	"PUT": true, "POST": true, "MKCOL": true, "MOVE": true, "COPY": true, "DELETE": true,
	"PROPPATCH": true, "LOCK": true, "UNLOCK": true,
}

// Handler returns the WebDAV handler of fsys.
func Handler(fsys afero.Fs, opts Options) http.Handler {
	h := &handler{opts: opts}
	h.dav = &webdav.Handler{
		FileSystem: davFS{fs: fsys, writable: opts.Writable, props: newDeadProps(), caps: new(capabilities), guard: newTreeGuard()},
		LockSystem: webdav.NewMemLS(),
		Logger:     h.logError,
	}
	if opts.Password != "" {
		h.user = sha256.Sum256([]byte(opts.User))
		h.pass = sha256.Sum256([]byte(opts.Password))
	}
	return h
}

type handler struct {
	opts       Options
	dav        *webdav.Handler
	user, pass [sha256.Size]byte
	logMu      sync.Mutex
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	lw := &logWriter{ResponseWriter: w}
	h.serve(lw, r)
	if h.opts.Log != nil {
		status := lw.status
		if status == 0 {
			status = http.StatusOK
		}
		h.logMu.Lock()
		fmt.Fprintf(h.opts.Log, "%s %s %q %d %d %s\n", start.UTC().Format(time.RFC3339), r.Method, r.URL.EscapedPath(), status, lw.n, time.Since(start).Round(time.Microsecond))
		h.logMu.Unlock()
	}
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	if h.opts.Password != "" && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Basic realm="b14fs", charset="UTF-8"`)
		http.Error(w, "authorization required", http.StatusUnauthorized)
		return
	}
	if err := checkPath(r.URL); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var dest *url.URL
	if d := r.Header.Get("Destination"); d != "" {
		u, err := url.Parse(d)
		if err != nil {
			http.Error(w, "bad Destination", http.StatusBadRequest)
			return
		}
		if err := checkPath(u); err != nil {
			http.Error(w, "Destination: "+err.Error(), http.StatusBadRequest)
			return
		}
		dest = u
	}
	if !h.opts.Writable && writeMethods[r.Method] {
		w.Header().Set("Allow", "OPTIONS, GET, HEAD, PROPFIND")
		http.Error(w, "read-only: serve with -w to write", http.StatusMethodNotAllowed)
		return
	}
	if (r.Method == "MOVE" || r.Method == "COPY") && dest != nil {
		if r.Header.Get("Overwrite") == "" {
			// RFC 4918, 10.6: as if T (x/net's MOVE takes it as F).
			r.Header.Set("Overwrite", "T")
		}
		if status, msg := h.checkMoveCopy(r, dest); status != 0 {
			http.Error(w, msg, status)
			return
		}
	}
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && h.serveIndex(w, r) {
		return
	}
	switch {
	case r.Method == http.MethodPut:
		if r.Header.Get("Content-Range") != "" {
			// RFC 9110, 14.5: a partial PUT would replace the whole file.
			http.Error(w, "PUT with Content-Range: partial updates are not supported", http.StatusBadRequest)
			return
		}
		if h.opts.MaxUpload > 0 && r.ContentLength > h.opts.MaxUpload {
			http.Error(w, "the body is over the upload limit", http.StatusRequestEntityTooLarge)
			return
		}
		if h.opts.MaxUpload > 0 {
			r.Body = http.MaxBytesReader(w, r.Body, h.opts.MaxUpload)
		}
		body := &putBody{ReadCloser: r.Body}
		r.Body = body
		r = r.WithContext(withPutBody(r.Context(), body))
	case r.Body != nil:
		r.Body = http.MaxBytesReader(w, r.Body, MaxXMLBody)
		if r.Method == "PROPFIND" || r.Method == "PROPPATCH" {
			if status, err := checkXMLBody(r); err != nil {
				http.Error(w, err.Error(), status)
				return
			}
		}
	}
	if !h.checkIfETags(r) {
		http.Error(w, "If: no list of conditions holds", http.StatusPreconditionFailed)
		return
	}
	if !h.checkMatch(r) {
		http.Error(w, "If-Match or If-None-Match does not hold", http.StatusPreconditionFailed)
		return
	}
	r = withListed(r)
	r, failed := withFailures(r)
	w = &failureWriter{ResponseWriter: w, failure: failed}
	if trees := changedTrees(r, dest); trees != nil {
		guard := h.dav.FileSystem.(davFS).guard
		if !guard.startChange(trees...) {
			http.Error(w, "an upload into it is under way", http.StatusLocked)
			return
		}
		defer guard.endChange(trees...)
	}
	if (r.Method == "MOVE" || r.Method == "COPY") && dest != nil {
		fsys := h.dav.FileSystem.(davFS)
		rep := newReplacement(fsys, r.Method, clean(r.URL.Path), clean(dest.Path), func(err error) { h.logError(r, err) })
		r = r.WithContext(context.WithValue(r.Context(), replacementKey{}, rep))
		w = &replacementWriter{ResponseWriter: w, r: rep}
		defer rep.finish(http.StatusInternalServerError) // if webdav wrote no status
	}
	if r.Method == "LOCK" {
		// webdav takes a name it cannot state for one to create, and
		// creates it with O_TRUNC: a LOCK (which clients send before they
		// write) emptied a file whose stored bytes do not decode, or one the
		// storage failed to state. Only what is not there is made.
		_, err := h.dav.FileSystem.Stat(r.Context(), clean(r.URL.Path))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			http.Error(w, "cannot lock it: it cannot be stated", http.StatusForbidden) // 500 or 503 for a noted failure
			return
		}
	}
	h.dav.ServeHTTP(w, r)
}

// checkDestination refuses, as checkMoveCopy does, a MOVE or COPY to dst
// whose parent is not a collection (409, where x/net's MOVE answers 403),
// or onto a name that exists with Overwrite F (412: webdav does not see a
// destination that COPY makes in a stage).
func (h *handler) checkDestination(r *http.Request, dst string) (int, string) {
	parent, err := h.dav.FileSystem.Stat(r.Context(), path.Dir(dst))
	switch {
	case err == nil && !parent.IsDir(), errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return http.StatusConflict, "the destination's parent is not a collection"
	case err != nil:
		h.logError(r, err)
		return http.StatusServiceUnavailable, "the storage failed"
	}
	if r.Header.Get("Overwrite") == "F" {
		if _, err := h.dav.FileSystem.Stat(r.Context(), dst); err == nil {
			return http.StatusPreconditionFailed, "the destination exists and Overwrite is F"
		}
	}
	return 0, ""
}

// changedTrees returns the trees that r, a request with the Destination
// dest, removes or replaces: a DELETE's, a MOVE's source and destination,
// a COPY's destination (see treeGuard).
func changedTrees(r *http.Request, dest *url.URL) []string {
	switch {
	case r.Method == http.MethodDelete:
		return []string{clean(r.URL.Path)}
	case r.Method == "MOVE" && dest != nil:
		return []string{clean(r.URL.Path), clean(dest.Path)}
	case r.Method == "COPY" && dest != nil:
		return []string{clean(dest.Path)}
	}
	return nil
}

// checkMoveCopy refuses, before anything is changed, a MOVE or COPY that
// cannot succeed: x/net/webdav removes the destination before it renames
// or copies, so such a request (a client's retry of a MOVE that succeeded,
// a move of a collection into itself, of a link that leads out of DIR, of
// the root) lost the destination. It returns the status and message of
// the refusal, or 0.
func (h *handler) checkMoveCopy(r *http.Request, dest *url.URL) (int, string) {
	src, dst := clean(r.URL.Path), clean(dest.Path)
	switch {
	case src == "/":
		return http.StatusForbidden, r.Method + " of the root"
	case src == dst:
		return http.StatusForbidden, r.Method + " onto itself"
	case strings.HasPrefix(dst, strings.TrimSuffix(src, "/")+"/"):
		return http.StatusForbidden, r.Method + " into itself"
	case strings.HasPrefix(src, strings.TrimSuffix(dst, "/")+"/"):
		return http.StatusForbidden, r.Method + " onto a collection that holds the source"
	}
	_, err := h.dav.FileSystem.Stat(r.Context(), src)
	switch {
	case err == nil:
		return h.checkDestination(r, dst)
	case errors.Is(err, fs.ErrNotExist):
		return http.StatusNotFound, "no such source"
	case errors.Is(err, fs.ErrPermission):
		return http.StatusForbidden, "the source leads out of the directory served"
	case errors.Is(err, core.ErrInvalidData):
		h.logError(r, err)
		return http.StatusInternalServerError, "the stored source does not decode"
	}
	h.logError(r, err)
	return http.StatusServiceUnavailable, "the storage failed"
}

// authorized reports whether r carries the credentials, comparing them in
// constant time (their hashes, so that not even their lengths show).
func (h *handler) authorized(r *http.Request) bool {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return false
	}
	u := sha256.Sum256([]byte(user))
	p := sha256.Sum256([]byte(pass))
	return subtle.ConstantTimeCompare(u[:], h.user[:])&subtle.ConstantTimeCompare(p[:], h.pass[:]) == 1
}

func (h *handler) logError(r *http.Request, err error) {
	if err == nil || h.opts.Log == nil {
		return
	}
	h.logMu.Lock()
	// Quoted: the error may hold the decoded path, which a client chose.
	fmt.Fprintf(h.opts.Log, "b14fs: %s %q: %q\n", r.Method, r.URL.EscapedPath(), err.Error())
	h.logMu.Unlock()
}

// errBadPath is what checkPath returns.
var errBadPath = errors.New("bad path: no '..' or '.' segments, encoded slashes, backslashes, NUL bytes or names of staging files")

// checkPath refuses a URL path that could mean something else to another
// layer: dot segments (even percent-encoded), encoded slashes or
// backslashes, backslashes, NUL bytes, and names of the project's temporary
// files and directories (never listed, and removed once their process
// is gone).
func checkPath(u *url.URL) error {
	raw := strings.ToLower(u.EscapedPath())
	if strings.Contains(raw, "%2f") || strings.Contains(raw, "%5c") || strings.Contains(raw, "%00") {
		return errBadPath
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
		return errBadPath
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." || atomicfile.IsTemp(seg) {
			return errBadPath
		}
	}
	return nil
}

// logWriter counts the status and bytes of a response.
type logWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (w *logWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *logWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

func (w *logWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// IsLoopback reports whether every address host (a host name or IP
// address, as in HOST:PORT) stands for is a loopback address. An empty host
// (all interfaces) is not.
func IsLoopback(host string) bool {
	if host == "" {
		return false
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false
		}
	}
	return true
}
