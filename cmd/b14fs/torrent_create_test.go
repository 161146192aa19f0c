package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/remote"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/plugins/base16384"
)

func TestCreatePieceLength(t *testing.T) {
	tests := []struct {
		in   string
		want int64 // 0 with ok false: a usage error
		ok   bool
	}{
		{"", 0, true},
		{"14", 16 << 10, true},
		{"18", 256 << 10, true},
		{"28", 256 << 20, true},
		{"13", 0, false},
		{"29", 0, false},
		{"16K", 16 << 10, true},
		{"256k", 256 << 10, true},
		{"1M", 1 << 20, true},
		{"1MiB", 1 << 20, true},
		{"2MB", 2 << 20, true},
		{"256M", 256 << 20, true},
		{"512M", 0, false},
		{"1G", 0, false},
		{"8K", 0, false},
		{"3M", 0, false},
		{"0K", 0, false},
		{"-1K", 0, false},
		{"1", 0, false},
		{"16384", 0, false}, // a number alone is an exponent, as for mktorrent
		{"K", 0, false},
		{"1T", 0, false},
		{"1iK", 0, false},
	}
	for _, tt := range tests {
		got, err := parsePieceLength(tt.in)
		var ue usageError
		if got != tt.want || (err == nil) != tt.ok || (err != nil && !errors.As(err, &ue)) {
			t.Errorf("parsePieceLength(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestCreateSplitURLs(t *testing.T) {
	tests := []struct {
		in   []string
		want string // the tiers, "|" between them, or "error"
	}{
		{nil, ""},
		{[]string{"http://a/1"}, "http://a/1"},
		{[]string{"http://a/1, http://a/2", "udp://b/3"}, "http://a/1 http://a/2|udp://b/3"},
		{[]string{"http://a/1,"}, "error"},
		{[]string{""}, "error"},
	}
	for _, tt := range tests {
		tiers, err := splitURLs("-a", tt.in)
		var got []string
		for _, tier := range tiers {
			got = append(got, strings.Join(tier, " "))
		}
		s := strings.Join(got, "|")
		if err != nil {
			s = "error"
		}
		if s != tt.want {
			t.Errorf("splitURLs(%q) = %q, want %q", tt.in, s, tt.want)
		}
	}
}

// createCmd runs 'b14fs torrent create ARGS' and fails the test on an
// error.
func createCmd(t *testing.T, args ...string) {
	t.Helper()
	var errOut bytes.Buffer
	if code := run(append([]string{"torrent", "create"}, args...), stdio{nil, &bytes.Buffer{}, &errOut}, builtin.Registry(), nil); code != exitOK {
		t.Fatalf("torrent create %q: exit %d: %s", args, code, errOut.String())
	}
}

// infohashes runs 'b14fs torrent infohash FILE'.
func infohashes(t *testing.T, file string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run([]string{"torrent", "infohash", file}, stdio{nil, &out, &errOut}, builtin.Registry(), nil); code != exitOK {
		t.Fatalf("torrent infohash %s: exit %d: %s", file, code, errOut.String())
	}
	return strings.Join(strings.Fields(out.String()), " ")
}

// ltCreate is a python3-libtorrent script: ltCreate ROOT FLAGS PIECE-LENGTH
// PRIVATE prints the info-hashes of the torrent create_torrent makes of
// ROOT, v1 (for a hybrid torrent) then v2, one a line.
const ltCreate = `
import hashlib, os, sys, libtorrent as lt
root, flags, pl, private = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
fs = lt.file_storage()
lt.add_files(fs, root)
ct = lt.create_torrent(fs, pl, flags=flags)
ct.set_priv(private)
lt.set_piece_hashes(ct, os.path.dirname(os.path.abspath(root)))
info = lt.bencode(ct.generate()[b"info"])
if flags != 32:
    print(hashlib.sha1(info).hexdigest())
print(hashlib.sha256(info).hexdigest())
`

// TestCreateMatchesLibtorrentCLI: 'b14fs torrent create --format v2' and
// '--format hybrid' give the info-hashes of libtorrent's create_torrent
// (Debian python3-libtorrent) with the same piece length (chosen by both
// when not given) and private flag.
func TestCreateMatchesLibtorrentCLI(t *testing.T) {
	t.Parallel()
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import libtorrent").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("python3-libtorrent not installed (Debian: apt-get install python3-libtorrent): not comparing with it")
	}
	dir := t.TempDir()
	files := map[string]int{"data/a.bin": 70000, "data/sub/b.bin": 16384, "data/sub-c.bin": 1, "data/e": 0, "data/z é.txt": 40000}
	for name, size := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte(name[:6]), size)[:size], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args  []string
		flags string // libtorrent's: 0 for hybrid, 32 for v2 only
		pl    string
		priv  string
	}{
		{[]string{"--format", "hybrid", "-l", "14"}, "0", "16384", "0"},
		{[]string{"--format", "hybrid", "-l", "32K", "-p"}, "0", "32768", "1"},
		{[]string{"--format", "hybrid"}, "0", "0", "0"},
		{[]string{"--format", "v2", "-l", "16K"}, "32", "16384", "0"},
		{[]string{"--format", "v2", "-p"}, "32", "0", "1"},
	}
	for _, tt := range tests {
		out := filepath.Join(dir, "out.torrent")
		createCmd(t, append([]string{"-d", "-f", "-o", out, filepath.Join(dir, "data")}, tt.args...)...)
		b, err := exec.Command(py, "-c", ltCreate, filepath.Join(dir, "data"), tt.flags, tt.pl, tt.priv).CombinedOutput()
		if err != nil {
			t.Fatalf("python3-libtorrent: %v\n%s", err, b)
		}
		if ours, theirs := infohashes(t, out), strings.Join(strings.Fields(string(b)), " "); ours != theirs {
			t.Errorf("%q: info-hashes %s, libtorrent's %s", tt.args, ours, theirs)
		}
	}
}

