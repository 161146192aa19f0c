package torrent

import (
	"cmp"
	"errors"
	"slices"
	"strconv"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// Marshal returns the bencoding of m: for a MetaInfo that Parse returned,
// the bytes it was parsed from (when they were canonical bencode). The
// info dictionary is InfoBytes when they are set, and the encoding of Info
// otherwise. Keys are sorted; a key of Extra replaces the field of the
// same name.
func (m *MetaInfo) Marshal() ([]byte, error) {
	e := encoder{extra: m.Extra}
	keys := e.keys(topKeys)
	b := []byte{'d'}
	for _, k := range keys {
		if raw, ok := m.Extra[k]; ok {
			b = appendRaw(appendString(b, k), raw)
			continue
		}
		switch k {
		case "announce":
			if m.has&hasAnnounce != 0 || m.Announce != "" {
				b = appendString(appendString(b, k), m.Announce)
			}
		case "announce-list":
			if m.has&hasAnnounceList != 0 || m.AnnounceList != nil {
				b = append(appendString(b, k), 'l')
				for _, tier := range m.AnnounceList {
					b = appendStrings(b, tier)
				}
				b = append(b, 'e')
			}
		case "url-list":
			if m.has&hasURLListString != 0 && len(m.URLList) == 1 {
				b = appendString(appendString(b, k), m.URLList[0])
			} else if m.has&hasURLList != 0 || m.URLList != nil {
				b = appendStrings(appendString(b, k), m.URLList)
			}
		case "comment":
			if m.has&hasComment != 0 || m.Comment != "" {
				b = appendString(appendString(b, k), m.Comment)
			}
		case "created by":
			if m.has&hasCreatedBy != 0 || m.CreatedBy != "" {
				b = appendString(appendString(b, k), m.CreatedBy)
			}
		case "creation date":
			if m.has&hasCreationDate != 0 || m.CreationDate != 0 {
				b = appendInt(appendString(b, k), m.CreationDate)
			}
		case "encoding":
			if m.has&hasEncoding != 0 || m.Encoding != "" {
				b = appendString(appendString(b, k), m.Encoding)
			}
		case "piece layers":
			if m.has&hasPieceLayers != 0 || m.PieceLayers != nil {
				b = append(appendString(b, k), 'd')
				for _, root := range slices.Sorted(mapKeys(m.PieceLayers)) {
					b = appendString(appendString(b, root), string(m.PieceLayers[root]))
				}
				b = append(b, 'e')
			}
		case "info":
			b = appendString(b, k)
			if len(m.InfoBytes) > 0 {
				b = appendRaw(b, m.InfoBytes)
				continue
			}
			var err error
			if b, err = m.Info.appendTo(b); err != nil {
				return nil, err
			}
		}
	}
	return append(b, 'e'), nil
}

// MarshalBencode returns m.Marshal(), so that bencode.Marshal encodes a
// MetaInfo as Marshal does.
func (m MetaInfo) MarshalBencode() ([]byte, error) { return m.Marshal() }

// SetInfoBytes sets m.InfoBytes to the encoding of m.Info, as needed after
// Info was changed, or made in Go, for the info-hashes to be its hashes.
func (m *MetaInfo) SetInfoBytes() error {
	b, err := m.Info.Marshal()
	if err == nil {
		m.InfoBytes = b
	}
	return err
}

// Marshal returns the bencoding of the info dictionary: for an Info that
// Parse or ParseLazy returned, its InfoBytes (when they were canonical
// bencode).
func (i *Info) Marshal() ([]byte, error) { return i.appendTo(nil) }

// MarshalBencode returns i.Marshal().
func (i Info) MarshalBencode() ([]byte, error) { return i.Marshal() }

func (i *Info) appendTo(b []byte) ([]byte, error) {
	e := encoder{extra: i.Extra}
	v1 := i.Pieces != nil || i.has&hasPieces != 0
	keys := e.keys(infoKeys)
	b = append(b, 'd')
	for _, k := range keys {
		if raw, ok := i.Extra[k]; ok {
			b = appendRaw(appendString(b, k), raw)
			continue
		}
		switch k {
		case "name":
			b = appendString(appendString(b, k), i.Name)
		case "piece length":
			b = appendInt(appendString(b, k), i.PieceLength)
		case "pieces":
			if v1 {
				b = appendString(appendString(b, k), string(i.Pieces))
			}
		case "length":
			if i.has&hasLength != 0 || (v1 && i.Files == nil && i.has&hasFiles == 0) {
				b = appendInt(appendString(b, k), i.Length)
			}
		case "files":
			files := i.Files
			if files == nil && i.files.data != nil {
				files = i.files.decode(false) // as ParseLazy left them
			}
			if i.has&hasFiles != 0 || files != nil {
				b = append(appendString(b, k), 'l')
				for n := range files {
					b = files[n].appendTo(b, false)
				}
				b = append(b, 'e')
			}
		case "private":
			if i.has&hasPrivate != 0 || i.Private {
				n := int64(0)
				if i.Private {
					n = 1
				}
				b = appendInt(appendString(b, k), n)
			}
		case "meta version":
			if i.has&hasMetaVersion != 0 || i.MetaVersion != 0 {
				b = appendInt(appendString(b, k), i.MetaVersion)
			}
		case "file tree":
			tree := i.FileTree
			if tree == nil && i.tree.data != nil {
				tree = i.tree.decode(true)
			}
			if i.has&hasFileTree != 0 || tree != nil {
				var err error
				if b, err = appendTree(appendString(b, k), tree); err != nil {
					return nil, err
				}
			}
		}
	}
	return append(b, 'e'), nil
}

// appendTo appends a file's dictionary: of "files", or the properties of a
// file of the file tree (inTree), which has no "path".
func (f *File) appendTo(b []byte, inTree bool) []byte {
	e := encoder{extra: f.Extra}
	keys := e.keys(fileKeys)
	b = append(b, 'd')
	for _, k := range keys {
		if raw, ok := f.Extra[k]; ok {
			b = appendRaw(appendString(b, k), raw)
			continue
		}
		switch k {
		case "attr":
			if f.has&hasAttr != 0 || f.Attr != "" {
				b = appendString(appendString(b, k), f.Attr)
			}
		case "length":
			if f.has&hasLength != 0 || f.has == 0 || f.Length != 0 {
				b = appendInt(appendString(b, k), f.Length)
			}
		case "path":
			if !inTree {
				b = appendStrings(appendString(b, k), f.Path)
			}
		case "pieces root":
			if f.has&hasPiecesRoot != 0 || f.PiecesRoot != nil {
				b = appendString(appendString(b, k), string(f.PiecesRoot))
			}
		case "symlink path":
			if f.has&hasSymlinkPath != 0 || f.SymlinkPath != nil {
				b = appendStrings(appendString(b, k), f.SymlinkPath)
			}
		}
	}
	return append(b, 'e')
}

var errTreePath = errors.New("torrent: a file tree path that is empty, repeated, or also a directory")

// appendTree appends the file tree of files.
func appendTree(b []byte, files []File) ([]byte, error) {
	order := make([]*File, len(files))
	for i := range files {
		order[i] = &files[i]
	}
	slices.SortStableFunc(order, func(x, y *File) int { return slices.Compare(x.Path, y.Path) })
	return appendDir(b, order, 0)
}

// appendDir appends the directory, at depth, of files, whose paths are
// sorted and share their first depth elements.
func appendDir(b []byte, files []*File, depth int) ([]byte, error) {
	b = append(b, 'd')
	for len(files) > 0 {
		f := files[0]
		if len(f.Path) <= depth {
			return nil, errTreePath
		}
		name := f.Path[depth]
		n := 1
		for n < len(files) && len(files[n].Path) > depth && files[n].Path[depth] == name {
			n++
		}
		b = appendString(b, name)
		if len(f.Path) == depth+1 {
			if n > 1 {
				return nil, errTreePath
			}
			b = f.appendTo(appendString(append(b, 'd'), ""), true)
			b = append(b, 'e')
		} else {
			var err error
			if b, err = appendDir(b, files[:n], depth+1); err != nil {
				return nil, err
			}
		}
		files = files[n:]
	}
	return append(b, 'e'), nil
}

// The known keys of each dictionary, sorted.
var (
	topKeys  = []string{"announce", "announce-list", "comment", "created by", "creation date", "encoding", "info", "piece layers", "url-list"}
	infoKeys = []string{"file tree", "files", "length", "meta version", "name", "piece length", "pieces", "private"}
	fileKeys = []string{"attr", "length", "path", "pieces root", "symlink path"}
)

// An encoder writes one dictionary with extra keys beside its known ones.
type encoder struct {
	extra map[string]bencode.RawMessage
}

// keys returns the known keys and the extra ones, sorted.
func (e encoder) keys(known []string) []string {
	if len(e.extra) == 0 {
		return known // sorted already
	}
	keys := append([]string(nil), known...)
	for k := range e.extra {
		if !slices.Contains(known, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, cmp.Compare[string])
	return keys
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func appendString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, 'l')
	for _, s := range list {
		b = appendString(b, s)
	}
	return append(b, 'e')
}

func appendInt(b []byte, n int64) []byte {
	return append(strconv.AppendInt(append(b, 'i'), n, 10), 'e')
}

func appendRaw(b []byte, raw []byte) []byte { return append(b, raw...) }
