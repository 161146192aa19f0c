package bencode_test

import (
	"crypto/sha1"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/b14fs/b14fs/plugins/bencode"
)

const torrentFile = "d8:announce23:http://tracker/announce4:infod6:lengthi1024e4:name8:file.iso" +
	"12:piece lengthi16384e6:pieces20:\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14ee"

func ExampleUnmarshal() {
	var torrent struct {
		Announce string `bencode:"announce"`
		Info     struct {
			Name        string `bencode:"name"`
			Length      int64  `bencode:"length"`
			PieceLength int64  `bencode:"piece length"`
			Pieces      []byte `bencode:"pieces"`
		} `bencode:"info"`
	}
	if err := bencode.Unmarshal([]byte(torrentFile), &torrent); err != nil {
		log.Fatal(err)
	}
	fmt.Println(torrent.Announce, torrent.Info.Name, torrent.Info.Length, len(torrent.Info.Pieces)/20, "piece")
	// Output: http://tracker/announce file.iso 1024 1 piece
}

// The info-hash of a torrent is the SHA-1 of its info dictionary's exact
// bytes, which a RawMessage keeps.
func ExampleRawMessage_infoHash() {
	var torrent struct {
		Info bencode.RawMessage `bencode:"info"`
	}
	if err := bencode.Unmarshal([]byte(torrentFile), &torrent); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%x\n", sha1.Sum(torrent.Info))
	// Output: 9df99b85a0d1810641b779648d2a793d9b81f7d5
}

func ExampleMarshal() {
	msg := map[string]any{
		"t": "aa",
		"y": "q",
		"q": "ping",
		"a": map[string]any{"id": "abcdefghij0123456789"},
	}
	b, err := bencode.Marshal(msg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", b)
	// Output: d1:ad2:id20:abcdefghij0123456789e1:q4:ping1:t2:aa1:y1:qe
}

func ExampleDecoder() {
	stream := strings.NewReader("d1:ti1ee d1:ti2ee")
	dec := bencode.NewDecoder(io.MultiReader(stream))
	for {
		var msg struct {
			T int `bencode:"t"`
		}
		err := dec.Decode(&msg)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println("message", msg.T)
	}
	// Output:
	// message 1
	// bencode: invalid byte ' ' at the start of a value at byte offset 8
}

func ExampleScanner() {
	s := bencode.NewScanner([]byte("d4:spaml1:a1:bee"))
	for {
		tok, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d %v %q\n", tok.Offset, tok.Kind, tok.Value)
	}
	// Output:
	// 0 dictionary ""
	// 1 key "spam"
	// 7 list ""
	// 8 string "a"
	// 11 string "b"
	// 14 end ""
	// 15 end ""
}

func ExampleCodec() {
	c := bencode.NewCodec()
	r := c.NewDecodeReader(strings.NewReader("d4:name8:file.iso6:pieces4:\xff\xfe\x00\x01e"))
	if _, err := io.Copy(os.Stdout, r); err != nil {
		log.Fatal(err)
	}
	// Output: {"name":"file.iso","pieces":"base64://4AAQ=="}
}

// A Value reads a torrent without a Go type for it, and at a fraction of
// the cost of decoding it into an `any`.
func ExampleValue() {
	var torrent bencode.Value
	if err := bencode.Unmarshal([]byte(torrentFile), &torrent); err != nil {
		log.Fatal(err)
	}
	info := torrent.Get("info")
	length, _ := info.Get("length").Int()
	fmt.Println(torrent.Get("announce").Text(), info.Get("name").Text(), length)
	fmt.Println(info.Get("pieces").Len()/20, "piece,", info.Get("files").IsValid(), "files")
	for key, value := range info.Entries() {
		fmt.Printf("%s: %v\n", key, value.Kind())
	}
	fmt.Printf("%x\n", sha1.Sum(info.Raw())) // the info-hash
	// Output:
	// http://tracker/announce file.iso 1024
	// 1 piece, false files
	// length: integer
	// name: string
	// piece length: integer
	// pieces: string
	// 9df99b85a0d1810641b779648d2a793d9b81f7d5
}
