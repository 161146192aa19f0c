package torrent

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// A Version selects the metadata Create makes.
type Version int

// The versions of metadata.
const (
	V1     Version = 1 // BEP 3: SHA-1 pieces
	V2     Version = 2 // BEP 52: SHA-256 merkle trees, a file tree and piece layers
	Hybrid Version = 3 // both, with padding files (BEP 47) so that each file starts a piece
)

// CreateOptions adjust Create.
type CreateOptions struct {
	Version Version // V1 when zero
	// PieceLength is the piece length: a power of two of 16 KiB or more.
	// Zero chooses the one libtorrent's create_torrent chooses for the
	// total size (AutoPieceLength).
	PieceLength  int64
	Name         string     // the torrent's name; the base name of root when empty
	Trackers     [][]string // tiers of trackers: "announce" is the first, "announce-list" all when there are several
	WebSeeds     []string   // "url-list": a string when there is one, as mktorrent and libtorrent write it
	Comment      string
	CreatedBy    string
	CreationDate int64 // seconds since 1970-01-01 UTC; left out when zero
	Private      bool
	// Source is "source" in the info dictionary, which some private
	// trackers ask for (mktorrent -s): it changes the info-hashes.
	Source string
	// Threads is the number of goroutines that hash; zero means
	// runtime.NumCPU(), which is also the most: more would take memory
	// (each has 2 MiB of chunks to hash at the most) and no more CPU.
	Threads int
	// Progress, if not nil, is called from the goroutine that called
	// Create with the number of bytes read since its last call.
	Progress func(n int64)
	// Skipped, if not nil, is called with the name in fsys and the type of
	// each file left out because it is not a regular file or directory
	// (a FIFO, a socket, a device).
	Skipped func(name string, mode fs.FileMode)
}

// maxLinks bounds the symbolic links Create follows on one path, as the
// kernel does (ELOOP), for file systems whose directories cannot be told
// apart (see ErrLinkLoop).
const maxLinks = 40

// autoPieceLimits are libtorrent's (create_torrent.cpp): content of up to
// autoPieceLimits[i] bytes gets pieces of 16 KiB << i, larger content
// 16 MiB. Each limit is about 2^(28+2i)/100: some 40 KB of v1 piece hashes.
var autoPieceLimits = [...]int64{
	2684355, 10737418, 42949673, 171798692, 687194767,
	2748779069, 10995116278, 43980465111, 175921860444, 703687441777,
}

// AutoPieceLength returns the piece length that libtorrent's
// create_torrent chooses for content of total bytes (and so qBittorrent's
// "auto"): 16 KiB up to 2.56 MiB of content, twice as long for each four
// times as much, at most 16 MiB.
func AutoPieceLength(total int64) int64 {
	i := 0
	for i < len(autoPieceLimits) && autoPieceLimits[i] < total {
		i++
	}
	return minV2PieceLength << i
}

