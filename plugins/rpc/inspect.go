package rpc

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"sync"
)

// ErrProtocolVersion is matched by the error of a plugin that speaks another
// version of the plugin protocol than the host.
var ErrProtocolVersion = errors.New("wrong protocol version")

// ProtocolVersion is the version of the plugin protocol the host and Serve
// speak, which a plugin announces in its handshake.
const ProtocolVersion = 1

// A Plugin describes a plugin executable that Discover took, as Inspect
// found it.
type Plugin struct {
	Name     string // its codec
	Path     string // its executable, fit to print
	SHA256   []byte // the SHA-256 sum of its executable; nil if unreadable
	Pinned   bool   // the host has a pin for it (see WithPins)
	Protocol int    // the protocol version it speaks; 0 if it did not start
	Suffix   string // the file suffix it suggests
	Err      error  // why it cannot be used (it did not start, its pin does not match), or nil
}

// Inspect starts every plugin that Discover took, as the first use of its
// codec would, and describes each, in the order of their names.
func (h *Host) Inspect() []Plugin {
	list := make([]Plugin, len(h.plugins))
	var wg sync.WaitGroup
	for i, p := range h.plugins {
		wg.Go(func() {
			_, pinned := h.pins[p.name]
			info := Plugin{Name: p.name, Path: cleanText(p.path, 256), Pinned: pinned}
			info.SHA256, _ = Sum(p.path)
			if _, info.Err = p.codec(); info.Err == nil {
				info.Protocol = p.run.Load().NegotiatedVersion()
				info.Suffix = p.suffix
			}
			list[i] = info
		})
	}
	wg.Wait()
	return list
}

// Sum returns the SHA-256 sum of the file at path: what a pin of the
// plugin executable there must hold.
func Sum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
