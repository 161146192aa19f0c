package torrent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// A treeFile is a file of a tree that the interoperability tests make.
type treeFile struct {
	path string // slash-separated, under the tree's root
	size int
	exec bool
}

// pl32 is the piece length of the comparisons with mktorrent, whose
// smallest is 2^15.
const pl32 = 32 << 10

// interopTrees are the trees made torrents of by b14fs, mktorrent and
// libtorrent: empty files, nested directories, names that sort
// differently by path and by directory ("sub-b", "sub.c", "sub/"), names
// that need escaping, sizes around piece boundaries, a directory of one
// file, a single file. file says the tree is a single file.
var interopTrees = []struct {
	name  string
	file  bool
	files []treeFile
}{
	{"nested", false, []treeFile{
		{"A", 13, false},
		{"dir-a/z", 100, false},
		{"e", 0, false},
		{"sub/deep/q", pl32 - 1, false},
		{"sub/y", pl32, false},
		{"sub/zz", pl32 + 1, true},
		{"sub-b", 2 * pl32, false},
		{"sub.c", 11, false},
		{"with space/é ü 日本.txt", 5000, false},
		{"x%20#?.bin", 40000, false},
		{"zlast", 0, false},
	}},
	{"one-file dir", false, []treeFile{{"a", 5000, false}}},
	{"aligned", false, []treeFile{{"a", pl32, false}, {"b", 2 * pl32, false}, {"c", 0, false}}},
	{"last file long", false, []treeFile{{"a", 1, false}, {"b", 3*pl32 + 7, true}}},
	{"single.bin", true, []treeFile{{"", 3*pl32 + 1, true}}},
}

