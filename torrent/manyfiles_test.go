package torrent

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/memtest"
	"github.com/b14fs/b14fs/internal/testing/shareddata"
	"github.com/b14fs/b14fs/plugins/bencode"
)

var manyFilesDir = flag.String("manyfiles", "", "write torrents of a million files (v1, v2 and hybrid) to `DIR`, for testdata/mem-show.sh")

// manyFilesMade holds what manyFiles made, by n and version.
var manyFilesMade sync.Map

// manyFiles returns a torrent of n files of version v, made the same on
// every run: paths of two or three elements ("dirNN/subNN/fileNNNNNNN.dat"
// or "dirNN/fileNNNNNNN.dat"), sizes below 16 KiB, some empty, fake piece
// hashes. A hybrid torrent has a padding file after each file that does
// not end a piece, as libtorrent makes them. The caller must not modify
// it.
func manyFiles(n int, v Version) []byte {
	key := [2]int{n, int(v)}
	if data, ok := manyFilesMade.Load(key); ok {
		return data.([]byte)
	}
	data := makeManyFiles(n, v)
	manyFilesMade.Store(key, data)
	return data
}

// makeManyFiles makes what manyFiles returns.
func makeManyFiles(n int, v Version) []byte {
	r := rand.New(rand.NewPCG(uint64(n), uint64(v)))
	files := make([]File, n)
	for i := range files {
		f := &files[i]
		dir := fmt.Sprintf("dir%02d", i*100/n)
		name := fmt.Sprintf("file%07d.dat", i)
		if i%10 == 0 {
			f.Path = []string{dir, name}
		} else {
			f.Path = []string{dir, fmt.Sprintf("sub%02d", i%97), name}
		}
		if i%50 != 0 {
			f.Length = 1 + r.Int64N(16<<10-1)
		}
	}
	slices.SortFunc(files, func(a, b File) int { return slices.Compare(a.Path, b.Path) })
	hashes := func(k int64) []byte {
		b := make([]byte, k)
		for i := range b {
			b[i] = byte(r.Uint32()) | 1 // never all zeros
		}
		return b
	}
	m := &MetaInfo{Announce: "udp://tracker.example.org:6969/announce", CreatedBy: "b14fs tests", CreationDate: 1700000000}
	in := &m.Info
	in.Name, in.PieceLength = "many", 1<<20
	if v != V1 {
		in.MetaVersion = 2
		in.FileTree = slices.Clone(files)
		for i := range in.FileTree {
			if in.FileTree[i].Length > 0 {
				in.FileTree[i].PiecesRoot = hashes(32)
			}
		}
	}
	if v != V2 {
		total := int64(0)
		if v == Hybrid {
			in.PieceLength = 16 << 10
			in.Files = make([]File, 0, 2*n)
			for _, f := range files {
				in.Files = append(in.Files, f)
				total += f.Length
				if pad := padding(f.Length, in.PieceLength); pad > 0 {
					in.Files = append(in.Files, File{Length: pad, Path: []string{".pad", fmt.Sprint(pad)}, Attr: "p"})
					total += pad
				}
			}
		} else {
			in.Files = files
			for _, f := range files {
				total += f.Length
			}
		}
		in.Pieces = hashes(20 * pieceCount(total, in.PieceLength))
	}
	data, err := m.Marshal()
	if err != nil {
		panic(err)
	}
	return data
}

