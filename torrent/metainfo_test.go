package torrent

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/shareddata"
	"github.com/b14fs/b14fs/plugins/bencode"
)

// The info-hashes of testdata's torrents, as libtorrent 2.0.8 reads them.
var testdataHashes = map[string][2]string{
	"libtorrent-hybrid.torrent":    {"3b070677395d4d0faee92f46dab340d5edad58a5", "42c2749edf04ee882dd0e87fda20057fa698a50a0df6e79006424d1736c81f28"},
	"libtorrent-v1.torrent":        {"dc244d00f4afca89f4431a25ef46e5c78e9178cb", ""},
	"libtorrent-v2-single.torrent": {"", "cc382f88e39d9bc2e06a4d5a36d43eca4054a98f689d405fcb0ffbf1b1411fec"},
	"libtorrent-v2.torrent":        {"", "d30b3db7ca3aae171fdfdbe71ced027c5f83d6c1d282b7a40c50e7f98694e391"},
	"transmission-multi.torrent":   {"c79bed71433f80b549e5dab4a79eed0bf2afe951", ""},
	"transmission-single.torrent":  {"b254591d84a78b75934439c51635a26a6a0e4505", ""},
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t testing.TB, data []byte) *MetaInfo {
	t.Helper()
	m, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTestdataHashes(t *testing.T) {
	for name, want := range testdataHashes {
		m := mustParse(t, readTestdata(t, name))
		if v1, v2 := m.InfoHashes(); v1 != want[0] || v2 != want[1] {
			t.Errorf("%s: info-hashes %q %q, want %q %q", name, v1, v2, want[0], want[1])
		}
	}
}

// BEP 52 publishes the info-hashes of its test torrents; the shared corpus
// has the hybrid one.
func TestBEP52TestTorrent(t *testing.T) {
	name := filepath.Join(shareddata.Dir(t, "bencode"), "valid", "anacrolix-torrent__bittorrent-v2-hybrid-test.torrent")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Skip(err)
	}
	m := mustParse(t, data)
	v1, v2 := m.InfoHashes()
	if v1 != "631a31dd0a46257d5078c0dee4e66e26f73e42ac" || v2 != "d8dd32ac93357c368556af3ac1d95c9d76bd0dff6fa9833ecdac3d53134efabb" {
		t.Errorf("info-hashes %s %s", v1, v2)
	}
	if err := m.CheckPieceLayers(); err != nil {
		t.Error(err)
	}
}

// checkRoundTrip checks that m encodes back to data, its info to its
// InfoBytes, and that bencode.Unmarshal decodes the same.
func checkRoundTrip(t *testing.T, name string, data []byte, m *MetaInfo) {
	t.Helper()
	if out, err := m.Marshal(); err != nil || !bytes.Equal(out, data) {
		t.Errorf("%s: Marshal does not give the file back: %v", name, err)
	}
	if out, err := bencode.Marshal(m); err != nil || !bytes.Equal(out, data) {
		t.Errorf("%s: bencode.Marshal does not give the file back: %v", name, err)
	}
	if out, err := m.Info.Marshal(); err != nil || !bytes.Equal(out, m.InfoBytes) {
		t.Errorf("%s: Info.Marshal does not give InfoBytes: %v", name, err)
	}
	var via MetaInfo
	if err := bencode.Unmarshal(data, &via); err != nil {
		t.Errorf("%s: bencode.Unmarshal: %v", name, err)
	} else if via.InfoHashV1() != m.InfoHashV1() || via.Info.NumPieces() != m.Info.NumPieces() || via.Info.Name != m.Info.Name {
		t.Errorf("%s: bencode.Unmarshal decodes another torrent", name)
	}
	n := 0
	for f := range m.Info.Walk() {
		if f.Length < 0 || len(f.Path) == 0 {
			t.Errorf("%s: Walk gives %+v", name, f)
		}
		n++
	}
	if n == 0 {
		t.Errorf("%s: no files", name)
	}
}

func TestRoundTripTestdata(t *testing.T) {
	for name := range testdataHashes {
		data := readTestdata(t, name)
		checkRoundTrip(t, name, data, mustParse(t, data))
	}
}

