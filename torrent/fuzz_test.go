package torrent

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// FuzzParse checks that no input makes Parse panic, that ParseLazy reads
// every input as Parse does, and that what Parse accepts encodes back to
// the same bytes, walks, has info-hashes and a
// magnet link, and verifies against a small file system without a panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.torrent")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{single, v2small, "", "de", "d4:infodee", "d4:infod5:filesld6:lengthi5e4:pathl1:aeee4:name1:n12:piece lengthi16384e6:pieces20:" + hash20 + "ee",
		"d4:infod9:file treed1:ad1:bd0:d6:lengthi0eeeee12:meta versioni2e4:name1:n12:piece lengthi16384eee"} {
		f.Add([]byte(s))
	}
	fsys := fstest.MapFS{"n": {Data: []byte("hello")}, "n/a": {Data: []byte("hello")}, "a": {Data: []byte("x")}}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkLazy(t, "input", data, bencode.DecodeOptions{})
		m, err := Parse(data)
		if err != nil {
			return
		}
		out, err := m.Marshal()
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("Marshal: %v\n in %q\nout %q", err, data, out)
		}
		var via MetaInfo
		if err := bencode.Unmarshal(data, &via); err != nil {
			t.Fatalf("bencode.Unmarshal: %v", err)
		}
		for e := range m.Info.Walk() {
			e.LocalPath()
		}
		m.Magnet()
		m.Info.TotalLength()
		// Verify hashes what the torrent says is there (padding files
		// are zeros), so bound its time.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		Verify(ctx, m, fsys, nil)
	})
}
