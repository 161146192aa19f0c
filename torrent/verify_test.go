package torrent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// content returns the test content as a MapFS, and its files by path.
func content(t *testing.T) fstest.MapFS {
	t.Helper()
	dir := t.TempDir()
	writeContent(t, dir)
	fsys := fstest.MapFS{}
	for _, f := range contentFiles {
		data, err := os.ReadFile(filepath.Join(dir, f.path))
		if err != nil {
			t.Fatal(err)
		}
		fsys[f.path] = &fstest.MapFile{Data: data, Mode: f.mode}
	}
	return fsys
}

// summary writes r as "file status bad-ranges" lines and the bad pieces.
func summary(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "bad %v;", r.Bad)
	for _, f := range r.Files {
		if !f.Pad {
			fmt.Fprintf(&b, " %s %s %v;", strings.Join(f.Path, "/"), f.Status, f.Bad)
		}
	}
	return b.String()
}

// verify verifies the torrent data against fsys, and checks that the
// results are the same read of a MetaInfo of ParseLazy and handed to
// VerifyOptions.File as they come.
func verify(t *testing.T, data []byte, fsys fs.FS) *Result {
	t.Helper()
	r, err := Verify(context.Background(), mustParse(t, data), fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := ParseLazy(data, bencode.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var files []FileResult
	streamed, err := Verify(context.Background(), lazy, fsys, &VerifyOptions{File: func(f FileResult) { files = append(files, f) }})
	if err != nil {
		t.Fatal(err)
	}
	if streamed.Files != nil {
		t.Errorf("Result.Files is not nil with VerifyOptions.File")
	}
	streamed.Files = files
	if got, want := fmt.Sprintf("%v %v", streamed.OK(), *streamed), fmt.Sprintf("%v %v", r.OK(), *r); got != want {
		t.Errorf("files handed on as they come:\n got %s\nwant %s", got, want)
	}
	return r
}

func TestVerifyIntact(t *testing.T) {
	fsys := content(t)
	for name := range testdataHashes {
		r := verify(t, readTestdata(t, name), fsys)
		if !r.OK() || r.NumBad() != 0 {
			t.Errorf("%s: %s", name, summary(r))
		}
	}
}

// Each case changes the content, then checks what Verify reports for
// each torrent: the bad pieces and the files that are not complete.
func TestVerifyDamage(t *testing.T) {
	flip := func(path string, off int) func(fstest.MapFS) {
		return func(fsys fstest.MapFS) {
			f := fsys[path]
			f.Data = bytes.Clone(f.Data)
			f.Data[off] ^= 0x55
		}
	}
	tests := []struct {
		name   string
		damage func(fstest.MapFS)
		want   map[string]string // torrent -> bad pieces and files not complete
	}{
		{"one byte of a.bin", flip("content/a.bin", 40000), map[string]string{
			"transmission-multi.torrent": "bad [{1 2}]; content/a.bin incomplete [{1 2}];", // 32 KiB pieces
			"libtorrent-v1.torrent":      "bad [{3 4}]; content/a.bin incomplete [{3 4}];", // 16 KiB, run.sh first
			"libtorrent-v2.torrent":      "bad [{2 3}]; content/a.bin incomplete [{2 3}];", // 16 KiB pieces, per file
			"libtorrent-hybrid.torrent":  "bad [{1 2}]; content/a.bin incomplete [{1 2}];", // 32 KiB
		}},
		{"one byte of c.txt", flip("content/dir/c.txt", 10), map[string]string{
			// 32 KiB piece 4 holds the end of b.bin, c.txt and the start of run.sh.
			"transmission-multi.torrent": "bad [{4 5}]; content/dir/b.bin incomplete [{4 5}]; content/dir/c.txt incomplete [{4 5}]; content/run.sh incomplete [{4 5}];",
			"libtorrent-v2.torrent":      "bad [{10 11}]; content/dir/c.txt incomplete [{10 11}];",
			"libtorrent-hybrid.torrent":  "bad [{6 7}]; content/dir/c.txt incomplete [{6 7}];",
		}},
		{"one byte of single.bin", flip("single.bin", 49999), map[string]string{
			"transmission-single.torrent":  "bad [{3 4}]; single.bin incomplete [{3 4}];",
			"libtorrent-v2-single.torrent": "bad [{3 4}]; single.bin incomplete [{3 4}];",
		}},
		{"b.bin missing", func(fsys fstest.MapFS) { delete(fsys, "content/dir/b.bin") }, map[string]string{
			"transmission-multi.torrent": "bad [{3 5}]; content/a.bin incomplete [{3 4}]; content/dir/b.bin missing [{3 5}]; content/dir/c.txt incomplete [{4 5}]; content/run.sh incomplete [{4 5}];",
			"libtorrent-v2.torrent":      "bad [{7 10}]; content/dir/b.bin missing [{7 10}];",
			"libtorrent-hybrid.torrent":  "bad [{4 6}]; content/dir/b.bin missing [{4 6}];",
		}},
		{"run.sh short", func(fsys fstest.MapFS) { f := fsys["content/run.sh"]; f.Data = f.Data[:16384+100] }, map[string]string{
			"libtorrent-v2.torrent":     "bad [{12 13}]; content/run.sh incomplete [{12 13}];",
			"libtorrent-hybrid.torrent": "bad [{7 8}]; content/run.sh incomplete [{7 8}];",
		}},
		{"c.txt and run.sh", func(fsys fstest.MapFS) { flip("content/dir/c.txt", 10)(fsys); flip("content/run.sh", 10)(fsys) }, map[string]string{
			// empty.txt, where piece 11 starts between them, touches no piece.
			"libtorrent-v2.torrent": "bad [{10 12}]; content/dir/c.txt incomplete [{10 11}]; content/run.sh incomplete [{11 12}];",
		}},
		{"c.txt longer", func(fsys fstest.MapFS) { f := fsys["content/dir/c.txt"]; f.Data = append(bytes.Clone(f.Data), 'x') }, map[string]string{
			"libtorrent-v2.torrent": "bad []; content/dir/c.txt incomplete [];",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := content(t)
			tt.damage(fsys)
			for name, want := range tt.want {
				r := verify(t, readTestdata(t, name), fsys)
				if r.OK() {
					t.Errorf("%s: OK", name)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "bad %v;", r.Bad)
				for _, f := range r.Files {
					if !f.Pad && f.Status != Complete {
						fmt.Fprintf(&b, " %s %s %v;", strings.Join(f.Path, "/"), f.Status, f.Bad)
					}
				}
				if got := b.String(); got != want {
					t.Errorf("%s:\n got %s\nwant %s", name, got, want)
				}
			}
		})
	}
}

func TestVerifyUnsafePathsAndCancel(t *testing.T) {
	m := &MetaInfo{Info: Info{Name: "n", PieceLength: 16384, Pieces: make([]byte, 20),
		Files: []File{{Path: []string{"..", "x"}, Length: 5}}}}
	fsys := fstest.MapFS{"x": {Data: []byte("hello")}, "n/x": {Data: []byte("hello")}}
	r, err := Verify(context.Background(), m, fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The unsafe path is not opened; its LocalPath, n/x, is.
	if r.Files[0].Status != Incomplete || r.Files[0].Size != 5 {
		t.Errorf("%+v", r.Files[0])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Verify(ctx, m, fsys, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestVerifyProgress(t *testing.T) {
	fsys := content(t)
	delete(fsys, "content/a.bin")
	var n int64
	m := mustParse(t, readTestdata(t, "libtorrent-hybrid.torrent"))
	if _, err := Verify(context.Background(), m, fsys, &VerifyOptions{Progress: func(k int64) { n += k }, BufferSize: 1000}); err != nil {
		t.Fatal(err)
	}
	if n != m.Info.TotalLength() {
		t.Errorf("progress %d, want %d", n, m.Info.TotalLength())
	}
}

// Create makes what the reference tools make: the v1 pieces of
// transmission-create, the v2 roots and piece layers of libtorrent; and
// libtorrent reads what it makes with the same info-hashes.
func TestCreate(t *testing.T) {
	fsys := content(t)
	ctx := context.Background()
	v1, err := Create(ctx, fsys, "content", CreateOptions{PieceLength: 32768})
	if err != nil {
		t.Fatal(err)
	}
	tr := mustParse(t, readTestdata(t, "transmission-multi.torrent"))
	if !bytes.Equal(v1.Info.Pieces, tr.Info.Pieces) {
		t.Error("v1 pieces differ from transmission-create's")
	}
	v2, err := Create(ctx, fsys, "content", CreateOptions{Version: V2, PieceLength: 16384})
	if err != nil {
		t.Fatal(err)
	}
	lt := mustParse(t, readTestdata(t, "libtorrent-v2.torrent"))
	if !slices.EqualFunc(v2.Info.FileTree, lt.Info.FileTree, func(a, b File) bool {
		return slices.Equal(a.Path, b.Path) && a.Length == b.Length && bytes.Equal(a.PiecesRoot, b.PiecesRoot)
	}) {
		t.Error("v2 file tree differs from libtorrent's")
	}
	if len(v2.PieceLayers) != len(lt.PieceLayers) {
		t.Errorf("%d piece layers, libtorrent %d", len(v2.PieceLayers), len(lt.PieceLayers))
	}
	for root, layer := range lt.PieceLayers {
		if !bytes.Equal(v2.PieceLayers[root], layer) {
			t.Errorf("piece layer of %x differs", root)
		}
	}
	var made []string
	dir := t.TempDir()
	for i, o := range []CreateOptions{
		{PieceLength: 32768, Trackers: [][]string{{"http://a.example/announce"}, {"udp://b.example:1"}}, Comment: "c", CreatedBy: "b14fs", CreationDate: 1e9, Private: true},
		{Version: V2},
		{Version: Hybrid, PieceLength: 32768, WebSeeds: []string{"http://seed.example/"}},
		{Version: Hybrid, Name: "one.bin"},
	} {
		root := "content"
		if o.Name != "" {
			root = "single.bin"
		}
		m, err := Create(ctx, fsys, root, o)
		if err != nil {
			t.Fatal(err)
		}
		data, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := Parse(data)
		if err != nil {
			t.Fatalf("%d: Create made what Parse rejects: %v", i, err)
		}
		if r, err := Verify(ctx, parsed, remap(fsys, root, m.Info.Name), nil); err != nil || !r.OK() {
			t.Errorf("%d: %v %s", i, err, summary(r))
		}
		name := filepath.Join(dir, fmt.Sprintf("%d.torrent", i))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		v1, v2 := parsed.InfoHashes()
		made = append(made, name+" "+v1+" "+v2)
	}
	py := python3()
	if py == "" {
		t.Log("python3-libtorrent not installed: Create's torrents not read by libtorrent")
		return
	}
	script := `
import sys, libtorrent as lt
for a in sys.argv[1:]:
    p, v1, v2 = (a.split(" ") + ["", ""])[:3]
    ih = lt.torrent_info(p).info_hashes()
    print(p, str(ih.v1) if ih.has_v1() else "", str(ih.v2) if ih.has_v2() else "")
`
	out, err := exec.Command(py, append([]string{"-c", script}, made...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("libtorrent: %v\n%s", err, out)
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); !slices.Equal(got, made) {
		b, _ := json.MarshalIndent(map[string][]string{"libtorrent": got, "b14fs": made}, "", " ")
		t.Errorf("info-hashes:\n%s", b)
	}
}

// remap returns fsys with root also named name, for a torrent made with
// another name.
func remap(fsys fstest.MapFS, root, name string) fstest.MapFS {
	out := fstest.MapFS{}
	for p, f := range fsys {
		out[p] = f
		if p == root {
			out[name] = f
		}
	}
	return out
}

// Every file that is not complete says why: a file of the wrong size how
// many bytes it has too many or too few, even when its pieces are good.
func TestVerifyReasons(t *testing.T) {
	tests := []struct {
		name   string
		change func(*fstest.MapFile)
		want   string
	}{
		{"one byte longer", func(f *fstest.MapFile) { f.Data = append(bytes.Clone(f.Data), 'x') }, "1 byte too long: 1001 bytes, want 1000"},
		{"two bytes longer", func(f *fstest.MapFile) { f.Data = append(bytes.Clone(f.Data), 'x', 'y') }, "2 bytes too long: 1002 bytes, want 1000"},
		{"one byte short", func(f *fstest.MapFile) { f.Data = f.Data[:999] }, "1 byte short: 999 bytes, want 1000"},
		{"empty", func(f *fstest.MapFile) { f.Data = nil }, "1000 bytes short: 0 bytes, want 1000"},
	}
	m := mustParse(t, readTestdata(t, "libtorrent-v2.torrent"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := content(t)
			tt.change(fsys["content/dir/c.txt"])
			r, err := Verify(context.Background(), m, fsys, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range r.Files {
				if strings.Join(f.Path, "/") != "content/dir/c.txt" {
					continue
				}
				if f.Status != Incomplete || f.Err == nil || f.Err.Error() != tt.want {
					t.Errorf("%s: %v", f.Status, f.Err)
				}
			}
		})
	}
}

// TestCreateManyThreads asks for far more threads than there are CPUs: each
// took its chunks of memory, so that -t 50000 took half a gigabyte for a
// file of two bytes, and -t 1000000 all the machine had.
func TestCreateManyThreads(t *testing.T) {
	fsys := fstest.MapFS{"f": {Data: []byte("hi")}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Create(context.Background(), fsys, "f", CreateOptions{Threads: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("Create with 2^20 threads allocated %d MiB", n>>20)
	}
}
