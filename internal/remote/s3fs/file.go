package s3fs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
)

// watchdog cancels a request's context when the request makes no progress
// for its timeout: kick it on each step forward.
type watchdog struct {
	timer  *time.Timer
	d      time.Duration
	cancel context.CancelFunc
	done   atomic.Bool // no more progress to watch
}

func newWatchdog(d time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancel(context.Background())
	return ctx, &watchdog{timer: time.AfterFunc(d, cancel), d: d, cancel: cancel}
}

func (w *watchdog) kick() {
	if !w.done.Load() {
		w.timer.Reset(w.d)
	}
}

// finish stops watching without cancelling: what is left (the answer to an
// upload whose body is sent) is the transport's to time out.
func (w *watchdog) finish() {
	w.done.Store(true)
	w.timer.Stop()
}

func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel()
}

// watchedReader kicks a watchdog on each read that returns data.
type watchedReader struct {
	r io.Reader
	w *watchdog
}

func (r watchedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.w.kick()
	}
	return n, err
}

// stalled turns the error of a request its watchdog cancelled into one
// that says so.
func stalled(err error, d time.Duration) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: no progress for %v: %w", os.ErrDeadlineExceeded, d, err)
	}
	return err
}

// readFile is an object open for reading. Each read at a new offset is one
// ranged GET of exactly the bytes it asks for; a read that starts where the
// previous one ended, or within the tail of it that the file keeps, opens a
// GET of the rest of the object and later reads continue it. Every GET asks for the ETag the object had at open, so a
// file replaced meanwhile fails to read rather than mixing two contents.
// When this Fs removes the object, the file first copies it whole into a
// spool file (local), which it reads from then on.
type readFile struct {
	fs   *Fs
	name string
	key  string
	info *fileInfo

	mu      sync.Mutex
	closed  bool
	off     int64  // of Read and Seek
	lastEnd int64  // where the last read ended
	tail    []byte // the last bytes read, ending at lastEnd
	body    io.ReadCloser
	dog     *watchdog
	bodyPos int64    // the offset of body's next byte
	bodyEnd int64    // the offset after body's last byte
	local   *os.File // the object's copy, once it was removed
}

func (r *readFile) Name() string               { return r.name }
func (r *readFile) Stat() (os.FileInfo, error) { return r.info, nil }

func (r *readFile) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, err := r.readAt(p, r.off)
	r.off += int64(n)
	return n, err
}

func (r *readFile) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readAt(p, off)
}

func (r *readFile) readAt(p []byte, off int64) (int, error) {
	switch {
	case r.closed:
		return 0, pathError("read", r.name, fs.ErrClosed)
	case off < 0:
		return 0, pathError("read", r.name, fs.ErrInvalid)
	case off >= r.info.size:
		return 0, io.EOF
	case len(p) == 0:
		return 0, nil
	}
	want := min(int64(len(p)), r.info.size-off)
	if r.local != nil {
		n, err := r.local.ReadAt(p[:want], off)
		if err != nil {
			return n, pathError("read", r.name, fmt.Errorf("the copy of the removed object: %w", err))
		}
		return n, eofIfShort(n, p)
	}
	// A read that starts a little before where the last one ended (fsx
	// reads whole codec blocks, so sequential reads of the decoded file
	// overlap by a block) takes those bytes from the tail and reads on.
	n := 0
	if back := r.lastEnd - off; back > 0 && back <= int64(len(r.tail)) {
		n = copy(p[:want], r.tail[int64(len(r.tail))-back:])
	}
	if at := off + int64(n); int64(n) < want && (r.body == nil || r.bodyPos != at) {
		end := off + want
		if at == r.lastEnd && at > 0 {
			end = r.info.size // reading on: stream the rest
		}
		if err := r.open(at, end); err != nil {
			return 0, pathError("read", r.name, err)
		}
	}
	if int64(n) < want {
		m, err := io.ReadFull(watchedReader{r.body, r.dog}, p[n:want])
		r.bodyPos += int64(m)
		r.keep(p[n : n+m])
		n += m
		if err != nil {
			r.closeBody()
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("object ended at %d, before its size %d: %w", r.bodyPos, r.info.size, io.ErrUnexpectedEOF)
			}
			return n, pathError("read", r.name, stalled(err, r.fs.timeout))
		}
		if r.bodyPos == r.bodyEnd {
			r.closeBody() // read to its end, so the connection is reused
		}
	}
	return n, eofIfShort(n, p)
}

