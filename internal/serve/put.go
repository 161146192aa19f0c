package serve

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"syscall"

	"golang.org/x/net/webdav"
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

// openUpload opens name for an upload from src.
func (d davFS) openUpload(ctx context.Context, name string, src source, perm os.FileMode) (webdav.File, error) {
	if fi, err := d.fs.Stat(name); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	created := true
	f, err := d.fs.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_TRUNC, perm)
	if errors.Is(err, fs.ErrExist) {
		created = false
		f, err = d.fs.OpenFile(name, os.O_RDWR|os.O_TRUNC, perm)
	}
	if err != nil {
		return nil, noteFailure(ctx, err)
	}
	if _, ok := f.(discarder); !ok {
		f.Close()
		if created {
			d.fs.Remove(name)
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNoDiscard}
	}
	return &putFile{davFile: davFile{File: f, fs: d.fs, name: name, props: d.props}, ctx: ctx, created: created, src: src}, nil
}

// putFile is the file an upload writes: Close stores it when the whole
// source was read and written, and otherwise drops it, and the file it
// created if it did.
type putFile struct {
	davFile
	ctx      context.Context
	created  bool
	src      source
	writeErr error
}

func (f *putFile) Write(p []byte) (int, error) {
	n, err := f.davFile.Write(p)
	if err != nil && f.writeErr == nil {
		f.writeErr = err
	}
	return n, err
}

func (f *putFile) Close() error {
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
		noteFailure(f.ctx, err)
	}
	if err == nil {
		if err = f.davFile.File.Close(); err == nil {
			return nil
		}
		noteFailure(f.ctx, err)
	} else {
		f.davFile.File.(discarder).Discard()
	}
	if f.created {
		f.fs.Remove(f.name) // the empty file that held the name
	}
	return err
}
