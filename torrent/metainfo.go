package torrent

import (
	"iter"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// A MetaInfo is the content of a .torrent file.
//
// Parse fills it from a file; encoding it (Marshal, or bencode.Marshal)
// gives back the same bytes: keys the package does not know are kept in
// Extra, and so are known keys whose values do not have the form their BEP
// gives them (such as an "announce-list" that is a string), which leaves
// the field zero. A field that was in the file is written even when it is
// zero; a field of a MetaInfo made in Go is written when it is not zero.
type MetaInfo struct {
	Announce     string     // "announce": the tracker (BEP 3)
	AnnounceList [][]string // "announce-list": tiers of trackers (BEP 12)
	// URLList is "url-list": web seeds (BEP 19). A file may hold a single
	// string there; it is one item here and stays a string when encoded.
	URLList      []string
	Comment      string // "comment"
	CreatedBy    string // "created by"
	CreationDate int64  // "creation date": seconds since 1970-01-01 UTC
	Encoding     string // "encoding"
	// PieceLayers is "piece layers" (BEP 52): for each file of a v2 torrent
	// larger than a piece, its pieces root (32 bytes, as a string) to the
	// SHA-256 hashes of its pieces, 32 bytes each.
	PieceLayers map[string][]byte

	Info Info // "info"
	// InfoBytes are the exact bytes of the info dictionary, which the
	// info-hashes are hashes of. Parse sets them; SetInfoBytes sets them
	// from Info after Info was changed or made in Go.
	InfoBytes bencode.RawMessage

	// Extra holds the other keys, each with its value's exact bytes.
	Extra map[string]bencode.RawMessage

	has       fieldSet // the keys of the file
	layersOff int64    // offset of "piece layers" in the input
}

// An Info is the info dictionary of a torrent.
type Info struct {
	Name        string // "name": the file's name, or the top directory's
	PieceLength int64  // "piece length", in bytes
	// Pieces is "pieces" (v1 and hybrid torrents): the SHA-1 hash of each
	// piece, 20 bytes each.
	Pieces []byte
	Length int64 // "length": the size of a single-file torrent's file
	// Files is "files": the files of a multi-file v1 torrent, padding
	// files included. ParseLazy leaves it nil, and the methods read the
	// files from the input.
	Files []File
	// Private is "private" (BEP 27): peers come from the trackers only.
	Private     bool
	MetaVersion int64 // "meta version": 2 for v2 and hybrid torrents (BEP 52)
	// FileTree is "file tree" (BEP 52), flattened: its files in the order
	// of the tree, each with its path in the tree. ParseLazy leaves it nil,
	// as Files.
	FileTree []File

	Extra map[string]bencode.RawMessage // the other keys, as they were

	has         fieldSet
	off         infoOffsets // where values were in the input, for errors
	files, tree rawList     // "files" and "file tree" as the input has them, for ParseLazy
}

// A File is one entry of "files" (v1) or of "file tree" (v2).
type File struct {
	Length int64    // "length", in bytes
	Path   []string // "path" (v1), or the keys leading to the file in the tree (v2)
	// Attr is "attr" (BEP 47): 'p' a padding file, 'x' executable,
	// 'h' hidden, 'l' a symbolic link to SymlinkPath.
	Attr        string
	SymlinkPath []string // "symlink path" (BEP 47)
	PiecesRoot  []byte   // "pieces root" (v2): the root of the file's merkle tree, 32 bytes; nil for an empty file

	Extra map[string]bencode.RawMessage // the other keys, as they were

	has fieldSet
	off int64 // offset of the file's dictionary in the input
}

// fieldSet records which known keys a dictionary had.
type fieldSet uint32

const (
	hasAnnounce fieldSet = 1 << iota
	hasAnnounceList
	hasURLList
	hasURLListString // "url-list" was a single string
	hasComment
	hasCreatedBy
	hasCreationDate
	hasEncoding
	hasPieceLayers
	hasInfo

	hasName
	hasPieceLength
	hasPieces
	hasLength
	hasFiles
	hasPrivate
	hasMetaVersion
	hasFileTree

	hasPath
	hasAttr
	hasSymlinkPath
	hasPiecesRoot
)

// infoOffsets are the input offsets of an info dictionary's values.
type infoOffsets struct {
	info, name, pieceLength, pieces, length, files, tree int64
}

// IsPad reports whether f is a padding file (BEP 47).
func (f *File) IsPad() bool { return strings.IndexByte(f.Attr, 'p') >= 0 }

// IsSymlink reports whether f is a symbolic link (BEP 47).
func (f *File) IsSymlink() bool { return strings.IndexByte(f.Attr, 'l') >= 0 }

// IsExecutable reports whether f is executable (BEP 47).
func (f *File) IsExecutable() bool { return strings.IndexByte(f.Attr, 'x') >= 0 }

// IsHidden reports whether f is hidden (BEP 47).
func (f *File) IsHidden() bool { return strings.IndexByte(f.Attr, 'h') >= 0 }

// HasV1 reports whether the torrent has v1 metadata ("pieces").
func (i *Info) HasV1() bool { return i.has&hasPieces != 0 || i.Pieces != nil }

// HasV2 reports whether the torrent has v2 metadata (BEP 52).
func (i *Info) HasV2() bool { return i.MetaVersion == 2 }

// IsHybrid reports whether the torrent has both v1 and v2 metadata.
func (i *Info) IsHybrid() bool { return i.HasV1() && i.HasV2() }

// multi reports whether the content is a directory named Name rather than
// a single file. A v2 file tree of one file at its top is a single file
// when the file is called Name, and a directory Name holding that file
// otherwise, as the v1 part of a hybrid torrent of a directory of one
// file says it is (libtorrent reads such a v2-only torrent as the file
// alone, named as in the tree).
func (i *Info) multi() bool {
	if i.HasV1() {
		return i.Files != nil || i.has&hasFiles != 0
	}
	tree := i.source(true)
	defer tree.close()
	return !(tree.n == 1 && tree.next() != nil && tree.is(i.Name))
}

// IsDir reports whether the torrent's content is a directory named Name
// holding its files, rather than a single file named Name.
func (i *Info) IsDir() bool { return i.multi() }

// NumPieces returns the number of pieces: of the v1 piece hashes when there
// are any, of v2 pieces (each file starting a new piece) otherwise.
func (i *Info) NumPieces() int64 {
	if i.HasV1() {
		return int64(len(i.Pieces) / 20)
	}
	tree := i.source(true)
	defer tree.close()
	var n int64
	for f := tree.next(); f != nil; f = tree.next() {
		n += pieceCount(f.Length, i.PieceLength)
	}
	return n
}

// pieceCount returns the number of pieces of length pl that n bytes fill.
func pieceCount(n, pl int64) int64 {
	if pl <= 0 || n <= 0 {
		return 0
	}
	return (n-1)/pl + 1
}

// TotalLength returns the size of the content, padding files excluded.
func (i *Info) TotalLength() int64 {
	var n int64
	for f := range i.Walk() {
		if !f.Pad {
			n += f.Length
		}
	}
	return n
}

// A FileEntry is one file of a torrent's content, as a client lays it out
// under the directory it downloads to.
type FileEntry struct {
	// Path is where the file is, relative to the download directory:
	// Name alone for a single-file torrent, Name and then the file's path
	// for a directory. Its elements are as the torrent has them, unchecked:
	// see SafePath.
	Path   []string
	Length int64
	// Offset is where the file starts in the torrent's v1 piece space
	// (padding files included), or, for a v2-only torrent, where it starts
	// when each file starts a new piece.
	Offset     int64
	Pad        bool   // a padding file (BEP 47): zeros, not stored
	Attr       string // "attr" (BEP 47)
	PiecesRoot []byte // v2: the root of the file's merkle tree
	Index      int    // the file's index in "files" (Files), or in the file tree (FileTree) for a v2-only torrent
}

// Walk returns the torrent's files in order: those of "files" (or the
// single file) for a v1 or hybrid torrent, those of "file tree" for a
// v2-only torrent. A hybrid torrent's entries carry the pieces roots of
// the matching v2 files.
func (i *Info) Walk() iter.Seq[FileEntry] {
	return func(yield func(FileEntry) bool) {
		v1 := i.HasV1()
		tree := i.source(true)
		defer tree.close()
		if !i.multi() {
			e := FileEntry{Path: []string{i.Name}, Length: i.Length}
			if tree.n == 1 {
				t := tree.next()
				e.PiecesRoot, e.Attr = t.PiecesRoot, t.Attr
				if !v1 {
					e.Path, e.Length = tree.appendPath(nil), t.Length
				}
			}
			yield(e)
			return
		}
		files := tree
		if v1 {
			files = i.source(false)
			defer files.close()
		}
		var off int64
		for n := 0; ; n++ {
			f := files.next()
			if f == nil {
				return
			}
			e := FileEntry{
				Path:   files.appendPath(append(make([]string, 0, 1+files.pathLen()), i.Name)),
				Length: f.Length, Offset: off, Pad: f.IsPad(), Attr: f.Attr,
				PiecesRoot: f.PiecesRoot, Index: n,
			}
			if v1 && !e.Pad {
				if t := tree.next(); t != nil {
					e.PiecesRoot = t.PiecesRoot
				}
			}
			if !yield(e) {
				return
			}
			off += f.Length
			if !v1 {
				off += padding(f.Length, i.PieceLength)
			}
		}
	}
}

// padding returns the bytes that fill the last piece of n bytes.
func padding(n, pl int64) int64 {
	if pl <= 0 || n%pl == 0 {
		return 0
	}
	return pl - n%pl
}

// SafePath returns p joined with '/' when every element is a name a file
// can have here (not empty, ".", ".." nor holding '/' or NUL, nor on
// Windows '\\'), and false otherwise: a torrent's paths must not lead out
// of the download directory.
func SafePath(p []string) (string, bool) {
	for _, e := range p {
		if e == "" || e == "." || e == ".." || strings.ContainsAny(e, unsafeInName) {
			return "", false
		}
	}
	return strings.Join(p, "/"), len(p) > 0
}

// unsafeInName are the bytes SafePath refuses in a path element: the
// separators of paths here, and NUL.
var unsafeInName = func() string {
	if runtime.GOOS == "windows" {
		return "/\\\x00"
	}
	return "/\x00"
}()

// Trackers returns the trackers by tier, as BEP 12 says a client uses
// them: the tiers of "announce-list" when it names any tracker, "announce"
// alone otherwise. URLs are trimmed of surrounding white space; empty ones
// and empty tiers are left out.
func (m *MetaInfo) Trackers() [][]string {
	var tiers [][]string
	for _, tier := range m.AnnounceList {
		var t []string
		for _, u := range tier {
			if u = strings.TrimSpace(u); u != "" {
				t = append(t, u)
			}
		}
		if t != nil {
			tiers = append(tiers, t)
		}
	}
	if tiers == nil {
		if u := strings.TrimSpace(m.Announce); u != "" {
			tiers = [][]string{{u}}
		}
	}
	return tiers
}

// WebSeeds returns the web seeds of "url-list" (BEP 19), trimmed of
// surrounding white space, empty ones left out.
func (m *MetaInfo) WebSeeds() []string {
	var seeds []string
	for _, u := range m.URLList {
		if u = strings.TrimSpace(u); u != "" {
			seeds = append(seeds, u)
		}
	}
	return seeds
}

// HTTPSeeds returns the HTTP seeds of "httpseeds" (BEP 17), kept in
// Extra: a list of URLs (items that are not strings left out) or a single
// URL, trimmed of surrounding white space, empty ones and repeats left
// out, as libtorrent reads them (it lists them among its web seeds).
func (m *MetaInfo) HTTPSeeds() []string {
	raw, ok := m.Extra["httpseeds"]
	if !ok {
		return nil
	}
	var items []bencode.RawMessage
	if bencode.Unmarshal(raw, &items) != nil {
		items = []bencode.RawMessage{raw}
	}
	var seeds []string
	for _, item := range items {
		var u string
		if bencode.Unmarshal(item, &u) != nil {
			continue
		}
		if u = strings.TrimSpace(u); u != "" && !slices.Contains(seeds, u) {
			seeds = append(seeds, u)
		}
	}
	return seeds
}

// An Error reports a torrent that breaks the rules of its BEPs: a known key
// whose value cannot be used, or values that contradict each other.
type Error struct {
	Field  string // the key path, such as "info.files[3].length"
	Offset int64  // byte offset of the value in the input
	Msg    string
}

// Error returns the field, the message and the offset.
func (e *Error) Error() string {
	return "torrent: " + e.Field + ": " + e.Msg + " at byte offset " + strconv.FormatInt(e.Offset, 10)
}

// LocalPath returns where a client stores the file, relative to the
// download directory: the elements of e.Path made safe and portable as
// Transmission 3.00 makes them (tr_metainfo_sanitize_path_component):
// each of `<>:"/\|?*` and each control character becomes '_', a reserved
// Windows device name (CON, NUL, COM1, ...) gets '_' after it, leading
// spaces and trailing spaces and dots are dropped, and elements left empty
// (such as "." and "..") are left out. It returns false when no name
// (the first element) or no file name is left.
func (e *FileEntry) LocalPath() (string, bool) {
	var b strings.Builder
	for i, elem := range e.Path {
		s, ok := sanitizeElem(elem)
		if !ok {
			if i == 0 {
				return "", false
			}
			continue
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(s)
	}
	if len(e.Path) > 1 && !strings.Contains(b.String(), "/") {
		return "", false // nothing left under the directory
	}
	return b.String(), true
}

// reservedNames are the device names Windows reserves.
var reservedNames = []string{"CON", "PRN", "AUX", "NUL",
	"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
	"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9"}

// sanitizeElem makes one path element safe, as LocalPath says; false means
// nothing is left of it.
func sanitizeElem(s string) (string, bool) {
	if s == "" || s == "." {
		return "", false
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || strings.IndexByte(`<>:"/\|?*`, c) >= 0 {
			b[i] = '_'
		}
	}
	for _, r := range reservedNames {
		if len(b) >= len(r) && strings.EqualFold(string(b[:len(r)]), r) && (len(b) == len(r) || b[len(r)] == '.') {
			b = append(b[:len(r)], append([]byte{'_'}, b[len(r):]...)...)
			break
		}
	}
	start, end := 0, len(b)
	for start < end && b[start] == ' ' {
		start++
	}
	for end > start && (b[end-1] == ' ' || b[end-1] == '.') {
		end--
	}
	if start == end {
		return "", false
	}
	return string(b[start:end]), true
}