// TestCreateRemote: create and verify read the data in a remote location
// (here an S3 fake), as it is or stored encoded (--fs-chain), as they read
// a local directory: the same info-hashes, and the data verifies.
func TestCreateRemote(t *testing.T) {
	endpoint := "http://" + remotetest.FakeS3(t)
	t.Setenv("AWS_ACCESS_KEY_ID", remotetest.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", remotetest.SecretKey)
	for _, env := range []string{"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION"} {
		t.Setenv(env, "")
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	store, closer, err := remote.Open("s3://"+remotetest.Bucket, remote.Options{S3Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	vault, err := fsx.New(store, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, to := range []struct {
		fsys afero.Fs
		dir  string
	}{{afero.NewOsFs(), dir}, {store, "plain"}, {vault, "vault"}} {
		for name, content := range remotetest.Tree {
			name = path.Join(to.dir, "tree", name)
			if err := to.fsys.MkdirAll(path.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := afero.WriteFile(to.fsys, name, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	s3 := "s3://" + remotetest.Bucket
	for _, format := range []string{"v1", "hybrid"} {
		local := filepath.Join(dir, format+".torrent")
		createCmd(t, "-d", "--format", format, "-o", local, filepath.Join(dir, "tree"))
		want := infohashes(t, local)
		for _, args := range [][]string{{s3 + "/plain/tree"}, {"--fs-chain", "base16384", s3 + "/vault/tree/"}} {
			out := filepath.Join(dir, "remote.torrent")
			createCmd(t, append([]string{"-d", "-f", "--format", format, "--s3-endpoint", endpoint, "-o", out}, args...)...)
			if got := infohashes(t, out); got != want {
				t.Errorf("%s %q: info-hashes %s, of the local tree %s", format, args, got, want)
			}
		}
		for _, args := range [][]string{{s3 + "/plain"}, {"--fs-chain", "base16384", s3 + "/vault"}} {
			var out, errOut bytes.Buffer
			args = append([]string{"torrent", "verify", "--s3-endpoint", endpoint, local}, args...)
			if code := run(args, stdio{nil, &out, &errOut}, builtin.Registry(), nil); code != exitOK || !strings.Contains(out.String(), "files: 5 of 5 complete") {
				t.Errorf("%q: exit %d\n%s%s", args, code, out.String(), errOut.String())
			}
		}
	}
}
