//go:build !linux

package mount

import (
	"errors"
	"os"

	"github.com/hanwen/go-fuse/v2/fuse"
)

func keyOf(os.FileInfo) (backingKey, bool) { return backingKey{}, false }

func fillSys(*fuse.Attr, os.FileInfo) bool { return false }

func statfs(string, *fuse.StatfsOut) error { return errors.ErrUnsupported }

func setReadAhead(string, int) error { return errors.ErrUnsupported }
