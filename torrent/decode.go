package torrent

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// Parse decodes a .torrent file, strictly (see bencode.DecodeOptions), and
// checks it against the rules of its BEPs. See ParseWith.
func Parse(data []byte) (*MetaInfo, error) {
	return ParseWith(data, bencode.DecodeOptions{})
}

// ParseWith decodes a .torrent file with the bencode options o (Lenient
// accepts unsorted and repeated keys and ignores data after the value,
// reporting that and whitespace after it to Warn; MaxDepth limits nesting;
// Copy, below) and checks it:
//
//   - the top level and "info" are dictionaries, and "info" has a name and
//     a positive piece length (for v2, a power of two of 16 KiB or more);
//   - v1: "pieces" holds 20 bytes for every piece of the content, which is
//     either one file ("length") or a list of files ("files");
//   - v2: the file tree's files have a length and, unless empty, a pieces
//     root; each piece layer belongs to a file and has its size;
//   - hybrid: the v1 files, padding files left out, are the v2 files in the
//     same order, and each starts a piece.
//
// Errors about the bencoding are *bencode.SyntaxError values, errors about
// the torrent *Error values; both name the byte offset.
//
// The []byte values of the MetaInfo (InfoBytes, Pieces, pieces roots, piece
// layers, Extra values) point into data unless o.Copy is set: data must not
// be modified while they are in use. Strings are always copied.
func ParseWith(data []byte, o bencode.DecodeOptions) (*MetaInfo, error) {
	m, err := ParseLazy(data, o)
	if err != nil {
		return nil, err
	}
	m.Info.decodeFiles()
	return m, nil
}

// ParseLazy decodes and checks a .torrent file as ParseWith does, but
// keeps its lists of files ("files" and "file tree") as the bytes of data
// rather than decoding them: Info.Files and Info.FileTree are nil, and
// Info's methods (Walk, TotalLength, NumPieces, IsDir, Marshal) and Verify
// read the files from data each time they need them. Beside data, such a
// MetaInfo takes memory for its other values, not for its files (Parse
// takes some 200 bytes a file): use it to read a torrent of many files.
// data must not be modified while the MetaInfo is in use, unless o.Copy
// is set.
func ParseLazy(data []byte, o bencode.DecodeOptions) (*MetaInfo, error) {
	if o.Copy {
		data = append([]byte(nil), data...)
	}
	m := new(MetaInfo)
	if err := m.decode(data, o); err != nil {
		return nil, err
	}
	return m, nil
}

// UnmarshalBencode decodes a MetaInfo from a copy of data, so that
// bencode.Unmarshal(data, &m) works as Parse does, with the options of the
// caller's Unmarshal for the bencoding.
func (m *MetaInfo) UnmarshalBencode(data []byte) error {
	*m = MetaInfo{}
	if err := m.decode(append([]byte(nil), data...), bencode.DecodeOptions{Lenient: true}); err != nil {
		return err
	}
	m.Info.decodeFiles()
	return nil
}

// errMistyped reports a value that does not have the form its key needs.
var errMistyped = errors.New("mistyped")

// maxElemsPerByte bounds the path elements a file tree may make per byte
// of input: a deep directory's path is copied for each file in it.
const maxElemsPerByte = 2

// decoder holds the state of one Parse, or of one cursor over a file
// list.
type decoder struct {
	s     *bencode.Scanner
	scan  bencode.Scanner // what s points to, kept with its stack in the pool
	data  []byte
	base  int64  // the input offset of data[0]
	depth int    // the nesting limit of the input
	vals  []span // for strings
	pvals []span // the path of the "files" entry being read
	stack []span // the path of the file tree directory being read
	elems int    // path elements the file tree may still make
}

// A span is where a string's bytes are in the input. The decoder's buffers
// hold spans rather than slices, so that they hold no pointers: filling them
// costs no write barriers, and the pool keeps nothing of the input.
type span struct{ off, n int }

// spanOf returns the place of b, a slice of d.data, in d.data.
func (d *decoder) spanOf(b []byte) span { return span{cap(d.data) - cap(b), len(b)} }

// bytesOf returns the bytes at sp.
func (d *decoder) bytesOf(sp span) []byte { return d.data[sp.off : sp.off+sp.n] }

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// newDecoder returns a decoder of the pool reading data, whose first byte
// is at input offset base, with the options o.
func newDecoder(o bencode.DecodeOptions, data []byte, base int64) *decoder {
	d := decoders.Get().(*decoder)
	d.scan.Reset(o, data)
	d.s, d.data, d.base, d.depth = &d.scan, data, base, o.MaxDepth
	return d
}