// Every valid file of the shared corpus decodes and encodes back to the
// same bytes, or is rejected with an *Error (as libtorrent rejects it:
// see cmd/b14fs's TestShowMatchesLibtorrent); every file of edge/ and
// malformed/ is rejected, never with a panic.
func TestCorpus(t *testing.T) {
	dir := shareddata.Dir(t, "bencode")
	for _, class := range []string{"valid", "edge", "malformed"} {
		files, _ := filepath.Glob(filepath.Join(dir, class, "*"))
		ok := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse(data)
			var se *bencode.SyntaxError
			var te *Error
			switch {
			case err == nil && class != "valid":
				t.Errorf("%s/%s: accepted", class, filepath.Base(f))
			case err == nil:
				ok++
				checkRoundTrip(t, filepath.Base(f), data, m)
			case class == "valid" && !errors.As(err, &te):
				t.Errorf("%s/%s: %v, want an *Error", class, filepath.Base(f), err)
			case !errors.As(err, &te) && !errors.As(err, &se):
				t.Errorf("%s/%s: %T %v", class, filepath.Base(f), err, err)
			}
		}
		t.Logf("%s: %d of %d files read", class, ok, len(files))
	}
}

const (
	hash20  = "aaaaaaaaaaaaaaaaaaaa"
	single  = "d4:infod6:lengthi5e4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee"
	root32  = "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"
	v2small = "d4:infod9:file treed1:ad0:d6:lengthi5e11:pieces root32:" + root32 + "eee12:meta versioni2e4:name1:d12:piece lengthi16384eee"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		field    string // "" for a *bencode.SyntaxError
		offset   int64
	}{
		{"empty", "", "", 0},
		{"not bencode", "x", "", 0},
		{"trailing data", single + "\n", "", int64(len(single))},
		{"unsorted keys", "d4:infod4:name1:a6:lengthi5eee", "", 17},
		{"not a dictionary", "le", "metainfo", 0},
		{"no info", "d8:announce1:xe", "info", 0},
		{"info a list", "d4:infolee", "info", 7},
		{"name an integer", "d4:infod4:namei5eee", "info.name", 14},
		{"no name", "d4:infod12:piece lengthi16384eee", "info.name", 7},
		{"no piece length", "d4:infod4:name1:aee", "info.piece length", 7},
		{"zero piece length", "d4:infod4:name1:a12:piece lengthi0eee", "info.piece length", 32},
		{"neither v1 nor v2", "d4:infod4:name1:a12:piece lengthi16384eee", "info", 7},
		{"short pieces", "d4:infod6:lengthi5e4:name1:a12:piece lengthi16384e6:pieces3:abcee", "info.pieces", 58},
		{"too many pieces", "d4:infod6:lengthi5e4:name1:a12:piece lengthi16384e6:pieces40:" + hash20 + hash20 + "ee", "info.pieces", 58},
		{"empty content", "d4:infod6:lengthi0e4:name1:a12:piece lengthi16384e6:pieces0:ee", "info", 7},
		{"negative length", "d4:infod6:lengthi-5e4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee", "info.length", 16},
		{"length and files", "d4:infod5:filesle6:lengthi5e4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee", "info", 7},
		{"file without length", "d4:infod5:filesld4:pathl1:beee4:name1:a12:piece lengthi16384e6:pieces0:ee", "info.files[0].length", 16},
		{"file path not strings", "d4:infod5:filesld6:lengthi5e4:pathli1eeee4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee", "info.files[0].path", 34},
		{"length overflow", "d4:infod6:lengthi99999999999999999999e4:name1:ae", "info.length", 16},
		{"v2 piece length not a power of two", strings.Replace(v2small, "i16384e", "i20000e", 1), "info.piece length", 132},
		{"v2 no pieces root", "d4:infod9:file treed1:ad0:d6:lengthi5eeee12:meta versioni2e4:name1:d12:piece lengthi16384eee", "info.file tree[\"a\"].pieces root", 26},
		{"v2 empty directory", "d4:infod9:file treed1:adee12:meta versioni2e4:name1:d12:piece lengthi16384eee", "info.file tree[\"a\"]", 23},
		{"v2 file with other keys", "d4:infod9:file treed1:ad0:d6:lengthi0ee1:bd0:d6:lengthi0eeeee12:meta versioni2e4:name1:d12:piece lengthi16384eee", "info.file tree[\"a\"]", 39},
		{"v2 no content", "d4:infod9:file treed1:ad0:d6:lengthi0eeee12:meta versioni2e4:name1:d12:piece lengthi16384eee", "info.file tree", 19},
		{"v2 layer for no file", strings.TrimSuffix(v2small, "e") + "12:piece layersd32:" + root32 + "32:" + root32 + "ee", "piece layers", 155},
		{"meta version 3", "d4:infod12:meta versioni3e4:name1:a12:piece lengthi16384eee", "info.meta version", 7},
		{"v1 with meta version 3", "d4:infod6:lengthi5e12:meta versioni3e4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee", "info.meta version", 7},
		{"file tree without meta version", "d4:infod9:file treed1:ad0:d6:lengthi5e11:pieces root32:" + root32 + "eee6:lengthi5e4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee", "info.file tree", 7},
		{"empty name", "d4:infod6:lengthi5e4:name0:12:piece lengthi16384e6:pieces20:" + hash20 + "ee", "info.name", 25},
		{"file with an empty path", "d4:infod5:filesld6:lengthi5e4:pathleee4:name1:d12:piece lengthi16384e6:pieces20:" + hash20 + "ee", "info.files[0].path", 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			var se *bencode.SyntaxError
			var te *Error
			switch {
			case err == nil:
				t.Fatal("accepted")
			case tt.field == "" && errors.As(err, &se):
				if se.Offset != tt.offset {
					t.Errorf("offset %d, want %d: %v", se.Offset, tt.offset, err)
				}
			case tt.field != "" && errors.As(err, &te):
				if te.Field != tt.field || te.Offset != tt.offset {
					t.Errorf("field %q at %d, want %q at %d: %v", te.Field, te.Offset, tt.field, tt.offset, err)
				}
				if !strings.Contains(err.Error(), "byte offset") {
					t.Errorf("%v: no byte offset", err)
				}
			default:
				t.Errorf("%T %v", err, err)
			}
		})
	}
}

