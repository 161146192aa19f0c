package torrent

import (
	"math"
	"strconv"
	"strings"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// A rawList is a list of files as the input has it: the bytes of "files"
// or of "file tree", which ParseLazy keeps rather than decoding them into
// Info.Files or Info.FileTree.
type rawList struct {
	data  []byte // the value's bytes; nil when there is none, or it is decoded
	off   int64  // the value's offset in the input
	depth int    // the nesting limit it was checked with
	n     int    // the number of files
	elems int    // the number of elements of their paths
	size  int    // the bytes of those
}

// open returns a cursor over l's files (a file tree's when tree is set),
// which must be closed.
func (l *rawList) open(tree bool) *cursor {
	if l.data == nil {
		return &cursor{done: true}
	}
	// l was checked as it was read: the rules that its key order
	// followed, and the size its file tree may take, hold.
	d := newDecoder(bencode.DecodeOptions{Lenient: true, MaxDepth: l.depth}, l.data, l.off)
	d.elems = math.MaxInt
	d.s.Next() // the list's or the dictionary's start
	return &cursor{d: d, tree: tree}
}

// decode returns l's files, whose paths share one slice and one string.
func (l *rawList) decode(tree bool) []File {
	files := make([]File, 0, l.n)
	elems := make([]string, 0, l.elems)
	var b strings.Builder
	b.Grow(l.size)
	c := l.open(tree)
	defer c.close()
	for c.next() {
		start := len(elems)
		for _, sp := range c.path() {
			from := b.Len()
			b.Write(c.d.bytesOf(sp))
			elems = append(elems, b.String()[from:])
		}
		c.f.Path = elems[start:len(elems):len(elems)]
		files = append(files, c.f)
	}
	return files
}

// decodeFiles decodes the lists of files that ParseLazy kept as bytes
// into Files and FileTree.
func (i *Info) decodeFiles() {
	if i.files.data != nil {
		i.Files, i.files = i.files.decode(false), rawList{}
	}
	if i.tree.data != nil {
		i.FileTree, i.tree = i.tree.decode(true), rawList{}
	}
}

// A cursor reads the files of a list one after another, checking each as
// Parse does: the dictionaries of "files", or the files of "file tree" in
// the order of the tree.
type cursor struct {
	d    *decoder // nil for a list of no files
	tree bool
	i    int  // the number of files read
	f    File // the file read last, its Path left nil: see path
	pop  bool // the name of the file tree file read last is on d.stack
	done bool
	err  error
}

// next reads the next file into c.f, and returns false after the last
// or on an error (c.err).
func (c *cursor) next() bool {
	if c.done || c.err != nil {
		return false
	}
	var ok bool
	if c.tree {
		ok, c.err = c.nextInTree()
	} else {
		ok, c.err = c.nextInList()
	}
	c.done = !ok
	return ok && c.err == nil
}

// close puts c's decoder back in the pool.
func (c *cursor) close() {
	if c.d != nil {
		c.d.release()
		c.d = nil
	}
}

// path returns the path of the file read last, as spans of c.d.data.
func (c *cursor) path() []span {
	if c.tree {
		return c.d.stack
	}
	return c.d.pvals
}

// samePath reports whether c's file read last has the path of o's.
func (c *cursor) samePath(o *cursor) bool {
	p, q := c.path(), o.path()
	if len(p) != len(q) {
		return false
	}
	for k := range p {
		if string(c.d.bytesOf(p[k])) != string(o.d.bytesOf(q[k])) {
			return false
		}
	}
	return true
}

// is reports whether the path of c's file read last is name alone.
func (c *cursor) is(name string) bool {
	p := c.path()
	return len(p) == 1 && string(c.d.bytesOf(p[0])) == name
}

// appendPath appends the elements of the path of c's file read last to
// p, all sharing one new string.
func (c *cursor) appendPath(p []string) []string {
	n := 0
	for _, sp := range c.path() {
		n += sp.n
	}
	var b strings.Builder
	b.Grow(n)
	for _, sp := range c.path() {
		b.Write(c.d.bytesOf(sp))
	}
	all := b.String()
	for _, sp := range c.path() {
		p, all = append(p, all[:sp.n]), all[sp.n:]
	}
	return p
}

// field names the file being read, for errors.
func (c *cursor) field() string {
	if c.tree {
		return c.d.treeField()
	}
	return "info.files[" + strconv.Itoa(c.i) + "]"
}

// nextInList reads the next dictionary of "files".
func (c *cursor) nextInList() (bool, error) {
	d := c.d
	tok, err := d.s.Next()
	if err != nil || tok.Kind == bencode.End {
		return false, err
	}
	if tok.Kind != bencode.DictStart {
		return false, typeError(c.field(), tok, "dictionary")
	}
	c.f = File{off: d.base + tok.Offset}
	d.pvals = d.pvals[:0]
	if err := c.fileDict(); err != nil {
		return false, err
	}
	if c.f.has&hasLength == 0 && !c.f.IsSymlink() {
		return false, &Error{c.field() + ".length", tok.Offset, "missing"}
	}
	switch {
	case c.f.has&hasPath == 0:
		return false, &Error{c.field() + ".path", tok.Offset, "missing"}
	case len(d.pvals) == 0:
		// BEP 3: a file of a list has a name; with none, it would be
		// the torrent's directory.
		return false, &Error{c.field() + ".path", tok.Offset, "empty"}
	}
	c.i++
	return true, nil
}

// nextInTree reads the file tree up to its next file: a directory entry
// whose value is {"": {...}}, the file's properties. The names leading to
// it are d.stack.
func (c *cursor) nextInTree() (bool, error) {
	d := c.d
	if c.pop {
		d.stack, c.pop = d.stack[:len(d.stack)-1], false
	}
	for {
		k, err := d.s.Next()
		if err != nil {
			return false, err
		}
		if k.Kind == bencode.End { // of a directory
			if len(d.stack) == 0 {
				return false, nil // the tree's
			}
			d.stack = d.stack[:len(d.stack)-1]
			continue
		}
		// k names an entry of the directory being read: a file, or a
		// directory, whose first entry is read the same way.
		for {
			if len(k.Value) == 0 {
				return false, &Error{d.treeField(), k.Offset, "a directory entry with an empty name"}
			}
			d.stack = append(d.stack, d.spanOf(k.Value))
			v, err := d.s.Next()
			if err != nil {
				return false, err
			}
			if v.Kind != bencode.DictStart {
				return false, typeError(d.treeField(), v, "dictionary")
			}
			if k, err = d.s.Next(); err != nil {
				return false, err
			}
			if k.Kind == bencode.End {
				return false, &Error{d.treeField(), v.Offset, "an empty directory"}
			}
			if len(k.Value) == 0 {
				return c.treeFile(v)
			}
		}
	}
}

// treeFile reads the properties of a file of the file tree, whose
// dictionary began with v and its key "".
func (c *cursor) treeFile(v bencode.Token) (bool, error) {
	d := c.d
	props, err := d.s.Next()
	if err != nil {
		return false, err
	}
	if props.Kind != bencode.DictStart {
		return false, typeError(d.treeField(), props, "dictionary")
	}
	if d.elems -= len(d.stack); d.elems < 0 {
		return false, &Error{d.treeField(), v.Offset, "the file tree's paths are too long for its size"}
	}
	c.f = File{off: d.base + props.Offset}
	if err := c.fileDict(); err != nil {
		return false, err
	}
	f := &c.f
	if f.has&hasLength == 0 && !f.IsSymlink() {
		return false, &Error{d.treeField() + ".length", props.Offset, "missing"}
	}
	if f.Length > 0 && f.PiecesRoot == nil && !f.IsSymlink() {
		return false, &Error{d.treeField() + ".pieces root", props.Offset, "missing for a file that is not empty"}
	}
	end, err := d.s.Next()
	if err != nil {
		return false, err
	}
	if end.Kind != bencode.End {
		return false, &Error{d.treeField(), end.Offset, "a file entry with other keys than \"\""}
	}
	c.pop = true
	c.i++
	return true, nil
}

// fileDict decodes the dictionary of a file of "files", or the properties
// of a file of the file tree, whose start was just read, into c.f.
func (c *cursor) fileDict() error {
	for {
		var v bencode.Token
		key, end, err := c.d.entry(&v)
		if err != nil || end {
			return err
		}
		if err := c.file(key, v); err != nil {
			return err
		}
	}
}

// file decodes one key of a file's dictionary: of "files" (v1), or of the
// properties of a file of the file tree (v2), where the path is the keys
// leading to it.
func (c *cursor) file(key []byte, v bencode.Token) (err error) {
	d, f := c.d, &c.f
	if c.tree && string(key) == "path" {
		return d.extra(&f.Extra, key, v, d.depthOf(v))
	}
	switch string(key) {
	case "length":
		f.has |= hasLength
		f.Length, err = integer(v)
		if err == nil && f.Length < 0 {
			return &Error{c.field() + ".length", v.Offset, "negative"}
		}
		return c.mustBe(err, ".length", v, "integer")
	case "path":
		f.has |= hasPath
		return c.mustBe(d.pathVals(v), ".path", v, "list of strings")
	case "attr":
		f.has |= hasAttr
		f.Attr, err = d.str(v)
		return c.mustBe(err, ".attr", v, "string")
	case "symlink path":
		f.has |= hasSymlinkPath
		f.SymlinkPath, err = d.strings(v)
		return c.mustBe(err, ".symlink path", v, "list of strings")
	case "pieces root":
		f.has |= hasPiecesRoot
		if v.Kind != bencode.String || len(v.Value) != 32 {
			return &Error{c.field() + ".pieces root", v.Offset, "want a string of 32 bytes"}
		}
		f.PiecesRoot = v.Value
		return nil
	}
	return d.extra(&f.Extra, key, v, d.depthOf(v))
}

// mustBe is mustBe for a key of the file being read.
func (c *cursor) mustBe(err error, key string, v bencode.Token, want string) error {
	if err == errMistyped {
		return typeError(c.field()+key, v, want)
	}
	return err
}

// A fileSource yields the files of Info.Files or Info.FileTree, or, when
// that is nil, of the list ParseLazy kept as bytes. It must be closed.
type fileSource struct {
	list []File
	i    int
	n    int     // the number of files
	c    *cursor // not nil for a list of bytes
}

// source returns a source of i's files: of "files", or of "file tree"
// when tree is set.
func (i *Info) source(tree bool) *fileSource {
	list, raw := i.Files, &i.files
	if tree {
		list, raw = i.FileTree, &i.tree
	}
	if list == nil && raw.data != nil {
		return &fileSource{n: raw.n, c: raw.open(tree)}
	}
	return &fileSource{list: list, n: len(list)}
}

// next returns the next file, or nil after the last. A file of a list of
// bytes is valid until the next call, and its Path is nil: see
// appendPath.
func (s *fileSource) next() *File {
	if s.c != nil {
		if s.c.next() {
			return &s.c.f
		}
		return nil
	}
	if s.i == len(s.list) {
		return nil
	}
	s.i++
	return &s.list[s.i-1]
}

// pathLen returns the number of elements of the path of the file next
// returned last.
func (s *fileSource) pathLen() int {
	if s.c != nil {
		return len(s.c.path())
	}
	return len(s.list[s.i-1].Path)
}

// appendPath appends the path of the file next returned last to p.
func (s *fileSource) appendPath(p []string) []string {
	if s.c != nil {
		return s.c.appendPath(p)
	}
	return append(p, s.list[s.i-1].Path...)
}

// is reports whether the path of the file next returned last is name
// alone.
func (s *fileSource) is(name string) bool {
	if s.c != nil {
		return s.c.is(name)
	}
	p := s.list[s.i-1].Path
	return len(p) == 1 && p[0] == name
}

func (s *fileSource) close() {
	if s.c != nil {
		s.c.close()
	}
}