// release puts d back in the pool, keeping nothing of its input.
func (d *decoder) release() {
	d.scan.Reset(bencode.DecodeOptions{}, nil)
	*d = decoder{scan: d.scan, vals: d.vals[:0], pvals: d.pvals[:0], stack: d.stack[:0]}
	decoders.Put(d)
}

func (m *MetaInfo) decode(data []byte, o bencode.DecodeOptions) error {
	d := newDecoder(o, data, 0)
	defer d.release()
	d.elems = maxElemsPerByte*len(data) + 1024
	tok, err := d.s.Next()
	if err == io.EOF {
		// No value at all, which a lenient scanner takes for the end of
		// its values: the strict one tells where the torrent is missing.
		var s bencode.Scanner
		o.Lenient = false
		s.Reset(o, data)
		_, err = s.Next()
	}
	if err != nil {
		return err
	}
	if tok.Kind != bencode.DictStart {
		return typeError("metainfo", tok, "dictionary")
	}
	for {
		var v bencode.Token
		key, end, err := d.entry(&v)
		if err != nil {
			return err
		}
		if end {
			break
		}
		if err := d.top(m, key, v); err != nil {
			return err
		}
	}
	if err := d.s.Finish(); err != nil {
		return err
	}
	if m.has&hasInfo == 0 {
		return &Error{"info", tok.Offset, "missing"}
	}
	return m.check()
}

// entry reads the next key of a dictionary and the first token of its
// value, into *v; the caller reads the rest of the value. end is true at
// the end of the dictionary.
func (d *decoder) entry(v *bencode.Token) (key []byte, end bool, err error) {
	if err := d.s.Scan(v); err != nil || v.Kind == bencode.End {
		return nil, err == nil, err
	}
	key = v.Value
	return key, false, d.s.Scan(v)
}

// finish reads the rest of a value that began with tok in a container at
// depth, and returns its exact bytes.
func (d *decoder) finish(tok bencode.Token, depth int) ([]byte, error) {
	for d.s.Depth() > depth {
		if _, err := d.s.Next(); err != nil {
			return nil, err
		}
	}
	return d.data[tok.Offset:d.s.Offset():d.s.Offset()], nil
}

// extra stores the value that began with tok, in a dictionary at depth,
// in *x under key.
func (d *decoder) extra(x *map[string]bencode.RawMessage, key []byte, tok bencode.Token, depth int) error {
	raw, err := d.finish(tok, depth)
	if err != nil {
		return err
	}
	if *x == nil {
		*x = make(map[string]bencode.RawMessage)
	}
	(*x)[string(key)] = raw
	return nil
}

// optional decodes an optional top-level value with dec; a value of another
// form goes to Extra.
func (d *decoder) optional(m *MetaInfo, key []byte, v bencode.Token, bit fieldSet, dec func() error) error {
	depth := d.s.Depth()
	if v.Kind == bencode.ListStart || v.Kind == bencode.DictStart {
		depth--
	}
	err := dec()
	if err == errMistyped {
		return d.extra(&m.Extra, key, v, depth)
	}
	if err == nil {
		m.has |= bit
	}
	return err
}

func (d *decoder) top(m *MetaInfo, key []byte, v bencode.Token) error {
	switch string(key) {
	case "announce":
		return d.optional(m, key, v, hasAnnounce, func() (err error) { m.Announce, err = d.str(v); return })
	case "announce-list":
		return d.optional(m, key, v, hasAnnounceList, func() (err error) { m.AnnounceList, err = d.tiers(v); return })
	case "url-list":
		if v.Kind == bencode.String {
			m.URLList = []string{d.text(v)}
			m.has |= hasURLList | hasURLListString
			return nil
		}
		return d.optional(m, key, v, hasURLList, func() (err error) { m.URLList, err = d.strings(v); return })
	case "comment":
		return d.optional(m, key, v, hasComment, func() (err error) { m.Comment, err = d.str(v); return })
	case "created by":
		return d.optional(m, key, v, hasCreatedBy, func() (err error) { m.CreatedBy, err = d.str(v); return })
	case "creation date":
		return d.optional(m, key, v, hasCreationDate, func() (err error) { m.CreationDate, err = integer(v); return })
	case "encoding":
		return d.optional(m, key, v, hasEncoding, func() (err error) { m.Encoding, err = d.str(v); return })
	case "piece layers":
		m.has |= hasPieceLayers
		m.layersOff = v.Offset
		return d.pieceLayers(m, v)
	case "info":
		if v.Kind != bencode.DictStart {
			return typeError("info", v, "dictionary")
		}
		m.Info = Info{}
		m.Info.off.info = v.Offset
		for {
			var tok bencode.Token
			key, end, err := d.entry(&tok)
			if err != nil {
				return err
			}
			if end {
				break
			}
			if err := d.info(&m.Info, key, tok); err != nil {
				return err
			}
		}
		m.InfoBytes = d.data[v.Offset:d.s.Offset():d.s.Offset()]
		m.has |= hasInfo
		return nil
	}
	return d.extra(&m.Extra, key, v, d.depthOf(v))
}