// TestRangeError checks the message of an integer too large for 64 bits
// where an integer belongs: out of range, not of the wrong type.
func TestRangeError(t *testing.T) {
	_, err := Parse([]byte("d4:infod6:lengthi18446744073709551616e4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee"))
	if err == nil || !strings.Contains(err.Error(), "integer 18446744073709551616 is out of range") {
		t.Errorf("Parse: %v, want an integer out of range", err)
	}
	_, err = Parse([]byte("d4:infod6:length1:54:name1:a12:piece lengthi16384e6:pieces20:" + hash20 + "ee"))
	if err == nil || !strings.Contains(err.Error(), "want an integer, not a string") {
		t.Errorf("Parse: %v, want an integer, not a string", err)
	}
}

func TestLenient(t *testing.T) {
	unsorted := "d4:infod6:lengthi5e4:name1:a6:pieces20:" + hash20 + "12:piece lengthi16384ee8:announce1:xe\n"
	if _, err := Parse([]byte(unsorted)); err == nil {
		t.Fatal("strict Parse accepts unsorted keys")
	}
	var warnings []bencode.Warning
	m, err := ParseWith([]byte(unsorted), bencode.DecodeOptions{Lenient: true, Warn: func(w bencode.Warning) { warnings = append(warnings, w) }})
	if err != nil {
		t.Fatal(err)
	}
	if m.Announce != "x" || m.Info.Length != 5 {
		t.Errorf("%+v", m)
	}
	if want := []bencode.Warning{{Kind: bencode.TrailingSpace, Offset: int64(len(unsorted) - 1), Len: 1}}; !slices.Equal(warnings, want) {
		t.Errorf("warnings %v, want %v", warnings, want)
	}
	// Whitespace before the value is skipped, and reported; the info
	// bytes are where they are.
	warnings = nil
	m2, err := ParseWith([]byte("\r\n"+unsorted), bencode.DecodeOptions{Lenient: true, Warn: func(w bencode.Warning) { warnings = append(warnings, w) }})
	if err != nil || string(m2.InfoBytes) != string(m.InfoBytes) || len(warnings) != 2 || warnings[0] != (bencode.Warning{Kind: bencode.LeadingSpace, Offset: 0, Len: 2}) {
		t.Errorf("leading whitespace: %v, warnings %v", err, warnings)
	}
	// Data after the value is ignored, and reported.
	warnings = nil
	if _, err := ParseWith([]byte(unsorted+"i1e"), bencode.DecodeOptions{Lenient: true, Warn: func(w bencode.Warning) { warnings = append(warnings, w) }}); err != nil ||
		len(warnings) != 2 || warnings[1] != (bencode.Warning{Kind: bencode.IgnoredData, Offset: int64(len(unsorted)), Len: 3}) {
		t.Errorf("ignored data: %v, warnings %v", err, warnings)
	}
	if want := unsorted[7 : strings.Index(unsorted, "ee8:")+2]; string(m.InfoBytes) != want {
		t.Errorf("InfoBytes %q", m.InfoBytes)
	}
}