// Create makes a torrent of root, a file or a directory of fsys, as the
// tools people use make it, so that the same content with the same
// options has the same info-hashes:
//
//   - V1 as mktorrent 1.1: the regular files in the byte order of their
//     paths (so "a-b" before "a/b"), no attributes;
//   - V2 and Hybrid as libtorrent 2.0's create_torrent: the files in the
//     order of the file tree (each directory's names in byte order), "x"
//     for a file its owner may execute, and for Hybrid a padding file
//     (".pad/N") after each file that does not end a piece, the last one
//     too, unless the torrent has a single file.
//
// Symbolic links are followed (a link to a file is that file, a link to a
// directory is walked); fsys decides where they may lead (RootFS keeps
// them inside its directory), and one to a directory that holds it is
// ErrLinkLoop. Other files that are not regular files or directories are
// left out (see CreateOptions.Skipped), never opened. Content of 0 bytes
// is an error: a torrent needs a piece. A file that changes size while it
// is read is an error. InfoBytes is set.
func Create(ctx context.Context, fsys fs.FS, root string, o CreateOptions) (*MetaInfo, error) {
	if o.Version == 0 {
		o.Version = V1
	}
	if o.Version < V1 || o.Version > Hybrid {
		return nil, fmt.Errorf("torrent: unknown version %d", o.Version)
	}
	if o.Name == "" {
		if root == "." {
			return nil, errors.New("torrent: a name is needed for the root of a file system")
		}
		o.Name = path.Base(root)
	}
	files, err := listFiles(fsys, root, &o)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	if total == 0 {
		return nil, &fs.PathError{Op: "create", Path: root, Err: errors.New("no data: a torrent needs at least one byte")}
	}
	pl := o.PieceLength
	if pl == 0 {
		pl = AutoPieceLength(total)
	}
	if pl < minV2PieceLength || pl&(pl-1) != 0 {
		return nil, fmt.Errorf("torrent: piece length %d is not a power of two of 16 KiB or more", pl)
	}
	m := newMetaInfo(&o, pl)
	c := &creator{fsys: fsys, files: files, pl: pl, single: len(files) == 1 && files[0].path == nil, o: &o}
	c.layout()
	if err := c.hash(ctx); err != nil {
		return nil, err
	}
	c.fill(m)
	if err := m.SetInfoBytes(); err != nil {
		return nil, err
	}
	return m, nil
}

// newMetaInfo returns the metadata of o but for the files and hashes.
func newMetaInfo(o *CreateOptions, pl int64) *MetaInfo {
	m := &MetaInfo{Comment: o.Comment, CreatedBy: o.CreatedBy, CreationDate: o.CreationDate, URLList: o.WebSeeds}
	if len(o.WebSeeds) == 1 {
		m.has |= hasURLListString
	}
	if len(o.Trackers) > 0 && len(o.Trackers[0]) > 0 {
		m.Announce = o.Trackers[0][0]
		if len(o.Trackers) > 1 || len(o.Trackers[0]) > 1 {
			m.AnnounceList = o.Trackers
		}
	}
	in := &m.Info
	in.Name, in.PieceLength, in.Private = o.Name, pl, o.Private
	if o.Source != "" {
		in.Extra = map[string]bencode.RawMessage{"source": appendString(nil, o.Source)}
	}
	return m
}

// A fileToAdd is a regular file that Create hashes.
type fileToAdd struct {
	name string   // its name in fsys
	rel  string   // its path under root, "" when root is the file
	path []string // rel's elements, nil when root is the file
	size int64
	exec bool  // its owner may execute it
	off  int64 // where it starts in the v1 piece space
	pad  int64 // the padding after it (hybrid)
}

// A lister lists the regular files under a directory.
type lister struct {
	fsys  fs.FS
	o     *CreateOptions
	files []fileToAdd
	dirs  []fs.FileInfo // the directories being listed, outermost first
}

// listFiles returns the regular files of root in the order of o.Version.
func listFiles(fsys fs.FS, root string, o *CreateOptions) ([]fileToAdd, error) {
	fi, err := fs.Stat(fsys, root)
	if err != nil {
		return nil, err
	}
	switch {
	case fi.Mode().IsRegular():
		return []fileToAdd{{name: root, size: fi.Size(), exec: fi.Mode()&0o100 != 0}}, nil
	case !fi.IsDir():
		return nil, &fs.PathError{Op: "create", Path: root, Err: ErrNotRegular}
	}
	l := &lister{fsys: fsys, o: o}
	if err := l.dir(root, "", fi, 0); err != nil {
		return nil, err
	}
	if o.Version == V1 {
		slices.SortStableFunc(l.files, func(a, b fileToAdd) int { return strings.Compare(a.rel, b.rel) })
	}
	return l.files, nil
}

