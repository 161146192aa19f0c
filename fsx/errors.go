package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

var (
	// ErrNotMapped is returned for a name that has no stored form under the
	// filesystem's name mapping, such as "notes.txt" when stored ".torrent"
	// files are shown as ".json" and unmapped files are not shown.
	ErrNotMapped = errors.New("name has no stored form under this mapping")
	// ErrReadOnly is returned when writing to a file opened read-only.
	ErrReadOnly = errors.New("file opened read-only")
	// ErrWriteOnly is returned when reading from a file opened write-only.
	ErrWriteOnly = errors.New("file opened write-only")
	// ErrAppendOffset is returned by WriteAt on a file opened with
	// os.O_APPEND, whose writes always go to the end, as os.File does.
	ErrAppendOffset = errors.New("WriteAt on a file opened with O_APPEND")
	// ErrBadMapping is wrapped by the error New returns for a suffix or
	// extension that cannot end a file name.
	ErrBadMapping = errors.New("bad name mapping")
)

var (
	// errNegativeOffset matches fs.ErrInvalid for errors.Is.
	errNegativeOffset = fmt.Errorf("%w: negative offset", fs.ErrInvalid)
	errIsDir          = syscall.EISDIR
	errNotDir         = syscall.ENOTDIR
)

// pathError returns err as an *fs.PathError for op on the shown name,
// replacing the path of a base error (which names the stored file) so that
// errors never leak stored names the caller did not use.
func pathError(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: unwrapPath(err)}
}

// unwrapPath returns the error inside err when err is a base's
// *fs.PathError or *os.LinkError, and err itself otherwise.
func unwrapPath(err error) error {
	switch e := err.(type) {
	case *fs.PathError:
		return e.Err
	case *os.LinkError:
		return e.Err
	}
	return err
}
