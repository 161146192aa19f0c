package torrent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
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
	// Zero chooses one from the total size, for about 1,000 to 2,000
	// pieces, from 16 KiB to 16 MiB.
	PieceLength  int64
	Name         string     // the torrent's name; the base name of root when empty
	Trackers     [][]string // tiers of trackers: "announce" is the first, "announce-list" all when there are several
	WebSeeds     []string   // "url-list"
	Comment      string
	CreatedBy    string
	CreationDate int64 // seconds since 1970-01-01 UTC; left out when zero
	Private      bool
	// Progress, if not nil, is called with the number of bytes hashed
	// since its last call.
	Progress func(n int64)
}

// Create makes a torrent of root, a file or a directory of fsys, whose
// regular files it reads in the order of fs.WalkDir (which is the order of
// a v2 file tree). Other files (links, devices) are left out. InfoBytes is
// set.
func Create(ctx context.Context, fsys fs.FS, root string, o CreateOptions) (*MetaInfo, error) {
	if o.Version == 0 {
		o.Version = V1
	}
	if o.Version < V1 || o.Version > Hybrid {
		return nil, fmt.Errorf("torrent: unknown version %d", o.Version)
	}
	files, err := listFiles(fsys, root)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	pl := o.PieceLength
	if pl == 0 {
		pl = minV2PieceLength
		for pl < 16<<20 && total/pl > 2000 {
			pl *= 2
		}
	}
	if pl < minV2PieceLength || pl&(pl-1) != 0 {
		return nil, fmt.Errorf("torrent: piece length %d is not a power of two of 16 KiB or more", pl)
	}
	m := &MetaInfo{Comment: o.Comment, CreatedBy: o.CreatedBy, CreationDate: o.CreationDate, URLList: o.WebSeeds}
	if len(o.Trackers) > 0 && len(o.Trackers[0]) > 0 {
		m.Announce = o.Trackers[0][0]
		if len(o.Trackers) > 1 || len(o.Trackers[0]) > 1 {
			m.AnnounceList = o.Trackers
		}
	}
	in := &m.Info
	in.Name, in.PieceLength, in.Private = o.Name, pl, o.Private
	if in.Name == "" {
		in.Name = path.Base(root)
		if root == "." {
			return nil, errors.New("torrent: a name is needed for the root of a file system")
		}
	}
	c := creator{ctx: ctx, fsys: fsys, o: &o, m: m, pl: pl, buf: make([]byte, 1<<20)}
	if o.Version != V2 {
		c.v1 = newPieceHasher(pl, func(_ int64, h [20]byte, _ bool) { in.Pieces = append(in.Pieces, h[:]...) }, nil)
		in.Pieces = []byte{}
	}
	if o.Version != V1 {
		c.v2 = newFileHasher(pl, nil)
		in.MetaVersion = 2
		in.FileTree = []File{}
	}
	single := len(files) == 1 && files[0].rel == ""
	if !single && o.Version != V2 {
		in.Files = []File{}
	}
	for i, f := range files {
		if err := c.add(f, single, i == len(files)-1); err != nil {
			return nil, err
		}
	}
	if c.v1 != nil {
		c.v1.close()
		if single {
			in.Length = files[0].size
		}
	}
	if err := m.SetInfoBytes(); err != nil {
		return nil, err
	}
	return m, nil
}

// A fileToAdd is a regular file that Create hashes.
type fileToAdd struct {
	name string // its name in fsys
	rel  string // its path under root, "" when root is the file
	size int64
}

func listFiles(fsys fs.FS, root string) ([]fileToAdd, error) {
	fi, err := fs.Stat(fsys, root)
	if err != nil {
		return nil, err
	}
	if fi.Mode().IsRegular() {
		return []fileToAdd{{name: root, size: fi.Size()}}, nil
	}
	var files []fileToAdd
	err = fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(name, root+"/")
		if root == "." {
			rel = name
		}
		files = append(files, fileToAdd{name: name, rel: rel, size: fi.Size()})
		return nil
	})
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("torrent: no files in %s", root)
	}
	return files, err
}

type creator struct {
	ctx  context.Context
	fsys fs.FS
	o    *CreateOptions
	m    *MetaInfo
	pl   int64
	buf  []byte
	v1   *pieceHasher
	v2   *fileHasher
}

// add hashes a file and adds it to the metadata.
func (c *creator) add(f fileToAdd, single, last bool) error {
	in := &c.m.Info
	var p []string
	if !single {
		p = strings.Split(f.rel, "/")
	}
	if c.v2 != nil {
		c.v2.reset()
	}
	n, err := c.hash(f)
	if err != nil {
		return err
	}
	if n != f.size {
		return fmt.Errorf("torrent: %s: %d bytes, then %d", f.name, f.size, n)
	}
	if c.v2 != nil {
		tf := File{Path: p, Length: n}
		if single {
			tf.Path = []string{in.Name}
		}
		if n > 0 {
			root, layer := c.v2.root()
			tf.PiecesRoot = root[:]
			if layer != nil {
				if c.m.PieceLayers == nil {
					c.m.PieceLayers = map[string][]byte{}
				}
				c.m.PieceLayers[string(tf.PiecesRoot)] = append([]byte(nil), layer...)
			}
		}
		in.FileTree = append(in.FileTree, tf)
	}
	if c.v1 != nil && !single {
		in.Files = append(in.Files, File{Path: p, Length: n})
		if pad := padding(n, c.pl); c.v2 != nil && pad > 0 && !last {
			in.Files = append(in.Files, File{Path: []string{".pad", strconv.FormatInt(pad, 10)}, Length: pad, Attr: "p"})
			c.v1.zeros(pad)
		}
	}
	return nil
}

// hash reads a file into the hashers and returns its size.
func (c *creator) hash(f fileToAdd) (int64, error) {
	r, err := c.fsys.Open(f.name)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	for {
		if err := c.ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(c.buf)
		if k > 0 {
			if c.v1 != nil {
				c.v1.Write(c.buf[:k])
			}
			if c.v2 != nil {
				c.v2.Write(c.buf[:k])
			}
			n += int64(k)
			if c.o.Progress != nil {
				c.o.Progress(int64(k))
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
