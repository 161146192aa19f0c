package bench

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/b14fs/b14fs/internal/testing/shareddata"

	anacrolix "github.com/anacrolix/torrent/bencode"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// corpus returns the contents of the files in one class of the bencode
// corpus (valid, edge, malformed), keyed by name.
func corpus(tb testing.TB, class string) map[string][]byte {
	files, err := filepath.Glob(filepath.Join(shareddata.Dir(tb, "bencode"), class, "*"))
	if err != nil || len(files) == 0 {
		tb.Skipf("no bencode %s corpus", class)
	}
	m := make(map[string][]byte, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		m[filepath.Base(f)] = data
	}
	return m
}

// torrent is the part of a metainfo file that clients read, tagged for both
// libraries (they share the tag syntax).
type torrent struct {
	Announce     string      `bencode:"announce,omitempty"`
	AnnounceList [][]string  `bencode:"announce-list,omitempty"`
	Comment      string      `bencode:"comment,omitempty"`
	CreatedBy    string      `bencode:"created by,omitempty"`
	CreationDate int64       `bencode:"creation date,omitempty"`
	Info         torrentInfo `bencode:"info"`
}

type torrentInfo struct {
	Files       []torrentFile `bencode:"files,omitempty"`
	Length      int64         `bencode:"length,omitempty"`
	Name        string        `bencode:"name"`
	PieceLength int64         `bencode:"piece length"`
	Pieces      []byte        `bencode:"pieces"`
}

type torrentFile struct {
	Length int64    `bencode:"length"`
	Path   []string `bencode:"path"`
}

// krpc is a DHT message (BEP 5).
type krpc struct {
	A *krpcArgs `bencode:"a,omitempty"`
	Q string    `bencode:"q,omitempty"`
	T string    `bencode:"t"`
	Y string    `bencode:"y"`
}

type krpcArgs struct {
	ID     string `bencode:"id"`
	Target string `bencode:"target,omitempty"`
}

var dhtQuery = []byte("d1:ad2:id20:abcdefghij01234567896:target20:mnopqrstuvwxyz123456e1:q9:find_node1:t2:aa1:y1:qe")

// lib is one library's API, as the benchmarks use it.
type lib struct {
	name      string
	unmarshal func([]byte, any) error
	marshal   func(any) ([]byte, error)
	encoder   func(io.Writer) func(any) error // an Encoder's Encode method
}

var libs = []lib{
	{"b14fs", bencode.Unmarshal, bencode.Marshal, func(w io.Writer) func(any) error { return bencode.NewEncoder(w).Encode }},
	{"anacrolix", anacrolix.Unmarshal, anacrolix.Marshal, func(w io.Writer) func(any) error { return anacrolix.NewEncoder(w).Encode }},
}

// structCorpus returns the valid files that both libraries decode into a
// torrent, as files and as decoded values.
func structCorpus(b *testing.B) ([][]byte, []torrent) {
	var files [][]byte
	var values []torrent
	for _, data := range corpus(b, "valid") {
		var t1, t2 torrent
		if bencode.Unmarshal(data, &t1) != nil || anacrolix.Unmarshal(data, &t2) != nil {
			continue
		}
		files, values = append(files, data), append(values, t1)
	}
	return files, values
}

func totalSize(files [][]byte) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f))
	}
	return n
}

// anyCorpus returns the valid files that both libraries decode.
func anyCorpus(b *testing.B) [][]byte {
	var files [][]byte
	for _, data := range corpus(b, "valid") {
		var v1, v2 any
		if bencode.Unmarshal(data, &v1) == nil && anacrolix.Unmarshal(data, &v2) == nil {
			files = append(files, data)
		}
	}
	return files
}

