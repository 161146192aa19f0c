package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"syscall"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/internal/fsutil/atomicfile"
	"github.com/b14fs/b14fs/internal/remote"
)

// exitInterrupted is the exit code after SIGINT or SIGTERM, as shells report
// a death by SIGINT.
const exitInterrupted = 130

// maxLinks bounds the symbolic links resolveLinks follows, as the kernel
// does (ELOOP).
const maxLinks = 40

// An output is where a conversion writes: standard output, a file written
// in place, or a temporary file that becomes the target on success.
type output struct {
	w        io.Writer
	terminal bool                  // w is a terminal
	finish   func(err error) error // ends the output after the conversion's err
}

// openOutput opens the output that -o names for a conversion: standard
// output for "" and "-"; a file that exists and is no regular file (such
// as /dev/null, a FIFO or a terminal), or a descriptor named as a file
// (/dev/stdout, /dev/fd/N, /proc/self/fd/N), written directly; else a
// temporary file in the directory of path (of its final target, for a
// symbolic link) renamed over it on success, keeping its mode (and as root
// its owner), removed on failure or on SIGINT and SIGTERM. Errors name
// path, never the temporary file.
func openOutput(std stdio, path string) (*output, error) {
	if path == "" || path == "-" {
		return &output{w: std.out, terminal: isTerminal(std.out), finish: func(err error) error { return err }}, nil
	}
	target, descriptor, err := resolveLinks(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil && (!fi.Mode().IsRegular() || descriptor) {
		return openInPlace(path)
	}
	f, err := createOutput(target)
	if err != nil {
		return nil, renamePath(err, path)
	}
	stop := onInterrupt(std.err, f.Abort)
	return &output{w: pathWriter{f, path}, finish: func(err error) error {
		stop()
		if err != nil {
			f.Abort()
			return err
		}
		return renamePath(f.Commit(), path)
	}}, nil
}

// openInPlace opens path, which exists, to be written directly: truncated,
// then written, not replaced.
func openInPlace(path string) (*output, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return nil, renamePath(err, path)
	}
	return &output{w: pathWriter{f, path}, terminal: isTerminal(f), finish: func(err error) error {
		if cerr := f.Close(); err == nil {
			err = renamePath(cerr, path)
		}
		return err
	}}, nil
}

// remoteFile is a file of a remote location, open for reading, which
// closes its connection with it.
type remoteFile struct {
	afero.File
	conn io.Closer
}

func (f remoteFile) Close() error {
	err := f.File.Close()
	f.conn.Close()
	return err
}

// openInput opens the input file name: a local path or a remote location.
func openInput(name string, opts remote.Options) (interface {
	io.ReadCloser
	Stat() (fs.FileInfo, error)
}, error) {
	if !remote.IsURL(name) {
		return os.Open(name)
	}
	fsys, base, conn, err := remote.OpenFile(name, opts)
	if err != nil {
		return nil, err
	}
	f, err := fsys.Open(base)
	if err != nil {
		conn.Close()
		return nil, locationError(name, err)
	}
	return remoteFile{f, conn}, nil
}

// locationError names the remote location loc (redacted) in err instead
// of the path in it.
func locationError(loc string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", remote.Redact(loc), err)
}

// openRemoteOutput opens the output -o names when it is a remote location:
// a temporary file renamed over it (SFTP) or the object's new content
// (S3), stored on success only, as openOutput's local files are.
func openRemoteOutput(std stdio, loc string, opts remote.Options) (*output, error) {
	fsys, base, conn, err := openRemoteTarget(loc, opts)
	if err != nil {
		return nil, err
	}
	f, err := atomicfile.Create(fsys, base, 0o666)
	if err != nil {
		conn.Close()
		return nil, locationError(loc, err)
	}
	stop := onInterrupt(std.err, f.Abort)
	return &output{w: f, finish: func(err error) error {
		stop()
		defer conn.Close()
		if err != nil {
			f.Abort()
			return err
		}
		if err := f.Commit(); err != nil {
			return locationError(loc, err)
		}
		return nil
	}}, nil
}

