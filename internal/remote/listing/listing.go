// Package listing hands out a directory's listed entries the way
// afero.File's Readdir and Readdirnames do, for file systems that list a
// directory whole (an object store's prefix, an SFTP directory).
package listing

import (
	"io"
	"os"
)

// Pages are a directory's entries, handed out in order.
type Pages struct {
	entries []os.FileInfo // nil until Set
	pos     int
}

// Listed reports whether Set was called.
func (p *Pages) Listed() bool { return p.entries != nil }

// Set records the directory's entries.
func (p *Pages) Set(entries []os.FileInfo) { p.entries = append([]os.FileInfo{}, entries...) }

// Next returns the next n entries as Readdir does: all that are left when
// n <= 0, and io.EOF when n > 0 and none are left.
func (p *Pages) Next(n int) ([]os.FileInfo, error) {
	rest := p.entries[p.pos:]
	if n <= 0 {
		p.pos = len(p.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	p.pos += len(rest)
	return rest, nil
}

// Names returns the names of infos, with err, as Readdirnames returns
// what Readdir gave.
func Names(infos []os.FileInfo, err error) ([]string, error) {
	names := make([]string, len(infos))
	for i, info := range infos {
		names[i] = info.Name()
	}
	return names, err
}
