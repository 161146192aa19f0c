package torrent_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"testing/fstest"

	"github.com/b14fs/b14fs/torrent"
)

func ExampleParse_infoHash() {
	data, err := os.ReadFile("testdata/libtorrent-hybrid.torrent")
	if err != nil {
		log.Fatal(err)
	}
	m, err := torrent.Parse(data) // one call: the fields and the exact info bytes
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("v1 %x\n", m.InfoHashV1()) // SHA-1 of m.InfoBytes
	fmt.Printf("v2 %x\n", m.InfoHashV2()) // SHA-256 of m.InfoBytes
	// Output:
	// v1 3b070677395d4d0faee92f46dab340d5edad58a5
	// v2 42c2749edf04ee882dd0e87fda20057fa698a50a0df6e79006424d1736c81f28
}

func ExampleMetaInfo_Magnet() {
	data, err := os.ReadFile("testdata/transmission-single.torrent")
	if err != nil {
		log.Fatal(err)
	}
	m, err := torrent.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Magnet())
	// Output: magnet:?xt=urn:btih:b254591d84a78b75934439c51635a26a6a0e4505&dn=single.bin&tr=udp%3A%2F%2Ftracker.example.org%3A6969%2Fannounce
}

func ExampleInfo_Walk() {
	data, err := os.ReadFile("testdata/libtorrent-hybrid.torrent")
	if err != nil {
		log.Fatal(err)
	}
	m, err := torrent.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	for f := range m.Info.Walk() {
		if f.Pad {
			continue // padding files (BEP 47) are zeros that no one stores
		}
		fmt.Printf("%-18s %6d bytes at %6d, first piece %d\n", strings.Join(f.Path, "/"), f.Length, f.Offset, f.Offset/m.Info.PieceLength)
	}
	// Output:
	// content/a.bin      100000 bytes at      0, first piece 0
	// content/dir/b.bin   40000 bytes at 131072, first piece 4
	// content/dir/c.txt    1000 bytes at 196608, first piece 6
	// content/empty.txt       0 bytes at 229376, first piece 7
	// content/run.sh      20000 bytes at 229376, first piece 7
}

func ExampleVerify() {
	files := fstest.MapFS{"hello.txt": {Data: []byte("hello, world\n")}}
	m, err := torrent.Create(context.Background(), files, "hello.txt", torrent.CreateOptions{Version: torrent.Hybrid})
	if err != nil {
		log.Fatal(err)
	}
	files["hello.txt"].Data[0] = 'j' // the data goes bad
	r, err := torrent.Verify(context.Background(), m, files, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range r.Files {
		fmt.Println(f.Path, f.Status, "bad pieces:", f.Bad)
	}
	// Output: [hello.txt] incomplete bad pieces: [{0 1}]
}