// eofIfShort returns io.EOF when a read of p that reached the end of the
// object returned n < len(p) bytes, and nil otherwise.
func eofIfShort(n int, p []byte) error {
	if n < len(p) {
		return io.EOF
	}
	return nil
}

// keepLocal copies the object whole into a spool file of r's own, which r
// reads from then on, since the object is about to be removed. An object
// already replaced or removed by another client is not copied: r's reads
// fail as they would have.
func (r *readFile) keepLocal() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.local != nil || r.info.size == 0 {
		return nil
	}
	spool, err := r.fs.newSpool()
	if err != nil {
		return err
	}
	if err := r.open(0, r.info.size); err != nil {
		spool.Close()
		if errors.Is(err, errReplaced) || notFound(err) {
			return nil
		}
		return err
	}
	n, err := io.Copy(spool, watchedReader{r.body, r.dog})
	r.closeBody()
	if err == nil && n != r.info.size {
		err = fmt.Errorf("object ended at %d, before its size %d: %w", n, r.info.size, io.ErrUnexpectedEOF)
	}
	if err != nil {
		spool.Close()
		return fmt.Errorf("copying %s to keep it open: %w", r.name, stalled(err, r.fs.timeout))
	}
	r.local = spool
	return nil
}

// tailSize is how many of the last bytes read a readFile keeps, for reads
// that start again a little before the end of the one before.
const tailSize = 4 << 10

// keep records that p was just read, ending where the last read ended.
func (r *readFile) keep(p []byte) {
	end := r.bodyPos
	if r.lastEnd != end-int64(len(p)) {
		r.tail = r.tail[:0] // not contiguous with what it holds
	}
	r.tail = append(r.tail, p[max(0, len(p)-tailSize):]...)
	if len(r.tail) > tailSize {
		r.tail = append(r.tail[:0], r.tail[len(r.tail)-tailSize:]...)
	}
	r.lastEnd = end
}

// errReplaced is the error of a GET of an open file whose object was
// replaced since it was opened.
var errReplaced = errors.New("the object was replaced while open")

// open starts a GET of the bytes [off, end).
func (r *readFile) open(off, end int64) error {
	r.closeBody()
	var opts minio.GetObjectOptions
	if err := opts.SetRange(off, end-1); err != nil {
		return err
	}
	if r.info.etag != "" {
		if err := opts.SetMatchETag(r.info.etag); err != nil {
			return err
		}
	}
	ctx, dog := newWatchdog(r.fs.timeout)
	body, info, _, err := (&minio.Core{Client: r.fs.client}).GetObject(ctx, r.fs.bucket, r.key, opts)
	if err == nil && info.ETag != "" && r.info.etag != "" && info.ETag != r.info.etag {
		// A store that ignores If-Match (gofakes3) still tells the ETag.
		body.Close()
		err = fmt.Errorf("%w: ETag %s, opened as %s", errReplaced, info.ETag, r.info.etag)
	}
	if err != nil {
		dog.stop()
		switch minio.ToErrorResponse(err).Code {
		case "PreconditionFailed", "InvalidRange":
			// Its ranges lie within the size the object had at open, so
			// a store that checks them before the ETag says the same.
			return fmt.Errorf("%w: %w", errReplaced, err)
		}
		return stalled(err, r.fs.timeout)
	}
	r.body, r.dog, r.bodyPos, r.bodyEnd = body, dog, off, end
	return nil
}

func (r *readFile) closeBody() {
	if r.body != nil {
		r.body.Close()
		r.dog.stop()
		r.body, r.dog = nil, nil
	}
}

func (r *readFile) Seek(offset int64, whence int) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.info.size
	default:
		return 0, pathError("seek", r.name, fs.ErrInvalid)
	}
	if offset < 0 {
		return 0, pathError("seek", r.name, fs.ErrInvalid)
	}
	r.off = offset
	return offset, nil
}