// openRemoteTarget is remote.OpenFile for the file loc names once every
// symbolic link on the way is followed on the server, as resolveLinks
// does for a local path: a target relative to the link's directory, or
// absolute. Each link followed costs a new connection.
func openRemoteTarget(loc string, opts remote.Options) (fsys afero.Fs, name string, closer io.Closer, err error) {
	given := loc
	for range maxLinks {
		if fsys, name, closer, err = remote.OpenFile(loc, opts); err != nil {
			return nil, "", nil, err
		}
		lr, ok := fsys.(afero.LinkReader)
		if !ok {
			return fsys, name, closer, nil
		}
		target, err := lr.ReadlinkIfPossible(name)
		if err != nil {
			return fsys, name, closer, nil // not a link, or absent
		}
		closer.Close()
		u, err := url.Parse(loc)
		if err != nil {
			return nil, "", nil, err
		}
		if !path.IsAbs(target) {
			target = path.Join(path.Dir(u.Path), target)
		}
		u.Path = target
		loc = u.String()
	}
	return nil, "", nil, locationError(given, syscall.ELOOP)
}

// resolveLinks returns the file that path names once every symbolic link
// on the way is followed (the last one's target need not exist), or
// reports that path leads to a descriptor of this process, named as a file
// (/dev/stdout, /dev/fd/N, /proc/self/fd/N), whose link names no file to
// replace. A link's target is taken relative to its directory as the
// kernel resolves it, links and all, not as its path reads: "s/l" where s
// leads to a/ and l to ../b/t is a/../b/t, not b/t.
func resolveLinks(path string) (target string, descriptor bool, err error) {
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(path))
		if err != nil {
			return path, false, nil // absent: creating it says so
		}
		path = filepath.Join(dir, filepath.Base(path))
		if isDescriptor(path) {
			return path, true, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return path, false, nil // not a link, or absent
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(dir, dest)
		}
		path = dest
	}
	return "", false, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
}

// isDescriptor reports whether the path, with no links in its directory,
// names a descriptor of a process: /proc/PID/fd/N (which /dev/fd,
// /dev/stdout and /proc/self lead to, on Linux).
func isDescriptor(path string) bool {
	dir, _ := filepath.Split(path)
	parent, fd := filepath.Split(filepath.Clean(dir))
	return fd == "fd" && filepath.Dir(filepath.Clean(parent)) == "/proc"
}

// renamePath returns err naming path instead of the file it was about.
func renamePath(err error, path string) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	case errors.As(err, &le):
		return &fs.PathError{Op: le.Op, Path: path, Err: le.Err}
	}
	return err
}

// A pathWriter's errors name path.
type pathWriter struct {
	w    io.Writer
	path string
}

func (p pathWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	return n, renamePath(err, p.path)
}

// createOutput creates the temporary file that becomes path on Commit, with
// the mode (and as root the owner) path has if it exists, and 0666 less the
// umask otherwise.
// It first removes the temporary files that killed runs left beside path.
func createOutput(path string) (*atomicfile.File, error) {
	fsys := afero.NewOsFs()
	fi, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	atomicfile.RemoveStale(fsys, filepath.Dir(path))
	f, err := atomicfile.Create(fsys, path, 0o666)
	if err == nil && fi != nil {
		var tinfo os.FileInfo
		if tinfo, err = f.Stat(); err == nil {
			err = atomicfile.KeepAttrs(f, fi, tinfo)
		}
		if err != nil {
			f.Abort()
		}
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// onInterrupt makes SIGINT and SIGTERM run cleanup and end the process with
// exitInterrupted, until the returned stop is called.
func onInterrupt(errOut io.Writer, cleanup func()) (stop func()) {
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sig:
			cleanup()
			fmt.Fprintf(errOut, "b14fs: %v: stopped, output not written\n", s)
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}
