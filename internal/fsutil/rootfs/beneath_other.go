//go:build !linux

package rootfs

import (
	"os"
	"time"
)

// beneath is the fast path of Linux's openat2; elsewhere every operation
// goes through the os.Root.
type beneath struct{}

func openBeneath(*os.Root) *beneath { return nil }

func (*beneath) close() {}

func (*beneath) stat(string, bool) (os.FileInfo, bool, error) { return nil, false, nil }

func (*beneath) openFile(string, int, os.FileMode, string) (*os.File, bool, error) {
	return nil, false, nil
}

func (*beneath) parent(string) (int, bool, error) { return -1, false, nil }

func (*beneath) syncDir(string) (bool, error) { return false, nil }

func (*beneath) remove(string) (bool, error) { return false, nil }

func (*beneath) mkdir(string, os.FileMode) (bool, error) { return false, nil }

func (*beneath) chmod(string, os.FileMode) (bool, error) { return false, nil }

func (*beneath) lchown(string, int, int) (bool, error) { return false, nil }

func (*beneath) chtimes(string, time.Time, time.Time) (bool, error) { return false, nil }

func (*beneath) readlink(string) (string, bool, error) { return "", false, nil }

func (*beneath) symlink(string, string) (bool, error) { return false, nil }

func (*beneath) link(string, string) (bool, error) { return false, nil }
