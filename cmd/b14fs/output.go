package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/internal/atomicfile"
)

// exitInterrupted is the exit code after SIGINT or SIGTERM, as shells report
// a death by SIGINT.
const exitInterrupted = 130

// createOutput creates the temporary file that becomes path on Commit, with
// the permissions path has if it exists, and 0666 less the umask otherwise.
// It first removes the temporary files that killed runs left beside path.
func createOutput(path string) (*atomicfile.File, error) {
	fsys := afero.NewOsFs()
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	atomicfile.RemoveStale(fsys, filepath.Dir(path))
	f, err := atomicfile.Create(fsys, path, 0o666)
	if err == nil && fi != nil {
		if err = f.Chmod(fi.Mode().Perm()); err != nil {
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