// measure runs op, one iteration's work, as the sub-benchmark name, with
// size bytes an iteration.
func measure(b *testing.B, name string, size int64, op func() error) {
	b.Run(name, func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if err := op(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecodeAny(b *testing.B) {
	files := anyCorpus(b)
	for _, l := range libs {
		measure(b, "lib="+l.name, totalSize(files), func() error {
			for _, f := range files {
				var v any
				if err := l.unmarshal(f, &v); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

func BenchmarkDecodeTorrent(b *testing.B) {
	files, _ := structCorpus(b)
	for _, l := range libs {
		measure(b, "lib="+l.name, totalSize(files), func() error {
			for _, f := range files {
				var t torrent
				if err := l.unmarshal(f, &t); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

func BenchmarkEncodeTorrent(b *testing.B) {
	_, values := structCorpus(b)
	var size int64
	for i := range values {
		out, _ := bencode.Marshal(&values[i])
		size += int64(len(out))
	}
	for _, l := range libs {
		measure(b, "lib="+l.name, size, func() error {
			for i := range values {
				if _, err := l.marshal(&values[i]); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// anyValues returns what library l decodes files into.
func anyValues(b *testing.B, l lib, files [][]byte) []any {
	values := make([]any, len(files))
	for i, f := range files {
		if err := l.unmarshal(f, &values[i]); err != nil {
			b.Fatal(err)
		}
	}
	return values
}

// BenchmarkEncodeAny encodes what each library decodes the valid corpus into.
func BenchmarkEncodeAny(b *testing.B) {
	files := anyCorpus(b)
	for _, l := range libs {
		values := anyValues(b, l, files)
		measure(b, "lib="+l.name, totalSize(files), func() error {
			for _, v := range values {
				if _, err := l.marshal(v); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// BenchmarkEncodeAnyStream encodes as BenchmarkEncodeAny does, through each
// library's Encoder to io.Discard: no output is allocated.
func BenchmarkEncodeAnyStream(b *testing.B) {
	files := anyCorpus(b)
	for _, l := range libs {
		values := anyValues(b, l, files)
		encode := l.encoder(io.Discard)
		measure(b, "lib="+l.name, totalSize(files), func() error {
			for _, v := range values {
				if err := encode(v); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

func BenchmarkDHT(b *testing.B) {
	size := int64(len(dhtQuery))
	for _, l := range libs {
		measure(b, "op=decode/lib="+l.name, size, func() error {
			var m krpc
			return l.unmarshal(dhtQuery, &m)
		})
	}
	var m krpc
	if err := bencode.Unmarshal(dhtQuery, &m); err != nil {
		b.Fatal(err)
	}
	for _, l := range libs {
		measure(b, "op=encode/lib="+l.name, size, func() error {
			_, err := l.marshal(&m)
			return err
		})
	}
}

// reportCPU reports the CPU time per operation since start, a figure that,
// unlike sec/op, does not grow when other processes take the machine's
// cores.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 && b.N > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

// TestRejectsWhatAnacrolixRejects checks that every corpus file anacrolix
// rejects is rejected here too, except for valid files deeper than
// anacrolix's nesting limit of 64.
func TestRejectsWhatAnacrolixRejects(t *testing.T) {
	for _, class := range []string{"valid", "edge", "malformed"} {
		for name, data := range corpus(t, class) {
			var theirs, ours any
			errTheirs := anacrolix.Unmarshal(data, &theirs)
			errOurs := bencode.Unmarshal(data, &ours)
			if errTheirs == nil || errOurs != nil {
				continue
			}
			var syntax *anacrolix.SyntaxError
			if class != "malformed" && errors.As(errTheirs, &syntax) && strings.Contains(syntax.Error(), "nesting depth") {
				continue
			}
			t.Errorf("%s/%s: anacrolix rejects it (%v), b14fs accepts it", class, name, errTheirs)
		}
	}
}

// TestSameValues checks that both libraries decode the valid corpus into the
// same torrents.
func TestSameValues(t *testing.T) {
	for name, data := range corpus(t, "valid") {
		var ours, theirs torrent
		if bencode.Unmarshal(data, &ours) != nil || anacrolix.Unmarshal(data, &theirs) != nil {
			continue
		}
		a, _ := bencode.Marshal(&ours)
		b, _ := bencode.Marshal(&theirs)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: decoded differently", name)
		}
	}
}
