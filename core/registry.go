package core

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Origin values for codecs built into b14fs.
const OriginBuiltin = "builtin"

// An Entry is a registered codec and where it comes from: OriginBuiltin, or
// the path of the plugin executable that serves it.
type Entry struct {
	Codec  Codec
	Origin string
}

// A Registry maps codec names to codecs. The zero value is an empty registry
// ready to use; a Registry is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	codecs map[string]Entry
}

// Register adds c under c.Name(), noting where it comes from. A name that is
// empty, holds a character that chain specs reserve (',', '=', ':') or
// whitespace, or is already registered is an error.
func (r *Registry) Register(c Codec, origin string) error {
	name := c.Name()
	if err := checkName(name); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.codecs[name]; dup {
		return fmt.Errorf("%w: %q", ErrDuplicateCodec, name)
	}
	if r.codecs == nil {
		r.codecs = make(map[string]Entry)
	}
	r.codecs[name] = Entry{Codec: c, Origin: origin}
	return nil
}

func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("core: empty codec name")
	}
	if i := strings.IndexAny(name, ",=: \t\r\n"); i >= 0 {
		return fmt.Errorf("core: codec name %q holds reserved character %q", name, name[i])
	}
	return nil
}

// Lookup returns the codec registered under name, or an error wrapping
// ErrUnknownCodec.
func (r *Registry) Lookup(name string) (Codec, error) {
	r.mu.RLock()
	e, ok := r.codecs[name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownCodec, name)
	}
	return e.Codec, nil
}

// List returns the registered codecs sorted by name.
func (r *Registry) List() []Entry {
	r.mu.RLock()
	list := make([]Entry, 0, len(r.codecs))
	for _, e := range r.codecs {
		list = append(list, e)
	}
	r.mu.RUnlock()
	slices.SortFunc(list, func(a, b Entry) int { return strings.Compare(a.Codec.Name(), b.Codec.Name()) })
	return list
}