// dir lists the directory name, at rel under the root, which fi
// describes; links symbolic links were followed on the way to it.
func (l *lister) dir(name, rel string, fi fs.FileInfo, links int) error {
	for _, d := range l.dirs {
		if os.SameFile(d, fi) {
			return &fs.PathError{Op: "create", Path: name, Err: ErrLinkLoop}
		}
	}
	l.dirs = append(l.dirs, fi)
	defer func() { l.dirs = l.dirs[:len(l.dirs)-1] }()
	entries, err := fs.ReadDir(l.fsys, name)
	if err != nil {
		return err
	}
	for _, d := range entries {
		child, childRel := path.Join(name, d.Name()), d.Name()
		if rel != "" {
			childRel = rel + "/" + d.Name()
		}
		mode, n := d.Type(), links
		var info fs.FileInfo
		if mode&fs.ModeSymlink != 0 {
			if n++; n > maxLinks {
				return &fs.PathError{Op: "create", Path: child, Err: syscall.ELOOP}
			}
			if info, err = fs.Stat(l.fsys, child); err != nil {
				return err
			}
			mode = info.Mode().Type()
		}
		if !mode.IsDir() && !mode.IsRegular() {
			if l.o.Skipped != nil {
				l.o.Skipped(child, mode)
			}
			continue
		}
		if info == nil {
			if info, err = d.Info(); err != nil {
				return err
			}
		}
		if mode.IsDir() {
			if err := l.dir(child, childRel, info, n); err != nil {
				return err
			}
			continue
		}
		l.files = append(l.files, fileToAdd{name: child, rel: childRel, path: strings.Split(childRel, "/"),
			size: info.Size(), exec: info.Mode()&0o100 != 0})
	}
	return nil
}

// A creator hashes the files of a torrent.
type creator struct {
	fsys   fs.FS
	files  []fileToAdd
	pl     int64
	single bool // root is a file
	o      *CreateOptions

	pieces []byte   // v1: the piece hashes
	roots  [][]byte // v2: each file's pieces root
	layers [][]byte // v2: each file's piece layer, for files larger than a piece
}

// layout places the files in the v1 piece space, with padding for hybrid
// torrents as libtorrent pads them, and makes room for the hashes.
func (c *creator) layout() {
	var off int64
	for i := range c.files {
		f := &c.files[i]
		f.off = off
		if c.o.Version == Hybrid && len(c.files) > 1 && f.size > 0 {
			f.pad = padding(f.size, c.pl)
		}
		off += f.size + f.pad
	}
	if c.o.Version != V2 {
		c.pieces = make([]byte, 20*pieceCount(off, c.pl))
	}
	if c.o.Version != V1 {
		c.roots = make([][]byte, len(c.files))
		c.layers = make([][]byte, len(c.files))
		for i, f := range c.files {
			if f.size > c.pl {
				c.layers[i] = make([]byte, 32*pieceCount(f.size, c.pl))
			}
		}
	}
}

// A piece is a piece to hash: bytes of one file or, v1 only, of several,
// then zeros of padding.
type piece struct {
	v1    int64     // its index among the v1 pieces, or -1
	file  int       // v2: the file it is a piece of, or -1
	v2    int64     // v2: its index among the file's pieces
	segs  []segment // what to read, in order
	zeros int64     // zeros after, for the v1 hash
}

// A segment is the next n bytes of a file.
type segment struct {
	file int
	n    int64
}

// piecesToHash yields the pieces to hash, in order.
func (c *creator) piecesToHash(yield func(piece) bool) {
	if c.o.Version == V1 {
		var segs []segment
		var n, index int64
		for i, f := range c.files {
			for off := int64(0); off < f.size; {
				k := min(f.size-off, c.pl-n)
				segs = append(segs, segment{i, k})
				off, n = off+k, n+k
				if n == c.pl {
					if !yield(piece{v1: index, file: -1, segs: segs}) {
						return
					}
					segs, n, index = nil, 0, index+1
				}
			}
		}
		if n > 0 {
			yield(piece{v1: index, file: -1, segs: segs})
		}
		return
	}
	for i, f := range c.files {
		count := pieceCount(f.size, c.pl)
		for j := range count {
			p := piece{v1: -1, file: i, v2: j}
			p.segs = []segment{{i, min(c.pl, f.size-j*c.pl)}}
			if c.o.Version == Hybrid {
				p.v1 = f.off/c.pl + j
				if j == count-1 {
					p.zeros = f.pad
				}
			}
			if !yield(p) {
				return
			}
		}
	}
}