// depthOf returns the depth of the container holding the value that just
// began with v.
func (d *decoder) depthOf(v bencode.Token) int {
	if v.Kind == bencode.ListStart || v.Kind == bencode.DictStart {
		return d.s.Depth() - 1
	}
	return d.s.Depth()
}

func (d *decoder) info(in *Info, key []byte, v bencode.Token) (err error) {
	switch string(key) {
	case "name":
		in.has |= hasName
		in.off.name = v.Offset
		in.Name, err = d.str(v)
		return mustBe(err, "info.name", v, "string")
	case "piece length":
		in.has |= hasPieceLength
		in.off.pieceLength = v.Offset
		in.PieceLength, err = integer(v)
		return mustBe(err, "info.piece length", v, "integer")
	case "pieces":
		in.has |= hasPieces
		in.off.pieces = v.Offset
		if v.Kind != bencode.String {
			return typeError("info.pieces", v, "string")
		}
		in.Pieces = v.Value
		return nil
	case "length":
		in.has |= hasLength
		in.off.length = v.Offset
		in.Length, err = integer(v)
		return mustBe(err, "info.length", v, "integer")
	case "files":
		in.has |= hasFiles
		in.off.files = v.Offset
		return d.files(in, v)
	case "private":
		if n, err := integer(v); err == nil && (n == 0 || n == 1) {
			in.Private = n == 1
			in.has |= hasPrivate
			return nil
		}
	case "meta version":
		in.has |= hasMetaVersion
		in.MetaVersion, err = integer(v)
		return mustBe(err, "info.meta version", v, "integer")
	case "file tree":
		in.has |= hasFileTree
		in.off.tree = v.Offset
		return d.tree(in, v)
	}
	return d.extra(&in.Extra, key, v, d.depthOf(v))
}

func (d *decoder) files(in *Info, v bencode.Token) (err error) {
	if v.Kind != bencode.ListStart {
		return typeError("info.files", v, "list")
	}
	in.files, err = d.list(v, false)
	return err
}

func (d *decoder) tree(in *Info, v bencode.Token) (err error) {
	if v.Kind != bencode.DictStart {
		return typeError("info.file tree", v, "dictionary")
	}
	d.stack = d.stack[:0]
	in.tree, err = d.list(v, true)
	return err
}

// list checks the files of "files" (or of "file tree", when tree is
// set), whose first token v was just read, and returns the list as its
// bytes.
func (d *decoder) list(v bencode.Token, tree bool) (rawList, error) {
	c := cursor{d: d, tree: tree}
	l := rawList{off: v.Offset, depth: d.depth}
	for c.next() {
		path := c.path()
		l.n++
		l.elems += len(path)
		for _, sp := range path {
			l.size += sp.n
		}
	}
	if c.err != nil {
		return rawList{}, c.err
	}
	l.data = d.data[v.Offset:d.s.Offset():d.s.Offset()]
	return l, nil
}

// treeField names the file tree entry being read.
func (d *decoder) treeField() string {
	p := make([]string, len(d.stack))
	for i, e := range d.stack {
		p[i] = string(d.bytesOf(e))
	}
	return treeField(p)
}

// strs returns the strings at spans, all of whose bytes share one
// allocation.
func (d *decoder) strs(spans []span) []string {
	n := 0
	for _, sp := range spans {
		n += sp.n
	}
	var b strings.Builder
	b.Grow(n)
	for _, sp := range spans {
		b.Write(d.bytesOf(sp))
	}
	all, list := b.String(), make([]string, len(spans))
	for i, sp := range spans {
		list[i], all = all[:sp.n], all[sp.n:]
	}
	return list
}

