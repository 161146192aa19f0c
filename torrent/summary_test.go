package torrent_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/b14fs/b14fs/plugins/bencode"
	"github.com/b14fs/b14fs/torrent"
)

// TestSummaryJSONGolden pins the JSON form of a Summary, a stable format:
// every field's name, and the fields left out when empty, on a hybrid
// torrent with padding files and attributes.
func TestSummaryJSONGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/libtorrent-hybrid.torrent")
	if err != nil {
		t.Fatal(err)
	}
	m, err := torrent.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/libtorrent-hybrid.summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := torrent.WriteSummaryJSON(&got, m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("WriteSummaryJSON:\n%s\nwant (testdata/libtorrent-hybrid.summary.json):\n%s", got.Bytes(), want)
	}
}

// TestWriteSummaryJSON checks that the files written one at a time give
// the bytes of the whole Summary encoded at once, on every torrent of
// testdata read lazily, and on a directory of no files.
func TestWriteSummaryJSON(t *testing.T) {
	files, err := filepath.Glob("testdata/*.torrent")
	if err != nil || len(files) == 0 {
		t.Fatalf("no torrents in testdata: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := torrent.ParseLazy(data, bencode.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkSummaryJSON(t, file, m)
	}
	empty := &torrent.MetaInfo{Info: torrent.Info{Name: "empty", PieceLength: 16384, Pieces: []byte{}, Files: []torrent.File{}}}
	checkSummaryJSON(t, "a directory of no files", empty)
}

// checkSummaryJSON checks WriteSummaryJSON on m against the Summary of m
// with its files, encoded at once.
func checkSummaryJSON(t *testing.T, name string, m *torrent.MetaInfo) {
	t.Helper()
	s := torrent.Summarize(m)
	if len(s.Files) != 0 {
		t.Errorf("%s: Summarize: %d files, want none", name, len(s.Files))
	}
	for f := range m.Info.Walk() {
		s.Files = append(s.Files, torrent.SummarizeFile(&f))
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := torrent.WriteSummaryJSON(&got, m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("%s: WriteSummaryJSON:\n%s\nwant:\n%s", name, got.Bytes(), want.Bytes())
	}
}

func TestTextJSON(t *testing.T) {
	for _, tc := range []struct {
		text torrent.Text
		want string
	}{
		{"plain <&>", `"plain \u003c\u0026\u003e"`},
		{"caf\xe9", `"base64:Y2Fm6Q=="`},
		{"base64:x", `"base64:YmFzZTY0Ong="`},
		{"", `""`},
	} {
		got, err := json.Marshal(tc.text)
		if err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%q) = %s, %v; want %s", tc.text, got, err, tc.want)
		}
	}
}