// hash reads the pieces in order, in the calling goroutine, and hashes
// them on c.o.Threads goroutines: piece i on goroutine i % Threads, which
// gets its bytes in chunks of at most 1 MiB, from a pool of 2 Threads + 1
// chunks. Reading a file from start to end, one file at a time, is what
// disks and the kernel's readahead do best, and it goes on while the
// chunks read before are hashed.
func (c *creator) hash(ctx context.Context) error {
	threads := min(c.o.Threads, runtime.NumCPU())
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	pool := make(chan []byte, 2*threads+1)
	for range cap(pool) {
		pool <- make([]byte, min(c.pl, 1<<20))
	}
	work := make([]chan chunk, threads)
	var wg sync.WaitGroup
	for i := range work {
		work[i] = make(chan chunk, cap(pool))
		h := c.newHasher()
		wg.Go(func() {
			for ch := range work[i] {
				h.add(ch)
				pool <- ch.data[:cap(ch.data)]
			}
		})
	}
	r := &reader{c: c, file: -1}
	var err error
	i := 0
	for p := range c.piecesToHash {
		if err = r.piece(ctx, &p, work[i%threads], pool); err != nil {
			break
		}
		i++
	}
	for _, w := range work {
		close(w)
	}
	wg.Wait()
	r.close()
	if err != nil {
		return err
	}
	for i, layer := range c.layers {
		if layer != nil {
			root := layerRoot(layer, c.pl)
			c.roots[i] = root[:]
		}
	}
	return nil
}

// fill sets the files and hashes of m.
func (c *creator) fill(m *MetaInfo) {
	in := &m.Info
	hybrid := c.o.Version == Hybrid
	attr := func(f *fileToAdd) string {
		if c.o.Version != V1 && f.exec {
			return "x"
		}
		return ""
	}
	if c.o.Version != V2 {
		in.Pieces = c.pieces
		switch {
		case c.single:
			in.Length = c.files[0].size
			if a := attr(&c.files[0]); a != "" {
				in.Extra = extraWith(in.Extra, "attr", appendString(nil, a))
			}
		default:
			in.Files = make([]File, 0, len(c.files))
			for i := range c.files {
				f := &c.files[i]
				in.Files = append(in.Files, File{Path: f.path, Length: f.size, Attr: attr(f)})
				if hybrid && f.pad > 0 {
					in.Files = append(in.Files, File{Path: []string{".pad", strconv.FormatInt(f.pad, 10)}, Length: f.pad, Attr: "p"})
				}
			}
		}
	}
	if c.o.Version == V1 {
		return
	}
	in.MetaVersion = 2
	in.FileTree = make([]File, 0, len(c.files))
	m.PieceLayers = map[string][]byte{} // written even when empty, as libtorrent writes it
	for i := range c.files {
		f := &c.files[i]
		tf := File{Path: f.path, Length: f.size, Attr: attr(f), PiecesRoot: c.roots[i]}
		if c.single {
			tf.Path = []string{in.Name}
		}
		if c.layers[i] != nil {
			m.PieceLayers[string(tf.PiecesRoot)] = c.layers[i]
		}
		in.FileTree = append(in.FileTree, tf)
	}
}

// extraWith returns x with key set to raw.
func extraWith(x map[string]bencode.RawMessage, key string, raw []byte) map[string]bencode.RawMessage {
	if x == nil {
		x = map[string]bencode.RawMessage{}
	}
	x[key] = raw
	return x
}

// A chunk is bytes of a piece, which a hasher gets in order.
type chunk struct {
	p    *piece
	data []byte
	end  bool // the last bytes of the piece
}

// A hasher hashes the pieces whose chunks it gets, one after the other.
type hasher struct {
	c   *creator
	v1  hash.Hash
	sum [sha1.Size]byte
	v2  *fileHasher
	cur *piece // the piece being hashed
}

func (c *creator) newHasher() *hasher {
	h := &hasher{c: c}
	if c.o.Version != V2 {
		h.v1 = sha1.New()
	}
	if c.o.Version != V1 {
		h.v2 = newFileHasher(c.pl, nil)
	}
	return h
}

