package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// exitInterrupted is the exit code after SIGINT or SIGTERM, as shells report
// a death by SIGINT.
const exitInterrupted = 130

// atomicFile is an output file written under a temporary name in the same
// directory and renamed over its real name by commit.
type atomicFile struct {
	*os.File
	path string
}

// createAtomic creates the temporary file for path, with the permissions the
// file has if it exists, and 0666 less the umask otherwise.
func createAtomic(path string) (*atomicFile, error) {
	perm := os.FileMode(0o666)
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", path)
		}
		perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	for range 100 {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.tmp%08x", base, rand.Uint32()))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &atomicFile{File: f, path: path}, nil
	}
	return nil, fmt.Errorf("%s: cannot create a temporary file beside it", path)
}

// commit flushes the file to disk and renames it to its real name.
func (f *atomicFile) commit() error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// abort removes the temporary file.
func (f *atomicFile) abort() {
	f.Close()
	os.Remove(f.Name())
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