// pathVals sets pvals to the elements of a list of strings.
func (d *decoder) pathVals(v bencode.Token) error {
	if v.Kind != bencode.ListStart {
		return errMistyped
	}
	d.pvals = d.pvals[:0]
	for {
		tok, err := d.s.Next()
		if err != nil {
			return err
		}
		switch tok.Kind {
		case bencode.End:
			return nil
		case bencode.String:
			d.pvals = append(d.pvals, d.spanOf(tok.Value))
		default:
			return errMistyped
		}
	}
}

// treeField names the file tree entry at path p.
func treeField(p []string) string {
	return "info.file tree[" + strconv.Quote(joinPath(p)) + "]"
}

func joinPath(p []string) string {
	n := 0
	for _, e := range p {
		n += len(e) + 1
	}
	b := make([]byte, 0, n)
	for i, e := range p {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, e...)
	}
	return string(b)
}

func (d *decoder) pieceLayers(m *MetaInfo, v bencode.Token) error {
	if v.Kind != bencode.DictStart {
		return typeError("piece layers", v, "dictionary")
	}
	m.PieceLayers = map[string][]byte{}
	for {
		var tok bencode.Token
		key, end, err := d.entry(&tok)
		if err != nil || end {
			return err
		}
		if len(key) != 32 {
			return &Error{"piece layers", tok.Offset, "a key that is not 32 bytes long"}
		}
		if tok.Kind != bencode.String || len(tok.Value)%32 != 0 || len(tok.Value) == 0 {
			return &Error{"piece layers", tok.Offset, "want a string of 32-byte hashes"}
		}
		m.PieceLayers[string(key)] = tok.Value
	}
}

// tiers decodes an announce list.
func (d *decoder) tiers(v bencode.Token) ([][]string, error) {
	if v.Kind != bencode.ListStart {
		return nil, errMistyped
	}
	tiers := [][]string{}
	for {
		tok, err := d.s.Next()
		if err != nil {
			return nil, err
		}
		if tok.Kind == bencode.End {
			return tiers, nil
		}
		tier, err := d.strings(tok)
		if err != nil {
			return nil, err
		}
		tiers = append(tiers, tier)
	}
}

// strings decodes a list of strings, all of whose bytes share one
// allocation.
func (d *decoder) strings(v bencode.Token) ([]string, error) {
	if v.Kind != bencode.ListStart {
		return nil, errMistyped
	}
	vals := d.vals[:0]
	defer func() { d.vals = vals[:0] }()
	for {
		tok, err := d.s.Next()
		if err != nil {
			return nil, err
		}
		switch tok.Kind {
		case bencode.End:
			return d.strs(vals), nil
		case bencode.String:
			vals = append(vals, d.spanOf(tok.Value))
		default:
			return nil, errMistyped
		}
	}
}

// str decodes a string.
func (d *decoder) str(v bencode.Token) (string, error) {
	if v.Kind != bencode.String {
		return "", errMistyped
	}
	return d.text(v), nil
}

// text returns the bytes of a String or Key token as a string.
func (d *decoder) text(v bencode.Token) string { return string(v.Value) }

// integer decodes an integer that fits an int64.
func integer(v bencode.Token) (int64, error) {
	if v.Kind != bencode.Integer || len(v.Value) == 0 {
		return 0, errMistyped
	}
	digits, neg := v.Value, v.Value[0] == '-'
	if neg {
		digits = digits[1:]
	}
	if len(digits) > 19 {
		return 0, errMistyped
	}
	var n uint64
	for _, c := range digits { // the scanner checked that these are digits
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return -int64(n), nil
	case !neg && n < 1<<63:
		return int64(n), nil
	}
	return 0, errMistyped
}

// mustBe turns errMistyped for a required form into an *Error.
func mustBe(err error, field string, v bencode.Token, want string) error {
	if err == errMistyped {
		return typeError(field, v, want)
	}
	return err
}

func typeError(field string, v bencode.Token, want string) error {
	got := v.Kind.String()
	switch v.Kind {
	case bencode.ListStart, bencode.DictStart, bencode.String:
	case bencode.Integer:
		if len(v.Value) > 30 {
			got = "integer of " + strconv.Itoa(len(v.Value)) + " digits"
		} else {
			got = "integer " + string(v.Value)
		}
		if strings.HasSuffix(want, "integer") {
			// The form is right, the value too large for 64 bits.
			return &Error{field, v.Offset, got + " is out of range (a 64-bit integer)"}
		}
	}
	return &Error{field, v.Offset, "want " + article(want) + ", not " + article(got)}
}

// article puts "a" or "an" before a noun.
func article(noun string) string {
	if noun != "" && strings.IndexByte("aeiou", noun[0]) >= 0 {
		return "an " + noun
	}
	return "a " + noun
}