// Known keys whose values have another form go to Extra, so that the file
// still encodes back to its bytes.
func TestMistypedKept(t *testing.T) {
	in := "d8:announcei5e13:announce-list0:7:comment3:hey4:infod6:lengthi5e4:name1:a12:piece lengthi16384e6:pieces20:" + hash20 +
		"7:privatei2ee8:url-listli-20eee"
	m := mustParse(t, []byte(in))
	if m.Announce != "" || m.AnnounceList != nil || m.URLList != nil || m.Info.Private || m.Comment != "hey" {
		t.Errorf("%+v", m)
	}
	for _, k := range []string{"announce", "announce-list", "url-list"} {
		if m.Extra[k] == nil {
			t.Errorf("Extra[%q] missing", k)
		}
	}
	if string(m.Info.Extra["private"]) != "i2e" {
		t.Errorf("Info.Extra: %q", m.Info.Extra)
	}
	checkRoundTrip(t, "mistyped", []byte(in), m)
}

func TestTrackersAndWebSeeds(t *testing.T) {
	tests := []struct {
		m        MetaInfo
		trackers [][]string
		webSeeds []string
	}{
		{MetaInfo{Announce: "http://a/"}, [][]string{{"http://a/"}}, nil},
		{MetaInfo{Announce: "http://a/", AnnounceList: [][]string{{" udp://b:1 ", ""}, {}, {"http://c/"}}}, [][]string{{"udp://b:1"}, {"http://c/"}}, nil},
		{MetaInfo{Announce: " \t", AnnounceList: [][]string{{""}}}, nil, nil},
		{MetaInfo{URLList: []string{" http://s/ ", ""}}, nil, []string{"http://s/"}},
	}
	for i, tt := range tests {
		if got := tt.m.Trackers(); !slices.EqualFunc(got, tt.trackers, slices.Equal) {
			t.Errorf("%d: Trackers() = %q, want %q", i, got, tt.trackers)
		}
		if got := tt.m.WebSeeds(); !slices.Equal(got, tt.webSeeds) {
			t.Errorf("%d: WebSeeds() = %q, want %q", i, got, tt.webSeeds)
		}
	}
}

func TestMagnet(t *testing.T) {
	tests := []struct{ file, want string }{
		{"transmission-single.torrent", "magnet:?xt=urn:btih:b254591d84a78b75934439c51635a26a6a0e4505&dn=single.bin&tr=udp%3A%2F%2Ftracker.example.org%3A6969%2Fannounce"},
		{"libtorrent-v2-single.torrent", "magnet:?xt=urn:btmh:1220cc382f88e39d9bc2e06a4d5a36d43eca4054a98f689d405fcb0ffbf1b1411fec&dn=single.bin" +
			"&tr=udp%3A%2F%2Ftracker.example.org%3A6969%2Fannounce&tr=http%3A%2F%2Fbackup.example.org%2Fannounce&ws=http%3A%2F%2Fseed.example.org%2Ffiles%2F"},
		{"libtorrent-hybrid.torrent", "magnet:?xt=urn:btih:3b070677395d4d0faee92f46dab340d5edad58a5&xt=urn:btmh:122042c2749edf04ee882dd0e87fda20057fa698a50a0df6e79006424d1736c81f28" +
			"&dn=content&tr=udp%3A%2F%2Ftracker.example.org%3A6969%2Fannounce&tr=http%3A%2F%2Fbackup.example.org%2Fannounce&ws=http%3A%2F%2Fseed.example.org%2Ffiles%2F"},
	}
	for _, tt := range tests {
		if got := mustParse(t, readTestdata(t, tt.file)).Magnet(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.file, got, tt.want)
		}
	}
	m := &MetaInfo{Info: Info{Name: "a b&c/é", PieceLength: 16384, Pieces: []byte{}}}
	if got := m.Magnet(); !strings.HasSuffix(got, "&dn=a%20b%26c%2F%C3%A9") {
		t.Errorf("name escaped as %s", got)
	}
}

