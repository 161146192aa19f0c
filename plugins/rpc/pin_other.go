//go:build !linux

package rpc

import (
	"io"
	"os"
	"path/filepath"
)

// pinCopy copies the executable into a new private directory (mode 0700)
// in dir, which the plugin runs from: no one else can change the copy
// between the check and the start.
func pinCopy(r io.Reader, dir string) (p *pinned, err error) {
	d, err := os.MkdirTemp(dir, "pinned")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(d)
		}
	}()
	exe := filepath.Join(d, "plugin")
	f, err := os.OpenFile(exe, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return &pinned{path: exe, dir: d}, nil
}