// makeTree writes a tree of interopTrees under dir and returns its root.
func makeTree(t *testing.T, dir, name string, file bool, files []treeFile) string {
	t.Helper()
	root := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
	for i, f := range files {
		data := make([]byte, f.size)
		r := rand.New(rand.NewPCG(uint64(i), 23))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		name := filepath.Join(root, filepath.FromSlash(f.path))
		if file {
			name = root
		}
		mode := os.FileMode(0o644)
		if f.exec {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(name, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	return root
}

// createAt makes a torrent of root (a file or directory) as the command
// does: through RootFS, confined to the directory.
func createAt(t *testing.T, root string, o CreateOptions) *MetaInfo {
	t.Helper()
	dir, name := root, "."
	if fi, err := os.Stat(root); err != nil {
		t.Fatal(err)
	} else if !fi.IsDir() {
		dir, name = filepath.Dir(root), filepath.Base(root)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if o.Name == "" {
		o.Name = filepath.Base(root)
	}
	m, err := Create(context.Background(), RootFS(r), name, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCreateMatchesMktorrent: v1 torrents of the same trees with the same
// options have mktorrent 1.1's info-hash (Debian mktorrent).
func TestCreateMatchesMktorrent(t *testing.T) {
	mk, err := exec.LookPath("mktorrent")
	if err != nil {
		t.Skip("mktorrent not installed (Debian: apt-get install mktorrent): not comparing with it")
	}
	dir := t.TempDir()
	opts := []struct {
		args []string
		o    CreateOptions
	}{
		{nil, CreateOptions{}},
		{[]string{"-p", "-s", "b14fs test", "-n", "another name"}, CreateOptions{Private: true, Source: "b14fs test", Name: "another name"}},
		{[]string{"-l", "16"}, CreateOptions{PieceLength: 64 << 10}},
	}
	for _, tree := range interopTrees {
		root := makeTree(t, dir, tree.name, tree.file, tree.files)
		for i, opt := range opts {
			out := filepath.Join(dir, fmt.Sprintf("%s-%d.torrent", filepath.Base(root), i))
			args := append([]string{"-d", "-l", "15", "-o", out}, opt.args...)
			if b, err := exec.Command(mk, append(args, root)...).CombinedOutput(); err != nil {
				t.Fatalf("mktorrent %v: %v\n%s", args, err, b)
			}
			theirs := mustParse(t, readFile(t, out))
			o := opt.o
			if o.PieceLength == 0 {
				o.PieceLength = pl32
			}
			ours := createAt(t, root, o)
			if ours.InfoHashV1() != theirs.InfoHashV1() {
				t.Errorf("%s, %v: info-hash %x, mktorrent's %x\n ours:   %s\n theirs: %s", tree.name, opt.args,
					ours.InfoHashV1(), theirs.InfoHashV1(), fileList(ours), fileList(theirs))
			}
		}
	}
}

// fileList lists m's files for a message.
func fileList(m *MetaInfo) string {
	var b strings.Builder
	for f := range m.Info.Walk() {
		fmt.Fprintf(&b, "%s(%d%s) ", strings.Join(f.Path, "/"), f.Length, f.Attr)
	}
	return b.String()
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ltHashes is a python3-libtorrent script: for each spec of its JSON
// argument it makes a torrent with create_torrent and prints the v1 and v2
// info-hashes (v1 empty for v2-only) and each piece layer's root and
// SHA-256, on one line.
const ltHashes = `
import hashlib, json, os, sys, libtorrent as lt
for spec in json.loads(sys.argv[1]):
    fs = lt.file_storage()
    lt.add_files(fs, spec["root"])
    ct = lt.create_torrent(fs, spec["pl"], flags=spec["flags"])
    ct.set_priv(spec["private"])
    lt.set_piece_hashes(ct, os.path.dirname(spec["root"]))
    e = ct.generate()
    info = lt.bencode(e[b"info"])
    v1 = hashlib.sha1(info).hexdigest() if b"pieces" in e[b"info"] else ""
    layers = sorted(k.hex() + ":" + hashlib.sha256(v).hexdigest() for k, v in e.get(b"piece layers", {}).items())
    print(v1, hashlib.sha256(info).hexdigest(), ",".join(layers))
`

// ltSummary writes what ltHashes prints of m.
func ltSummary(m *MetaInfo) string {
	v1, _ := m.InfoHashes()
	h := m.InfoHashV2()
	var layers []string
	for root, layer := range m.PieceLayers {
		s := sha256.Sum256(layer)
		layers = append(layers, hex.EncodeToString([]byte(root))+":"+hex.EncodeToString(s[:]))
	}
	slices.Sort(layers)
	return v1 + " " + hex.EncodeToString(h[:]) + " " + strings.Join(layers, ",")
}

// TestCreateMatchesLibtorrent: v2 and hybrid torrents of the same trees
// with the same piece length and private flag have libtorrent 2.0's
// info-hashes (its create_torrent, Debian python3-libtorrent) and piece
// layers, and so join the same swarms; so does a piece length of 0 (both
// choose it).
func TestCreateMatchesLibtorrent(t *testing.T) {
	py := python3()
	if py == "" {
		t.Skip("python3-libtorrent not installed (Debian: apt-get install python3-libtorrent): not comparing with it")
	}
	dir := t.TempDir()
	type spec struct {
		Root    string `json:"root"`
		PL      int64  `json:"pl"`
		Flags   int    `json:"flags"` // 0: hybrid, 32: v2_only
		Private bool   `json:"private"`
	}
	var specs []spec
	var ours []string
	for _, tree := range interopTrees {
		root := makeTree(t, dir, tree.name, tree.file, tree.files)
		for _, s := range []spec{
			{root, 16 << 10, 0, false}, {root, 32 << 10, 0, true}, {root, 0, 0, false},
			{root, 16 << 10, 32, false}, {root, 64 << 10, 32, true},
		} {
			v := Hybrid
			if s.Flags == 32 {
				v = V2
			}
			specs = append(specs, s)
			ours = append(ours, ltSummary(createAt(t, root, CreateOptions{Version: v, PieceLength: s.PL, Private: s.Private})))
		}
	}
	arg, _ := json.Marshal(specs)
	out, err := exec.Command(py, "-c", ltHashes, string(arg)).CombinedOutput()
	if err != nil {
		t.Fatalf("python3-libtorrent: %v\n%s", err, out)
	}
	theirs := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(theirs) != len(specs) {
		t.Fatalf("python3-libtorrent printed %d lines for %d torrents:\n%s", len(theirs), len(specs), out)
	}
	for i, s := range specs {
		if ours[i] != theirs[i] {
			t.Errorf("%s, piece length %d, flags %d, private %v:\n ours:       %s\n libtorrent: %s",
				filepath.Base(s.Root), s.PL, s.Flags, s.Private, ours[i], theirs[i])
		}
	}
}

// TestAutoPieceLength: libtorrent's table, at and past each limit.
func TestAutoPieceLength(t *testing.T) {
	tests := []struct{ total, want int64 }{
		{1, 16 << 10},
		{2684355, 16 << 10},
		{2684356, 32 << 10},
		{10737418, 32 << 10},
		{10737419, 64 << 10},
		{687194767, 256 << 10},
		{687194768, 512 << 10},
		{703687441777, 8 << 20},
		{703687441778, 16 << 20},
		{1 << 50, 16 << 20},
	}
	for _, tt := range tests {
		if got := AutoPieceLength(tt.total); got != tt.want {
			t.Errorf("AutoPieceLength(%d) = %d, want %d", tt.total, got, tt.want)
		}
	}
	py := python3()
	if py == "" {
		return
	}
	// libtorrent chooses without hashing: its files need not exist.
	const script = `
import sys, libtorrent as lt
for n in sys.argv[1:]:
    fs = lt.file_storage()
    fs.add_file("d/f", int(n))
    print(lt.create_torrent(fs, 0).piece_length())
`
	args := []string{"-c", script}
	for _, tt := range tests[:len(tests)-1] { // libtorrent refuses 2^50 bytes
		args = append(args, fmt.Sprint(tt.total))
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("python3-libtorrent: %v\n%s", err, out)
	}
	for i, line := range strings.Fields(string(out)) {
		if want := fmt.Sprint(AutoPieceLength(tests[i].total)); line != want {
			t.Errorf("%d bytes: libtorrent chooses %s, AutoPieceLength %s", tests[i].total, line, want)
		}
	}
}

// TestCreateLayout checks, without other tools, what the comparisons rest
// on: v1 files in the byte order of their paths (mktorrent), v2 and hybrid
// in the order of the tree; hybrid padding after every file that does not
// end a piece, the last too (libtorrent), none in a torrent of one file;
// "x" for executables in v2 and hybrid only; a directory of one file is
// that directory in every version; the same hashes on 1 and 3 threads.
func TestCreateLayout(t *testing.T) {
	dir := t.TempDir()
	root := makeTree(t, dir, "tree", false, []treeFile{
		{"sub/y", 3, false}, {"sub-b", 5, true}, {"sub.c", 0, false}, {"z", 16384, false}, {"zz", 7, false},
	})
	tests := []struct {
		v    Version
		want string
	}{
		{V1, "tree/sub-b(5) tree/sub.c(0) tree/sub/y(3) tree/z(16384) tree/zz(7) "},
		{V2, "tree/sub/y(3) tree/sub-b(5x) tree/sub.c(0) tree/z(16384) tree/zz(7) "},
		{Hybrid, "tree/sub/y(3) tree/.pad/16381(16381p) tree/sub-b(5x) tree/.pad/16379(16379p) tree/sub.c(0) tree/z(16384) tree/zz(7) tree/.pad/16377(16377p) "},
	}
	for _, tt := range tests {
		m := createAt(t, root, CreateOptions{Version: tt.v, PieceLength: 16384, Threads: 1})
		if got := fileList(m); got != tt.want {
			t.Errorf("version %d:\n got %s\nwant %s", tt.v, got, tt.want)
		}
		if m3 := createAt(t, root, CreateOptions{Version: tt.v, PieceLength: 16384, Threads: 3}); !bytes.Equal(m3.InfoBytes, m.InfoBytes) {
			t.Errorf("version %d: 3 threads hash otherwise than 1", tt.v)
		}
	}
	one := makeTree(t, dir, "d", false, []treeFile{{"a", 20000, false}})
	for _, v := range []Version{V1, V2, Hybrid} {
		m := createAt(t, one, CreateOptions{Version: v, PieceLength: 16384})
		if got := fileList(m); got != "d/a(20000) " {
			t.Errorf("version %d, a directory of one file: %s", v, got)
		}
		parsed := mustParse(t, marshal(t, m))
		if r, err := Verify(context.Background(), parsed, os.DirFS(dir), nil); err != nil || !r.OK() {
			t.Errorf("version %d, a directory of one file: %v %s", v, err, summary(r))
		}
	}
}

func marshal(t *testing.T, m *MetaInfo) []byte {
	t.Helper()
	data, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A file system whose files read otherwise than they are listed.
type changingFS struct {
	fstest.MapFS
	data map[string][]byte // what the files read, by name
}

func (c changingFS) Open(name string) (fs.File, error) {
	f, err := c.MapFS.Open(name)
	if d, ok := c.data[name]; ok && err == nil {
		return changingFile{f, bytes.NewReader(d)}, nil
	}
	return f, err
}

type changingFile struct {
	fs.File
	r *bytes.Reader
}

func (f changingFile) Read(b []byte) (int, error) { return f.r.Read(b) }

// A file that turns out shorter or longer than listed when Create reads
// it is an error; Progress counts every byte read.
func TestCreateChangedFiles(t *testing.T) {
	listed := fstest.MapFS{"d/a": {Data: make([]byte, 40000)}, "d/b": {Data: make([]byte, 1000)}}
	tests := []struct {
		name string
		data []byte // what d/a reads
		want string // the error, "" for none
	}{
		{"as listed", make([]byte, 40000), ""},
		{"shorter", make([]byte, 39999), "torrent: d/a: it changed while it was read: 40000 bytes, then fewer"},
		{"longer", make([]byte, 40001), "torrent: d/a: it changed while it was read: 40000 bytes, then more"},
	}
	for _, tt := range tests {
		for _, v := range []Version{V1, V2, Hybrid} {
			var n int64
			_, err := Create(context.Background(), changingFS{listed, map[string][]byte{"d/a": tt.data}}, "d",
				CreateOptions{Version: v, PieceLength: 16384, Progress: func(k int64) { n += k }})
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%s, version %d: %v", tt.name, v, err)
			case tt.want == "" && n != 41000:
				t.Errorf("%s, version %d: progress %d, want 41000", tt.name, v, n)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("%s, version %d: error %v, want %s", tt.name, v, err, tt.want)
			}
		}
	}
}