func TestLocalPath(t *testing.T) {
	tests := []struct {
		path []string
		want string // "" for none
	}{
		{[]string{"name", "dir", "file.txt"}, "name/dir/file.txt"},
		{[]string{"name", "..", "..", "etc", "passwd"}, "name/etc/passwd"},
		{[]string{"name", "a/b", `c\d`}, "name/a_b/c_d"},
		{[]string{"name", "", ".", "x"}, "name/x"},
		{[]string{"name", " lead", "trail. .", `q?*:"<>|`}, "name/lead/trail/q_______"},
		{[]string{"name", "CON", "nul.txt", "COM10", "LPT1x"}, "name/CON_/nul_.txt/COM10/LPT1x"},
		{[]string{"name", "tab\there"}, "name/tab_here"},
		{[]string{".."}, ""},
		{[]string{"name", ".."}, ""},
		{[]string{"single.iso"}, "single.iso"},
	}
	for _, tt := range tests {
		e := FileEntry{Path: tt.path}
		got, ok := e.LocalPath()
		if !ok {
			got = ""
		}
		if got != tt.want {
			t.Errorf("LocalPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
	for _, p := range [][]string{{"a", ".."}, {""}, {"a/b"}, {"a\x00"}, {}} {
		if _, ok := SafePath(p); ok {
			t.Errorf("SafePath(%q) is true", p)
		}
	}
	// A backslash is a separator on Windows only: elsewhere a file can
	// have it in its name, as torrent create puts it in the torrent.
	if _, ok := SafePath([]string{`a\b`}); ok != (runtime.GOOS != "windows") {
		t.Errorf("SafePath(%q) = %v on %s", `a\b`, ok, runtime.GOOS)
	}
}

func TestWalk(t *testing.T) {
	type entry struct {
		path   string
		length int64
		offset int64
		pad    bool
		root   bool
	}
	tests := []struct {
		file string
		want []entry
	}{
		{"transmission-single.torrent", []entry{{"single.bin", 50000, 0, false, false}}},
		{"libtorrent-v2-single.torrent", []entry{{"single.bin", 50000, 0, false, true}}},
		{"libtorrent-v2.torrent", []entry{
			{"content/a.bin", 100000, 0, false, true}, {"content/dir/b.bin", 40000, 7 * 16384, false, true},
			{"content/dir/c.txt", 1000, 10 * 16384, false, true}, {"content/empty.txt", 0, 11 * 16384, false, false},
			{"content/run.sh", 20000, 11 * 16384, false, true}}},
		{"libtorrent-hybrid.torrent", []entry{
			{"content/a.bin", 100000, 0, false, true}, {"content/.pad/31072", 31072, 100000, true, false},
			{"content/dir/b.bin", 40000, 131072, false, true}, {"content/.pad/25536", 25536, 171072, true, false},
			{"content/dir/c.txt", 1000, 196608, false, true}, {"content/.pad/31768", 31768, 197608, true, false},
			{"content/empty.txt", 0, 229376, false, false}, {"content/run.sh", 20000, 229376, false, true},
			{"content/.pad/12768", 12768, 249376, true, false}}},
	}
	for _, tt := range tests {
		var got []entry
		m := mustParse(t, readTestdata(t, tt.file))
		for f := range m.Info.Walk() {
			got = append(got, entry{strings.Join(f.Path, "/"), f.Length, f.Offset, f.Pad, len(f.PiecesRoot) == 32})
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %v\nwant %v", tt.file, got, tt.want)
		}
	}
}

// A Parse that fails part way through a file tree leaves nothing of its
// input in the decoders' pool.
func TestParseErrorKeepsNothing(t *testing.T) {
	root := strings.Repeat("r", 32)
	in := "d4:infod9:file treed1:ad0:d6:lengthi5e11:pieces root32:" + root + "ee1:bd0:d4:attr1:xeee" +
		"12:meta versioni2e4:name1:d12:piece lengthi16384eee"
	if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), "length") {
		t.Fatalf("got %v, want the missing length", err)
	}
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	if d.data != nil || d.s != nil {
		t.Errorf("the pooled decoder holds its input: %q", d.data)
	}
}

// TestParseEmpty parses inputs that hold no value, leniently too: a lenient
// scan took that for the end of its values and returned io.EOF, which a
// caller takes for a clean end.
func TestParseEmpty(t *testing.T) {
	for _, in := range []string{"", " ", "\n"} {
		for _, o := range []bencode.DecodeOptions{{}, {Lenient: true}} {
			_, err := ParseWith([]byte(in), o)
			var se *bencode.SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("%q, lenient %v: %v, want a *bencode.SyntaxError", in, o.Lenient, err)
			}
		}
	}
}