// add hashes ch, and stores the hashes of its piece after its last chunk.
func (h *hasher) add(ch chunk) {
	p := ch.p
	if h.cur == nil { // its first chunk
		h.cur = p
		if h.v1 != nil {
			h.v1.Reset()
		}
		if h.v2 != nil {
			h.v2.reset()
		}
	}
	if p.v1 >= 0 {
		h.v1.Write(ch.data)
	}
	if p.file >= 0 {
		h.v2.Write(ch.data)
	}
	if !ch.end {
		return
	}
	c := h.c
	if p.v1 >= 0 {
		for n := p.zeros; n > 0; {
			k := min(n, int64(len(zeroBlock)))
			h.v1.Write(zeroBlock[:k])
			n -= k
		}
		copy(c.pieces[20*p.v1:], h.v1.Sum(h.sum[:0]))
	}
	if p.file >= 0 {
		if layer := c.layers[p.file]; layer != nil {
			sum := h.v2.pieceHash()
			copy(layer[32*p.v2:], sum[:])
		} else {
			root, _ := h.v2.root()
			c.roots[p.file] = root[:]
		}
	}
	h.cur = nil
}

// zeroBlock is zeros for padding.
var zeroBlock [16 << 10]byte

// A reader reads the files of a creator in order, one open at a time.
type reader struct {
	c    *creator
	file int     // the open file's index, or -1
	f    fs.File // the open file
	pos  int64   // the bytes of it read
}

func (r *reader) close() {
	if r.f != nil {
		r.f.Close()
		r.f, r.file = nil, -1
	}
}

// piece reads piece p into chunks from pool and sends them to w.
func (r *reader) piece(ctx context.Context, p *piece, w chan<- chunk, pool chan []byte) error {
	buf := (<-pool)[:0]
	for _, s := range p.segs {
		for n := s.n; n > 0; {
			if err := ctx.Err(); err != nil {
				pool <- buf
				return err
			}
			if len(buf) == cap(buf) {
				w <- chunk{p, buf, false}
				buf = (<-pool)[:0]
			}
			k := int(min(n, int64(cap(buf)-len(buf))))
			if err := r.read(s.file, buf[len(buf):len(buf)+k]); err != nil {
				pool <- buf
				return err
			}
			buf, n = buf[:len(buf)+k], n-int64(k)
			if r.c.o.Progress != nil {
				r.c.o.Progress(int64(k))
			}
		}
	}
	w <- chunk{p, buf, true}
	return nil
}

// read reads the next len(b) bytes of file i, which the files before it
// were read to their ends before.
func (r *reader) read(i int, b []byte) error {
	f := &r.c.files[i]
	if r.file != i {
		r.close()
		file, fi, err := openRegular(r.c.fsys, f.name)
		if err != nil {
			return err
		}
		r.f, r.file, r.pos = file, i, 0
		if fi.Size() != f.size {
			return changed(f.name, f.size, fi.Size())
		}
	}
	k, err := io.ReadFull(r.f, b)
	r.pos += int64(k)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return changed(f.name, f.size, r.pos)
	}
	if err != nil {
		return err
	}
	if r.pos == f.size { // and no more
		if k, _ := r.f.Read(make([]byte, 1)); k > 0 {
			return changed(f.name, f.size, f.size+1)
		}
	}
	return nil
}

// changed is the error of a file of size bytes that had n bytes when it
// was read.
func changed(name string, size, n int64) error {
	more := "fewer"
	if n > size {
		more = "more"
	}
	return fmt.Errorf("torrent: %s: it changed while it was read: %d bytes, then %s", name, size, more)
}

// openRegular opens the regular file name of fsys and returns what its
// Stat says of it. It looks at the type first, so that a FIFO or a device
// is never opened (opening a FIFO waits for a writer), and again once
// the file is open, in case the name changed hands in between.
func openRegular(fsys fs.FS, name string) (fs.File, fs.FileInfo, error) {
	fi, err := fs.Stat(fsys, name)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: pe.Err}
	}
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
