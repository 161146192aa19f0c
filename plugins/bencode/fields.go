package bencode

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// A field is a struct field that is encoded and decoded as a dictionary entry.
type field struct {
	name      string // the dictionary key
	index     []int  // for reflect.Value.FieldByIndex, through embedded structs
	omitEmpty bool
	tagged    bool // the name comes from a tag
}

// structFields are a struct type's fields, sorted by key as bencode
// dictionaries are.
type structFields struct {
	list   []field
	byName map[string]*field
}

var fieldCache sync.Map // reflect.Type -> *structFields

func cachedFields(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f, _ := fieldCache.LoadOrStore(t, typeFields(t))
	return f.(*structFields)
}

// typeFields lists the fields of struct type t. A field's key is its tag's
// name (`bencode:"name,omitempty"`), or else its Go name; a tag of "-" leaves
// it out. The fields of an embedded struct without a tag count as t's own,
// where no shallower field or, at the same depth, no other field has the
// same key (as encoding/json does).
func typeFields(t reflect.Type) *structFields {
	var all []field
	var depths []int
	var walk func(t reflect.Type, index []int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, index []int, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("bencode")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			idx := append(slices.Clip(index), i)
			if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				// (Also through a pointer of an unexported type, which
				// decoding cannot allocate where it is nil.)
				walk(ft, idx, seen)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			f := field{name: name, index: idx, omitEmpty: slices.Contains(strings.Split(opts, ","), "omitempty"), tagged: name != ""}
			if name == "" {
				f.name = sf.Name
			}
			all = append(all, f)
			depths = append(depths, len(idx))
		}
	}
	walk(t, nil, map[reflect.Type]bool{})

	byName := map[string][]int{}
	for i, f := range all {
		byName[f.name] = append(byName[f.name], i)
	}
	sf := &structFields{byName: map[string]*field{}}
	for i, f := range all {
		if dominant(all, depths, byName[f.name]) == i {
			sf.list = append(sf.list, f)
		}
	}
	slices.SortFunc(sf.list, func(a, b field) int { return strings.Compare(a.name, b.name) })
	for i := range sf.list {
		sf.byName[sf.list[i].name] = &sf.list[i]
	}
	return sf
}

// dominant returns the position of the field that wins among the fields at
// positions ids, which share a key: the shallowest, or the only tagged one
// among the shallowest. It returns -1 when none wins.
func dominant(all []field, depths []int, ids []int) int {
	minDepth := depths[ids[0]]
	for _, i := range ids {
		minDepth = min(minDepth, depths[i])
	}
	var shallow []int
	for _, i := range ids {
		if depths[i] == minDepth {
			shallow = append(shallow, i)
		}
	}
	if len(shallow) == 1 {
		return shallow[0]
	}
	var tagged []int
	for _, i := range shallow {
		if all[i].tagged {
			tagged = append(tagged, i)
		}
	}
	if len(tagged) == 1 {
		return tagged[0]
	}
	return -1
}
