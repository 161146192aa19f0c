package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"golang.org/x/net/webdav"
)

// An upload (PUT) goes to a staging file next to its target, which
// replaces the target only when the whole body has arrived: a client that
// goes away mid-upload leaves the previous content, not part of the new.
// (webdav closes the file it wrote to whatever happened, and fsx commits
// what was written on Close.)

// stagingPrefix starts the names of staging files. They are hidden from
// listings and no request can name them.
const stagingPrefix = ".b14fs-put-"

// isStaging reports whether the base name is a staging file's.
func isStaging(base string) bool { return strings.HasPrefix(base, stagingPrefix) }

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

type putKey struct{}

// withPutBody wraps the body of a PUT so that the file it is written to
// knows whether all of it arrived.
func withPutBody(ctx context.Context, b *putBody) context.Context {
	return context.WithValue(ctx, putKey{}, b)
}

// openStaging opens a staging file for the upload to name.
func (d davFS) openStaging(name string, body *putBody, perm os.FileMode) (webdav.File, error) {
	if fi, err := d.fs.Stat(name); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	var r [8]byte
	rand.Read(r[:])
	staging := path.Join(path.Dir(name), stagingPrefix+hex.EncodeToString(r[:])+path.Ext(name))
	f, err := d.fs.OpenFile(staging, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return &putFile{davFile: davFile{File: f, fs: d.fs, name: staging, props: d.props}, d: d, target: name, body: body}, nil
}

// putFile is a staging file; Close puts it in place of the target, or
// removes it when the body did not arrive whole.
type putFile struct {
	davFile
	d      davFS
	target string
	body   *putBody
}

func (f *putFile) Close() error {
	err := f.davFile.File.Close()
	if err == nil && f.body.err != nil {
		err = f.body.err
	}
	if err != nil {
		f.d.fs.Remove(f.name)
		return err
	}
	if fi, err := f.d.fs.Stat(f.target); err == nil && fi.Mode().IsRegular() {
		f.d.fs.Chmod(f.name, fi.Mode().Perm()) // keep the target's permissions
	}
	err = f.d.fs.Rename(f.name, f.target)
	if errors.Is(err, errors.ErrUnsupported) {
		// An object store: no rename, but a whole file is stored at
		// once, so a copy replaces the target atomically too.
		err = f.copyToTarget()
	}
	f.d.fs.Remove(f.name)
	return err
}

// copyToTarget writes the staging file's content over the target, for a
// base filesystem that cannot rename. A copy that fails is discarded (fsx
// files can be), so the target stays as it was.
func (f *putFile) copyToTarget() error {
	src, err := f.d.fs.Open(f.name)
	if err != nil {
		return err
	}
	defer src.Close()
	_, statErr := f.d.fs.Stat(f.target)
	dst, err := f.d.fs.OpenFile(f.target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		if d, ok := dst.(interface{ Discard() error }); ok {
			d.Discard()
			if errors.Is(statErr, fs.ErrNotExist) {
				f.d.fs.Remove(f.target)
			}
		} else {
			dst.Close()
		}
		return err
	}
	return dst.Close()
}