// TestWriteManyFiles writes torrents of a million files to the directory
// of -manyfiles: v1.torrent, v2.torrent and hybrid.torrent.
func TestWriteManyFiles(t *testing.T) {
	if *manyFilesDir == "" {
		t.Skip("without -manyfiles")
	}
	for _, v := range versions {
		data := makeManyFiles(1_000_000, v.v)
		if _, err := Parse(data); err != nil {
			t.Fatal(v.name, err)
		}
		if err := os.WriteFile(filepath.Join(*manyFilesDir, v.name+".torrent"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// versions are the versions of torrent the tests make.
var versions = []struct {
	name string
	v    Version
}{{"v1", V1}, {"v2", V2}, {"hybrid", Hybrid}}

// checkLazy checks that ParseLazy reads data as ParseWith does, with the
// options o: the same error, or a MetaInfo whose files, sizes, hashes and
// encodings are the same.
func checkLazy(t *testing.T, name string, data []byte, o bencode.DecodeOptions) {
	t.Helper()
	eager, err := ParseWith(data, o)
	lazy, lazyErr := ParseLazy(data, o)
	if fmt.Sprint(err) != fmt.Sprint(lazyErr) {
		t.Fatalf("%s: Parse: %v; ParseLazy: %v", name, err, lazyErr)
	}
	if err != nil {
		return
	}
	if lazy.Info.Files != nil || lazy.Info.FileTree != nil {
		t.Errorf("%s: ParseLazy decoded the files", name)
	}
	walk := func(m *MetaInfo) []FileEntry { return slices.Collect(m.Info.Walk()) }
	if got, want := walk(lazy), walk(eager); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: Walk\n got %+v\nwant %+v", name, got, want)
	}
	in, lin := &eager.Info, &lazy.Info
	if lin.TotalLength() != in.TotalLength() || lin.NumPieces() != in.NumPieces() || lin.IsDir() != in.IsDir() || lazy.Magnet() != eager.Magnet() {
		t.Errorf("%s: ParseLazy: %d bytes, %d pieces, directory %v, %s; Parse: %d, %d, %v, %s", name,
			lin.TotalLength(), lin.NumPieces(), lin.IsDir(), lazy.Magnet(), in.TotalLength(), in.NumPieces(), in.IsDir(), eager.Magnet())
	}
	for what, marshal := range map[string]func(*MetaInfo) ([]byte, error){
		"MetaInfo": (*MetaInfo).Marshal,
		"Info":     func(m *MetaInfo) ([]byte, error) { return m.Info.Marshal() },
	} {
		got, err := marshal(lazy)
		want, wantErr := marshal(eager)
		if !bytes.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%s: %s.Marshal of ParseLazy's: %v\n%q\nof Parse's: %v\n%q", name, what, err, got, wantErr, want)
		}
	}
}

// ParseLazy reads every torrent as Parse does: those of testdata, of the
// shared corpus (strictly and leniently), of many files, and files whose
// lists are unsorted, repeat keys or break the rules.
func TestParseLazy(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.torrent")
	if dir := shareddata.Root(); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "bencode", "*", "*"))
		files = append(files, more...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkLazy(t, f, data, bencode.DecodeOptions{})
		checkLazy(t, f+" (lenient)", data, bencode.DecodeOptions{Lenient: true})
	}
	for _, v := range versions {
		checkLazy(t, v.name+" of 2,000 files", manyFiles(2000, v.v), bencode.DecodeOptions{})
	}
	tree := "d4:infod9:file treed1:bd0:d6:lengthi5e11:pieces root32:" + root32 + "ee1:ad0:d11:pieces root32:" + root32 + "6:lengthi7eeee" +
		"12:meta versioni2e4:name1:d12:piece lengthi16384eee"
	for name, in := range map[string]string{
		"v1 single file":        single,
		"v2 single file":        v2small,
		"v2 directory of one":   strings.Replace(v2small, "4:name1:d", "4:name1:x", 1),
		"v2 unsorted":           tree,
		"v1 unsorted, repeated": "d4:infod5:filesld4:pathl1:be6:lengthi5e4:pathl1:ceed6:lengthi6e4:pathl1:d1:eeee4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee",
		"v1 bad file":           "d4:infod5:filesld6:lengthi5e4:pathl1:beei5ee4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee",
		"v2 bad length":         strings.Replace(v2small, "lengthi5e", "lengthi-5e", 1),
		"v2 empty tree":         "d4:infod9:file treede12:meta versioni2e4:name1:d12:piece lengthi16384eee",
	} {
		checkLazy(t, name, []byte(in), bencode.DecodeOptions{})
		checkLazy(t, name+" (lenient)", []byte(in), bencode.DecodeOptions{Lenient: true})
	}
}

// ParseLazy decodes no file: what it allocates does not grow with the
// number of files.
func TestParseLazyMemory(t *testing.T) {
	for _, v := range versions {
		data := manyFiles(100_000, v.v)
		var m *MetaInfo
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		allocs := testing.AllocsPerRun(1, func() {
			var err error
			if m, err = ParseLazy(data, bencode.DecodeOptions{}); err != nil {
				t.Fatal(err)
			}
		})
		runtime.ReadMemStats(&after)
		// AllocsPerRun runs f twice, once to warm up.
		if bytes := (after.TotalAlloc - before.TotalAlloc) / 2; allocs > 100 || bytes > 64<<10 {
			t.Errorf("%s: ParseLazy of %d bytes, 100,000 files: %v allocations of %d bytes", v.name, len(data), allocs, bytes)
		}
		if m.Info.Files != nil || m.Info.FileTree != nil {
			t.Errorf("%s: ParseLazy decoded the files", v.name)
		}
	}
}

// Parse allocates its files' structures at their size, once: the heap it
// takes at its peak is about what the MetaInfo it returns holds.
func TestParseMemory(t *testing.T) {
	for _, v := range versions {
		data := manyFiles(100_000, v.v)
		var m *MetaInfo
		before := memtest.LiveHeap()
		peak := memtest.PeakHeap(func() {
			var err error
			if m, err = Parse(data); err != nil {
				t.Fatal(err)
			}
		})
		held := memtest.LiveHeap() - before
		runtime.KeepAlive(m)
		t.Logf("%s: %d bytes, 100,000 files: Parse's MetaInfo holds %d bytes, its peak %d", v.name, len(data), held, peak)
		if peak > held+held/8+1<<20 {
			t.Errorf("%s: Parse's peak heap is %d bytes for a MetaInfo of %d bytes", v.name, peak, held)
		}
	}
}

// BenchmarkParseManyFiles parses torrents of 100,000 files, with Parse
// and ParseLazy, and walks them.
func BenchmarkParseManyFiles(b *testing.B) {
	for _, v := range versions {
		data := manyFiles(100_000, v.v)
		b.Run("version="+v.name+"/parse=eager", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("version="+v.name+"/parse=lazy", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseLazy(data, bencode.DecodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, lazy := range []bool{false, true} {
			m, _ := ParseLazy(data, bencode.DecodeOptions{})
			if !lazy {
				m = mustParse(b, data)
			}
			b.Run(fmt.Sprintf("version=%s/walk=%s", v.name, map[bool]string{false: "eager", true: "lazy"}[lazy]), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					m.Info.TotalLength()
				}
			})
		}
	}
}