func (r *readFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return pathError("close", r.name, fs.ErrClosed)
	}
	r.closed = true
	r.closeBody()
	if r.local != nil {
		r.local.Close()
	}
	r.fs.reads.forget(r)
	return nil
}

func (r *readFile) readOnly(op string) error {
	return pathError(op, r.name, syscall.EBADF)
}

func (r *readFile) Write([]byte) (int, error)          { return 0, r.readOnly("write") }
func (r *readFile) WriteAt([]byte, int64) (int, error) { return 0, r.readOnly("write") }
func (r *readFile) WriteString(string) (int, error)    { return 0, r.readOnly("write") }
func (r *readFile) Truncate(int64) error               { return r.readOnly("truncate") }
func (r *readFile) Sync() error                        { return nil }
func (r *readFile) Readdir(int) ([]os.FileInfo, error) {
	return nil, pathError("readdir", r.name, syscall.ENOTDIR)
}
func (r *readFile) Readdirnames(int) ([]string, error) {
	return nil, pathError("readdir", r.name, syscall.ENOTDIR)
}

// writeFile is the new content of an object, held in a local spool file
// (which allows writes and reads at any offset) until Close or Sync stores
// it whole with one PUT, or a multipart upload for large files. Either
// replaces the object at once when it completes and leaves it as it was
// when it fails.
type writeFile struct {
	fs       *Fs
	name     string
	key      string
	spool    *os.File
	readable bool // opened for reading too

	mu     sync.Mutex
	dirty  bool // written since the last upload
	closed bool
}

func (f *Fs) newWriteFile(name string, perm os.FileMode) (*writeFile, error) {
	spool, err := f.newSpool()
	if err != nil {
		return nil, err
	}
	key, _ := f.key(name)
	return &writeFile{fs: f, name: name, key: key, spool: spool, dirty: true}, nil
}

// newSpool creates an unnamed file in the spool directory.
func (f *Fs) newSpool() (*os.File, error) {
	spool, err := os.CreateTemp(f.spool, "b14fs-s3-*.spool")
	if err != nil {
		return nil, fmt.Errorf("spool file: %w", err)
	}
	// Nothing but this process needs the name.
	os.Remove(spool.Name())
	return spool, nil
}

func (w *writeFile) Name() string { return w.name }

func (w *writeFile) check(op string) error {
	if w.closed {
		return pathError(op, w.name, fs.ErrClosed)
	}
	return nil
}

func (w *writeFile) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check("write"); err != nil {
		return 0, err
	}
	w.dirty = true
	n, err := w.spool.Write(p)
	return n, w.spoolError("write", err)
}

func (w *writeFile) WriteAt(p []byte, off int64) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check("write"); err != nil {
		return 0, err
	}
	w.dirty = true
	n, err := w.spool.WriteAt(p, off)
	return n, w.spoolError("write", err)
}

func (w *writeFile) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

func (w *writeFile) Truncate(size int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check("truncate"); err != nil {
		return err
	}
	w.dirty = true
	return w.spoolError("truncate", w.spool.Truncate(size))
}

func (w *writeFile) Read(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.readCheck(); err != nil {
		return 0, err
	}
	n, err := w.spool.Read(p)
	return n, w.spoolError("read", err)
}

func (w *writeFile) ReadAt(p []byte, off int64) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.readCheck(); err != nil {
		return 0, err
	}
	n, err := w.spool.ReadAt(p, off)
	return n, w.spoolError("read", err)
}

func (w *writeFile) readCheck() error {
	if err := w.check("read"); err != nil {
		return err
	}
	if !w.readable {
		return pathError("read", w.name, syscall.EBADF)
	}
	return nil
}

func (w *writeFile) Seek(offset int64, whence int) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check("seek"); err != nil {
		return 0, err
	}
	n, err := w.spool.Seek(offset, whence)
	return n, w.spoolError("seek", err)
}

// spoolError names the file, not the spool, in an error of the spool.
func (w *writeFile) spoolError(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return pathError(op, w.name, err)
}

