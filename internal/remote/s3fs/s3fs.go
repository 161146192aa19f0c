// Package s3fs is an afero.Fs over a bucket of an S3 object store: objects
// are files, and the prefixes up to a slash are directories.
//
// S3 has no rename and no partial writes, so the filesystem maps them
// honestly: a file opened for writing holds its new content in a local
// spool file, and Close (or Sync) stores it with one PUT, or a multipart
// upload for large files, which replaces the object whole and at once; a
// failed or interrupted upload leaves the object as it was. Reads at an
// offset are ranged GETs: a read at a new offset asks for exactly the bytes
// it needs, and a read that continues the previous one (or starts within
// its last 4 KiB, as fsx's reads of whole codec blocks do) streams the rest
// of the object. Creating a file with os.O_EXCL is one conditional PUT, so
// of several clients creating one name at once exactly one succeeds.
// Rename, Chmod, Chown, Chtimes, symbolic links and opening an existing
// object for writing without truncating it fail with a *fs.PathError
// wrapping errors.ErrUnsupported.
//
// The Fs is an fsx.Replacer, so fsx writes its files through Replace
// rather than a temporary object and a rename.
package s3fs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/remote/listing"
)

// Config says how to reach the object store.
type Config struct {
	// Endpoint is the store's host[:port]; empty means Amazon S3.
	Endpoint string
	// Insecure speaks plain HTTP to the endpoint rather than HTTPS.
	Insecure bool
	// Region is the bucket's region; empty lets the client find it out.
	Region string
	// Credentials sign the requests; nil means anonymous requests.
	Credentials *credentials.Credentials
	// Transport carries the requests; nil means a transport of its own with
	// Timeout for connecting and for each response's headers.
	Transport http.RoundTripper
	// Timeout is how long a request may go without progress (connecting,
	// waiting for an answer, sending or receiving body bytes) before it
	// fails; zero means DefaultTimeout.
	Timeout time.Duration
	// UnsignedPayload sends request bodies without signing them
	// (UNSIGNED-PAYLOAD), for stores that cannot take the signed chunked
	// form of multipart parts; over HTTPS, TLS still guards them.
	UnsignedPayload bool
	// SpoolDir holds the content of files being written until they are
	// stored; empty means os.TempDir().
	SpoolDir string
}

// DefaultTimeout is how long a request may make no progress, unless
// Config.Timeout says otherwise.
const DefaultTimeout = 30 * time.Second

// Fs is the afero.Fs of the objects under a prefix of a bucket.
type Fs struct {
	client  *minio.Client
	bucket  string
	prefix  string // "" or ending in "/"
	timeout time.Duration
	spool   string
	// unsigned is Config.UnsignedPayload.
	unsigned bool
	reads    openReads
}

var (
	_ afero.Fs        = (*Fs)(nil)
	_ fsx.Replacer    = (*Fs)(nil)
	_ fsx.Replacement = (*writeFile)(nil)
)

// New returns the filesystem of the objects whose keys start with prefix
// (a slash is added unless it is empty or ends in one) in bucket.
func New(bucket, prefix string, cfg Config) (*Fs, error) {
	if bucket == "" {
		return nil, errors.New("s3: no bucket")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = "s3.amazonaws.com"
	}
	tr := cfg.Transport
	if tr == nil {
		tr = newTransport(timeout)
	}
	creds := cfg.Credentials
	if creds == nil {
		creds = credentials.NewStatic("", "", "", credentials.SignatureAnonymous)
	}
	client, err := minio.New(endpoint, &minio.Options{
		Creds:     creds,
		Secure:    !cfg.Insecure,
		Region:    cfg.Region,
		Transport: tr,
		// One retry: a server that is gone fails the request within
		// about one timeout, not after minutes of backing off.
		MaxRetries: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("s3: endpoint %q: %w", endpoint, err)
	}
	prefix = strings.TrimPrefix(prefix, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return &Fs{client: client, bucket: bucket, prefix: prefix, timeout: timeout, spool: cfg.SpoolDir, unsigned: cfg.UnsignedPayload}, nil
}

// Check asks the store whether the bucket exists, so that a wrong
// endpoint, bucket or credentials show at once rather than at the first
// use.
func (f *Fs) Check() error {
	ctx, cancel := f.ctx()
	defer cancel()
	ok, err := f.client.BucketExists(ctx, f.bucket)
	switch {
	case err != nil:
		return fmt.Errorf("s3: bucket %s: %w", f.bucket, classify(err))
	case !ok:
		return fmt.Errorf("s3: bucket %s: %w", f.bucket, fs.ErrNotExist)
	}
	return nil
}

// newTransport returns an HTTP transport that gives up on connecting and
// on waiting for a response's headers after timeout.
func newTransport(timeout time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: timeout, KeepAlive: timeout}).DialContext
	t.ResponseHeaderTimeout = timeout
	t.MaxIdleConnsPerHost = 16
	// Compressed answers would break ranged reads' byte counts.
	t.DisableCompression = true
	return t
}

