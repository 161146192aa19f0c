package rpc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// ParsePins parses pins written as NAME=HEX pairs separated by commas or
// newlines, such as the value of the B14FS_PLUGIN_SHA256 environment
// variable or a file of a pin a line; a line that begins with '#' is a
// comment. A name pinned twice is an error; so, when Discover finds no
// plugin of that name, is a pin's name (see WithPins).
func ParsePins(s string) (map[string][]byte, error) {
	pins := make(map[string][]byte)
	var pairs []string
	for line := range strings.Lines(s) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			pairs = append(pairs, strings.Split(line, ",")...)
		}
	}
	for _, pair := range pairs {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		name, hexSum, ok := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		sum, err := hex.DecodeString(strings.TrimSpace(hexSum))
		if !ok || !validName(name) || strings.HasPrefix(name, "#") || err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("plugin pin %q: want NAME=<64 hex digits>", pair)
		}
		if _, dup := pins[name]; dup {
			return nil, fmt.Errorf("plugin pin %q: %s is pinned twice", pair, name)
		}
		pins[name] = sum
	}
	return pins, nil
}

// FormatPins writes pins as ParsePins reads them: a NAME=HEX line each,
// sorted by name.
func FormatPins(pins map[string][]byte) []byte {
	var b bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(pins)) {
		fmt.Fprintf(&b, "%s=%x\n", name, pins[name])
	}
	return b.Bytes()
}

// testHookPinned, if set, runs between the check of a pinned plugin's sum
// and the start of its process, with the path of the plugin.
var testHookPinned func(path string)

// pinned is a pinned plugin's executable, checked against its pin, ready to
// run: the bytes that were hashed are the bytes that run, whatever happens
// to the file at the plugin's path meanwhile.
type pinned struct {
	path string   // what to execute
	file *os.File // a descriptor the plugin must inherit (as fd 3), or nil
	dir  string   // a directory to remove when the plugin has exited, or ""
}

// extraFiles returns the descriptors the plugin process must inherit.
func (p *pinned) extraFiles() []*os.File {
	if p.file == nil {
		return nil
	}
	return []*os.File{p.file}
}

// started releases what only the start of the process needed.
func (p *pinned) started() {
	if p.file != nil {
		p.file.Close()
	}
}

// exited releases the rest, once the process has exited.
func (p *pinned) exited() {
	p.started()
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
}

// pinExecutable copies the plugin executable at path to where it runs from
// (pinCopy, which depends on the system), hashing what it copies, and returns
// it if its SHA-256 sum is want. It reads the file once, through one
// descriptor.
func pinExecutable(path string, want []byte, dir string) (*pinned, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	h := sha256.New()
	p, err := pinCopy(io.TeeReader(src, h), dir)
	if err != nil {
		return nil, fmt.Errorf("pinned executable: %w", err)
	}
	if err := checkSum(h, want); err != nil {
		p.exited()
		return nil, err
	}
	if testHookPinned != nil {
		testHookPinned(path)
	}
	return p, nil
}

// ErrPinMismatch is matched by the error of a pinned plugin whose
// executable does not have the SHA-256 sum of its pin.
var ErrPinMismatch = errors.New("checksum mismatch")

func checkSum(h hash.Hash, want []byte) error {
	if got := h.Sum(nil); !bytes.Equal(got, want) {
		return fmt.Errorf("%w: the file's SHA-256 is %x, the pin says %x", ErrPinMismatch, got, want)
	}
	return nil
}