func (w *writeFile) Stat() (os.FileInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check("stat"); err != nil {
		return nil, err
	}
	info, err := w.spool.Stat()
	if err != nil {
		return nil, w.spoolError("stat", err)
	}
	return &fileInfo{name: path.Base(w.key), size: info.Size(), mod: info.ModTime().Truncate(time.Second)}, nil
}

// Sync stores the content written so far.
func (w *writeFile) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check("sync"); err != nil {
		return err
	}
	return w.upload("sync")
}

// Close stores the content, unless Sync stored it already, and closes the
// file. When storing fails, the object is as it was.
func (w *writeFile) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check("close"); err != nil {
		return err
	}
	err := w.upload("close")
	w.closed = true
	w.spool.Close()
	return err
}

// Discard drops the content and closes the file: the object stays as it
// was.
func (w *writeFile) Discard() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		w.spool.Close()
	}
}

// create stores the object empty unless the key exists, which makes
// os.O_EXCL atomic: the PUT carries If-None-Match: *, which the store
// refuses (412 Precondition Failed) when the key exists, however many
// clients create it at once. Amazon S3, MinIO, SeaweedFS and gofakes3
// honour it; a store that answers that it does not implement it (501)
// gets a plain PUT, after the check OpenFile made. What the file is
// written with is stored at Close as usual.
func (w *writeFile) create() error {
	var opts minio.PutObjectOptions
	opts.SetMatchETagExcept("*")
	err := w.fs.putEmpty(w.key, opts)
	switch minio.ToErrorResponse(err).Code {
	case "PreconditionFailed":
		return fmt.Errorf("%w: created meanwhile: %w", fs.ErrExist, err)
	case "NotImplemented":
		err = w.fs.putEmpty(w.key, minio.PutObjectOptions{})
	}
	if err != nil {
		return err
	}
	w.dirty = false
	return nil
}

// upload stores the spool's content as the object, if it changed since.
func (w *writeFile) upload(op string) error {
	if !w.dirty {
		return nil
	}
	info, err := w.spool.Stat()
	if err != nil {
		return w.spoolError(op, err)
	}
	ctx, dog := newWatchdog(w.fs.timeout)
	defer dog.stop()
	body := newWatchedReaderAt(io.NewSectionReader(w.spool, 0, info.Size()), dog)
	_, err = w.fs.client.PutObject(ctx, w.fs.bucket, w.key, body, info.Size(), minio.PutObjectOptions{
		ContentType: "application/octet-stream",
		PartSize:    partSize,
		NumThreads:  4,
		// An empty body has nothing to sign, and some stores refuse the
		// chunked signed form of it.
		DisableContentSha256: info.Size() == 0 || w.fs.unsigned,
	})
	if err != nil {
		return pathError(op, w.name, stalled(err, w.fs.timeout))
	}
	w.dirty = false
	return nil
}

// partSize is the size of the parts of a multipart upload, which objects
// larger than it take.
const partSize = 16 << 20

// watchedReaderAt is a section of the spool whose reads kick a watchdog:
// the upload reads it as fast as the store takes the bytes. Once as many
// bytes as the section holds are read, the watchdog is finished.
type watchedReaderAt struct {
	r    *io.SectionReader
	w    *watchdog
	left *atomic.Int64
}

func newWatchedReaderAt(r *io.SectionReader, w *watchdog) watchedReaderAt {
	left := new(atomic.Int64)
	left.Store(r.Size())
	if r.Size() == 0 {
		w.finish()
	}
	return watchedReaderAt{r, w, left}
}

func (r watchedReaderAt) progress(n int) {
	if n > 0 {
		r.w.kick()
		if r.left.Add(-int64(n)) <= 0 {
			r.w.finish()
		}
	}
}

func (r watchedReaderAt) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.progress(n)
	return n, err
}

func (r watchedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.r.ReadAt(p, off)
	r.progress(n)
	return n, err
}

func (r watchedReaderAt) Seek(off int64, whence int) (int64, error) { return r.r.Seek(off, whence) }

func (w *writeFile) Readdir(int) ([]os.FileInfo, error) {
	return nil, pathError("readdir", w.name, syscall.ENOTDIR)
}

func (w *writeFile) Readdirnames(int) ([]string, error) {
	return nil, pathError("readdir", w.name, syscall.ENOTDIR)
}
