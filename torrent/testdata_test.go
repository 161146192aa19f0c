package torrent

import (
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The tests' content: files that writeContent makes the same on every run,
// of which the torrents of testdata/ were made (see testdata/README.md).
var contentFiles = []struct {
	path string
	size int
	mode os.FileMode
}{
	{"content/a.bin", 100_000, 0o644},
	{"content/dir/b.bin", 40_000, 0o644},
	{"content/dir/c.txt", 1_000, 0o644},
	{"content/empty.txt", 0, 0o644},
	{"content/run.sh", 20_000, 0o755},
	{"single.bin", 50_000, 0o644},
}

// writeContent writes the content files under dir.
func writeContent(t testing.TB, dir string) {
	t.Helper()
	for i, f := range contentFiles {
		data := make([]byte, f.size)
		r := rand.New(rand.NewPCG(uint64(i), 14))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		name := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(name, f.mode); err != nil {
			t.Fatal(err)
		}
	}
}

var update = flag.Bool("update", false, "make testdata/*.torrent again with transmission-create and python3-libtorrent")

// libtorrentCreate is a python3-libtorrent script: create ROOT OUT FLAGS
// PIECE-LENGTH makes a torrent of ROOT, with fixed trackers, web seed,
// creator, comment and creation date.
const libtorrentCreate = `
import os, sys, libtorrent as lt
root, out, flags, pl = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fs = lt.file_storage()
lt.add_files(fs, root)
ct = lt.create_torrent(fs, pl, flags=flags)
ct.add_tracker("udp://tracker.example.org:6969/announce", 0)
ct.add_tracker("http://backup.example.org/announce", 1)
ct.add_url_seed("http://seed.example.org/files/")
ct.set_creator("python3-libtorrent " + lt.__version__)
ct.set_comment("b14fs test data")
lt.set_piece_hashes(ct, os.path.dirname(os.path.abspath(root)))
e = ct.generate()
e[b"creation date"] = 1700000000
open(out, "wb").write(lt.bencode(e))
`

// python3 returns a python3 that imports libtorrent, or "".
func python3() string {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import libtorrent").Run() == nil {
			return p
		}
	}
	return ""
}

// TestMakeTestdata makes the tool-made torrents of testdata/ again, with
// -update.
func TestMakeTestdata(t *testing.T) {
	if !*update {
		t.Skip("without -update")
	}
	dir := t.TempDir()
	writeContent(t, dir)
	out, _ := filepath.Abs("testdata")
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, b)
		}
	}
	run("transmission-create", "-p", "-t", "udp://tracker.example.org:6969/announce", "-c", "b14fs test data",
		"-s", "16", "-o", filepath.Join(out, "transmission-single.torrent"), "single.bin")
	run("transmission-create", "-t", "http://tracker.example.org/announce", "-t", "udp://backup.example.org:80/announce",
		"-s", "32", "-o", filepath.Join(out, "transmission-multi.torrent"), "content")
	py := python3()
	if py == "" {
		t.Fatal("python3-libtorrent is not installed")
	}
	for _, lt := range []struct {
		name, root string
		flags, pl  int
	}{
		{"libtorrent-v2.torrent", "content", 32, 16384},           // v2_only
		{"libtorrent-hybrid.torrent", "content", 0, 32768},        // v1 and v2, padding files
		{"libtorrent-v1.torrent", "content", 64, 16384},           // v1_only
		{"libtorrent-v2-single.torrent", "single.bin", 32, 16384}, // v2_only
	} {
		run(py, "-c", libtorrentCreate, lt.root, filepath.Join(out, lt.name), strconv.Itoa(lt.flags), strconv.Itoa(lt.pl))
	}
}
