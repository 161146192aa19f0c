package serve

import (
	"encoding/xml"
	"maps"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/net/webdav"
)

// deadProps holds the dead properties that PROPPATCH sets, by path, in
// memory: they last as long as the server, as its locks do. MOVE moves
// them, DELETE drops them, COPY copies them (webdav does, through
// DeadPropsHolder).
type deadProps struct {
	mu    sync.Mutex
	props map[string]map[xml.Name]webdav.Property
}

func newDeadProps() *deadProps {
	return &deadProps{props: map[string]map[xml.Name]webdav.Property{}}
}

// under reports whether p is name or lies under it.
func under(p, name string) bool {
	return p == name || name == "/" || strings.HasPrefix(p, name+"/")
}

func (d *deadProps) get(name string) map[xml.Name]webdav.Property {
	d.mu.Lock()
	defer d.mu.Unlock()
	return maps.Clone(d.props[name])
}

func (d *deadProps) patch(name string, patches []webdav.Proppatch) []webdav.Propstat {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := webdav.Propstat{Status: http.StatusOK}
	for _, patch := range patches {
		for _, p := range patch.Props {
			st.Props = append(st.Props, webdav.Property{XMLName: p.XMLName})
			if patch.Remove {
				delete(d.props[name], p.XMLName)
				continue
			}
			if d.props[name] == nil {
				d.props[name] = map[xml.Name]webdav.Property{}
			}
			d.props[name][p.XMLName] = p
		}
	}
	if len(d.props[name]) == 0 {
		delete(d.props, name)
	}
	return []webdav.Propstat{st}
}

// remove drops the properties of name and of everything under it.
func (d *deadProps) remove(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for p := range d.props {
		if under(p, name) {
			delete(d.props, p)
		}
	}
}

// rename moves the properties of oldName and everything under it.
func (d *deadProps) rename(oldName, newName string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	moved := map[string]map[xml.Name]webdav.Property{}
	for p, v := range d.props {
		if under(p, newName) {
			delete(d.props, p) // what the move replaces
		}
		if under(p, oldName) {
			moved[newName+strings.TrimPrefix(p, oldName)] = v
			delete(d.props, p)
		}
	}
	maps.Copy(d.props, moved)
}