// Name returns "s3".
func (f *Fs) Name() string { return "s3" }

// HighLatency reports that each call waits for a round trip to the server
// (fsx.HighLatency).
func (f *Fs) HighLatency() bool { return true }

// key returns the object key of name, and whether name is the root.
func (f *Fs) key(name string) (string, bool) {
	rel := strings.TrimPrefix(path.Clean("/"+name), "/")
	if rel == "" {
		return strings.TrimSuffix(f.prefix, "/"), true
	}
	return f.prefix + rel, false
}

// maxKey is the length of the longest object key, in bytes, that Amazon S3
// and MinIO take.
const maxKey = 1024

// checkName refuses names holding a backslash, which some stores
// (SeaweedFS) take for a slash, so that such a name would open another
// file; and, with ENAMETOOLONG, names whose key would be longer than
// stores take, with room for the slash of a directory's marker.
func (f *Fs) checkName(name string) error {
	if strings.Contains(name, `\`) {
		return fmt.Errorf("%w: a backslash in a name (stores take it for a slash)", fs.ErrInvalid)
	}
	if k, _ := f.key(name); len(k) >= maxKey {
		return fmt.Errorf("%w: a key of %d bytes (at most %d: stores take %d with a directory's slash)", syscall.ENAMETOOLONG, len(k), maxKey-1, maxKey)
	}
	return nil
}

// dirPrefix returns the key prefix of the entries of the directory name.
func (f *Fs) dirPrefix(name string) string {
	k, root := f.key(name)
	if root {
		return f.prefix
	}
	return k + "/"
}

// unsupported is the error of an operation S3 cannot do.
func unsupported(op, name, why string) error {
	return &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%w on S3: %s", errors.ErrUnsupported, why)}
}

// pathError wraps the store's error err as a *fs.PathError, matching
// fs.ErrNotExist, fs.ErrPermission or os.ErrDeadlineExceeded where it
// means that.
func pathError(op, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == name {
		return err
	}
	return &fs.PathError{Op: op, Path: name, Err: classify(err)}
}

func classify(err error) error {
	switch minio.ToErrorResponse(err).Code {
	case "NoSuchKey", "NotFound":
		return fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	case "NoSuchBucket":
		return fmt.Errorf("%w: no such bucket: %w", fs.ErrNotExist, err)
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch":
		return fmt.Errorf("%w: %w", fs.ErrPermission, err)
	case "KeyTooLongError":
		// A store's own limit, below S3's 1,024 bytes: SeaweedFS takes
		// no element of a key past 255 bytes.
		return fmt.Errorf("%w: %w", syscall.ENAMETOOLONG, err)
	}
	if errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w: %w", os.ErrDeadlineExceeded, err)
	}
	return err
}

func notFound(err error) bool {
	switch minio.ToErrorResponse(err).Code {
	case "NoSuchKey", "NotFound":
		return true
	}
	return false
}

// ctx returns a context for a request without a body to stream, which
// fails after the timeout.
func (f *Fs) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), f.timeout)
}

// Stat returns the FileInfo of an object, or of a directory: the root, a
// prefix some key starts with followed by a slash, or an empty marker
// object ending in a slash (which Mkdir makes).
func (f *Fs) Stat(name string) (os.FileInfo, error) {
	info, err := f.stat(name)
	if err != nil {
		return nil, pathError("stat", name, err)
	}
	return info, nil
}

func (f *Fs) stat(name string) (*fileInfo, error) {
	if err := f.checkName(name); err != nil {
		return nil, err
	}
	key, root := f.key(name)
	if root {
		return dirInfo(name), nil
	}
	ctx, cancel := f.ctx()
	defer cancel()
	oi, err := f.client.StatObject(ctx, f.bucket, key, minio.StatObjectOptions{})
	if err == nil {
		return objectInfo(path.Base(key), oi), nil
	}
	if !notFound(err) {
		return nil, err
	}
	isDir, err := f.isDir(key + "/")
	switch {
	case err != nil:
		return nil, err
	case !isDir:
		return nil, fs.ErrNotExist
	}
	return dirInfo(name), nil
}

// isDir reports whether some key starts with prefix.
func (f *Fs) isDir(prefix string) (bool, error) {
	res, err := (&minio.Core{Client: f.client}).ListObjectsV2(f.bucket, prefix, "", "", "/", 1)
	if err != nil {
		return false, err
	}
	return len(res.Contents) > 0 || len(res.CommonPrefixes) > 0, nil
}

// checkParent fails unless the directory of name exists.
func (f *Fs) checkParent(name string) error {
	_, root := f.key(name)
	if root {
		return nil
	}
	parent := path.Dir(path.Clean("/" + name))
	if parent == "/" {
		return nil
	}
	info, err := f.stat(parent)
	switch {
	case err != nil:
		return err
	case !info.IsDir():
		return syscall.ENOTDIR
	}
	return nil
}

// Create creates or truncates the named file, as OpenFile with
// os.O_RDWR|os.O_CREATE|os.O_TRUNC does.
func (f *Fs) Create(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Open opens the named file or directory for reading.
func (f *Fs) Open(name string) (afero.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

const accessMode = os.O_RDONLY | os.O_WRONLY | os.O_RDWR

// OpenFile opens the named file. Read-only opens read the object with
// ranged GETs; opens for writing must create the object or truncate it
// (os.O_CREATE, os.O_TRUNC), since S3 cannot change part of an object, and
// store the new content at Close. os.O_APPEND is unsupported.
func (f *Fs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&accessMode == os.O_RDONLY {
		return f.openRead(name)
	}
	info, err := f.stat(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, pathError("open", name, err)
	}
	exists := err == nil
	switch {
	case exists && info.IsDir():
		return nil, pathError("open", name, syscall.EISDIR)
	case exists && flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		return nil, pathError("open", name, fs.ErrExist)
	case !exists && flag&os.O_CREATE == 0:
		return nil, pathError("open", name, fs.ErrNotExist)
	case flag&os.O_APPEND != 0:
		return nil, unsupported("open", name, "objects cannot be appended to")
	case exists && flag&os.O_TRUNC == 0:
		return nil, unsupported("open", name, "objects cannot be changed in part; open with O_TRUNC to replace one")
	}
	if !exists {
		if err := f.checkParent(name); err != nil {
			return nil, pathError("open", name, err)
		}
	}
	w, err := f.newWriteFile(name, perm)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	if !exists && flag&os.O_EXCL != 0 {
		if err := w.create(); err != nil {
			w.Discard()
			return nil, pathError("open", name, err)
		}
	}
	w.readable = flag&accessMode == os.O_RDWR
	return w, nil
}

// openRead opens name for reading. It holds the key against removals from
// its look at the object until the file is recorded as open, so that a
// removal either comes first or gives the file a copy of its own.
func (f *Fs) openRead(name string) (afero.File, error) {
	key, _ := f.key(name)
	k := f.reads.acquire(key, false)
	defer f.reads.release(key, k, false)
	info, err := f.stat(name)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	if info.IsDir() {
		prefix := f.dirPrefix(name)
		return listing.NewDir(name, info, func() ([]os.FileInfo, error) {
			entries, err := f.list(prefix)
			if err != nil {
				return nil, pathError("readdir", name, err)
			}
			return entries, nil
		}), nil
	}
	r := &readFile{fs: f, name: name, key: key, info: info}
	f.reads.add(k, r)
	return r, nil
}

// Replace returns the pending new content of name: Close stores it in the
// object whole, Discard drops it. It is how fsx writes.
func (f *Fs) Replace(name string, perm os.FileMode) (fsx.Replacement, error) {
	err := f.checkName(name)
	if err == nil {
		err = f.checkParent(name)
	}
	if err != nil {
		return nil, pathError("open", name, err)
	}
	w, err := f.newWriteFile(name, perm)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	w.readable = true
	return w, nil
}

// Mkdir makes a directory: an empty marker object named name + "/".
func (f *Fs) Mkdir(name string, perm os.FileMode) error {
	key, root := f.key(name)
	if root {
		return pathError("mkdir", name, fs.ErrExist)
	}
	if _, err := f.stat(name); err == nil {
		return pathError("mkdir", name, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return pathError("mkdir", name, err)
	}
	if err := f.checkParent(name); err != nil {
		return pathError("mkdir", name, err)
	}
	if err := f.putMarker(key + "/"); err != nil {
		return pathError("mkdir", name, err)
	}
	return nil
}

func (f *Fs) putMarker(key string) error {
	return f.putEmpty(key, minio.PutObjectOptions{})
}

// putEmpty stores an empty object at key.
func (f *Fs) putEmpty(key string, opts minio.PutObjectOptions) error {
	ctx, cancel := f.ctx()
	defer cancel()
	// An empty body has nothing to sign (see writeFile.upload).
	opts.DisableContentSha256 = true
	_, err := f.client.PutObject(ctx, f.bucket, key, strings.NewReader(""), 0, opts)
	return err
}

// MkdirAll makes the directory name and the ones above it that are
// missing.
func (f *Fs) MkdirAll(name string, perm os.FileMode) error {
	clean := path.Clean("/" + name)
	if clean == "/" {
		return nil
	}
	info, err := f.stat(clean)
	switch {
	case err == nil && info.IsDir():
		return nil
	case err == nil:
		return pathError("mkdir", name, syscall.ENOTDIR)
	case !errors.Is(err, fs.ErrNotExist):
		return pathError("mkdir", name, err)
	}
	if err := f.MkdirAll(path.Dir(clean), perm); err != nil {
		return err
	}
	key, _ := f.key(clean)
	if err := f.putMarker(key + "/"); err != nil {
		return pathError("mkdir", name, err)
	}
	return nil
}

// Remove removes an object, or an empty directory.
func (f *Fs) Remove(name string) error {
	info, err := f.stat(name)
	if err != nil {
		return pathError("remove", name, err)
	}
	key, root := f.key(name)
	if !info.IsDir() {
		return f.removeKeys("remove", name, key)
	}
	if root {
		return pathError("remove", name, fs.ErrPermission)
	}
	prefix := key + "/"
	res, err := (&minio.Core{Client: f.client}).ListObjectsV2(f.bucket, prefix, "", "", "/", 2)
	if err != nil {
		return pathError("remove", name, err)
	}
	for _, o := range res.Contents {
		if o.Key != prefix {
			return pathError("remove", name, syscall.ENOTEMPTY)
		}
	}
	if len(res.CommonPrefixes) > 0 {
		return pathError("remove", name, syscall.ENOTEMPTY)
	}
	return f.removeKeys("remove", name, prefix)
}

// removeKeys removes the objects of keys, in order, after giving the files
// open on each a copy of their own; it stops at the first that fails.
func (f *Fs) removeKeys(op, name string, keys ...string) error {
	for _, key := range keys {
		if err := f.removeKey(key); err != nil {
			return pathError(op, name, err)
		}
	}
	return nil
}

// removeKey removes the object of key, after copying it for each file of
// this Fs open on it, which then reads its copy. A copy that cannot be
// made (a full disk, a failed GET) fails the removal, which then leaves
// the object.
func (f *Fs) removeKey(key string) error {
	k := f.reads.acquire(key, true)
	defer f.reads.release(key, k, true)
	for _, r := range f.reads.files(k) {
		if err := r.keepLocal(); err != nil {
			return err
		}
	}
	ctx, cancel := f.ctx()
	defer cancel()
	return f.client.RemoveObject(ctx, f.bucket, key, minio.RemoveObjectOptions{})
}

// RemoveAll removes name and, for a directory, every object under it,
// each before the marker of its directory. It never removes the root.
func (f *Fs) RemoveAll(name string) error {
	if err := f.checkName(name); err != nil {
		return pathError("removeall", name, err)
	}
	key, root := f.key(name)
	if root {
		return pathError("removeall", name, fs.ErrPermission)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var keys []string
	for o := range f.client.ListObjects(ctx, f.bucket, minio.ListObjectsOptions{Prefix: key + "/", Recursive: true}) {
		if o.Err != nil {
			return pathError("removeall", name, o.Err)
		}
		keys = append(keys, o.Key)
	}
	// The deepest keys first: a directory's marker after what it holds,
	// since stores that keep a folder for each prefix (SeaweedFS) refuse
	// to remove a folder that is not empty, and keep it.
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	if err := f.removeKeys("removeall", name, keys...); err != nil {
		return err
	}
	err := f.removeKeys("removeall", name, key)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Rename fails: S3 has no rename.
func (f *Fs) Rename(oldname, newname string) error {
	return unsupported("rename", oldname, "objects cannot be renamed")
}

// Chmod fails: objects have no mode.
func (f *Fs) Chmod(name string, mode os.FileMode) error {
	return unsupported("chmod", name, "objects have no mode")
}

// Chown fails: objects have no owner.
func (f *Fs) Chown(name string, uid, gid int) error {
	return unsupported("chown", name, "objects have no owner")
}

// Chtimes fails: an object's time is when it was stored.
func (f *Fs) Chtimes(name string, atime, mtime time.Time) error {
	return unsupported("chtimes", name, "an object's time is when it was stored")
}

// fileInfo describes an object or a directory.
type fileInfo struct {
	name string
	size int64
	mod  time.Time
	dir  bool
	etag string
}

// objectInfo returns the FileInfo of an object. Times are whole seconds,
// as both listings and HEAD give them.
func objectInfo(name string, oi minio.ObjectInfo) *fileInfo {
	return &fileInfo{name: name, size: oi.Size, mod: oi.LastModified.Truncate(time.Second), etag: oi.ETag}
}

func dirInfo(name string) *fileInfo {
	base := path.Base(path.Clean("/" + name))
	if base == "/" {
		base = "."
	}
	return &fileInfo{name: base, dir: true}
}

func (i *fileInfo) Name() string       { return i.name }
func (i *fileInfo) Size() int64        { return i.size }
func (i *fileInfo) ModTime() time.Time { return i.mod }
func (i *fileInfo) IsDir() bool        { return i.dir }
func (i *fileInfo) Sys() any           { return nil }
func (i *fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

// list returns the entries of the directory whose keys start with prefix:
// its objects, and the prefixes up to a slash below it as directories.
func (f *Fs) list(prefix string) ([]os.FileInfo, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := map[string]bool{}
	entries := []os.FileInfo{}
	var dirs []string
	for o := range f.client.ListObjects(ctx, f.bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if o.Err != nil {
			return nil, o.Err
		}
		rel := strings.TrimPrefix(o.Key, prefix)
		if rel == "" { // the directory's own marker
			continue
		}
		if sub, ok := strings.CutSuffix(rel, "/"); ok {
			dirs = append(dirs, sub)
			continue
		}
		seen[rel] = true
		entries = append(entries, objectInfo(rel, o))
	}
	for _, sub := range dirs {
		// A key "a" and keys under "a/" at once: the object is shown.
		if !seen[sub] {
			seen[sub] = true
			entries = append(entries, &fileInfo{name: sub, dir: true})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}
