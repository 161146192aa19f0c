package fsx_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/b14fs/b14fs/plugins/bencode"
	"github.com/spf13/afero"
)

// Files written through fsx are stored encoded, under the codec's suffix;
// reading them through fsx gives the plain data back.
func Example() {
	base := afero.NewMemMapFs()
	fsys, err := fsx.New(base, base16384.NewCodec())
	if err != nil {
		fmt.Println(err)
		return
	}

	if err := afero.WriteFile(fsys, "notes.txt", []byte("hello, world"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	plain, _ := afero.ReadFile(fsys, "notes.txt")
	stored, _ := afero.ReadFile(base, "notes.txt.b14")
	info, _ := fsys.Stat("notes.txt")
	fmt.Printf("shown:  %s (%d bytes)\n", plain, info.Size())
	fmt.Printf("stored: % x\n", stored)
	// Output:
	// shown:  hello, world (12 bytes)
	// stored: 68 19 64 c6 7f bc 7a 20 6b db 85 26 7f 90 3d 05
}

// WithExtension shows a folder of .torrent files (bencode) as .json files.
func ExampleWithExtension() {
	base := afero.NewMemMapFs()
	afero.WriteFile(base, "demo.torrent", []byte("d8:announce14:http://tracker4:sizei42ee"), 0o644)
	fsys, err := fsx.New(base, bencode.NewCodec(), fsx.WithExtension(".torrent", ".json"))
	if err != nil {
		fmt.Println(err)
		return
	}

	names, _ := afero.ReadDir(fsys, ".")
	for _, info := range names {
		fmt.Println(info.Name())
	}
	shown, _ := afero.ReadFile(fsys, "demo.json")
	fmt.Print(string(shown))

	afero.WriteFile(fsys, "new.json", []byte(`{"b":[1,2],"a":"x"}`), 0o644)
	stored, _ := afero.ReadFile(base, "new.torrent")
	fmt.Println(string(stored))
	// Output:
	// demo.json
	// {"announce":"http://tracker","size":42}
	// d1:a1:x1:bli1ei2eee
}

// Appending to a base16384 file rewrites only the stored file's last block.
func ExampleFs_OpenFile_append() {
	fsys, err := fsx.New(afero.NewMemMapFs(), base16384.NewCodec())
	if err != nil {
		fmt.Println(err)
		return
	}
	afero.WriteFile(fsys, "log", []byte("first line\n"), 0o644)

	f, err := fsys.OpenFile("log", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	io.WriteString(f, "second line\n")
	if err := f.Close(); err != nil {
		fmt.Println(err)
		return
	}
	log, _ := afero.ReadFile(fsys, "log")
	fmt.Print(string(log))
	// Output:
	// first line
	// second line
}

// ShowUnmapped shows the files the mapping does not cover as they are.
func ExampleShowUnmapped() {
	base := afero.NewMemMapFs()
	afero.WriteFile(base, "README", []byte("stored as is"), 0o644)
	fsys, err := fsx.New(base, base16384.NewCodec(), fsx.ShowUnmapped())
	if err != nil {
		fmt.Println(err)
		return
	}
	afero.WriteFile(fsys, "secret", []byte("stored encoded"), 0o644)

	infos, _ := afero.ReadDir(fsys, ".")
	for _, info := range infos {
		content, _ := afero.ReadFile(fsys, info.Name())
		fmt.Printf("%s: %s\n", info.Name(), content)
	}
	names, _ := afero.ReadDir(base, ".")
	var stored []string
	for _, info := range names {
		stored = append(stored, info.Name())
	}
	fmt.Println("stored:", strings.Join(stored, " "))
	// Output:
	// README: stored as is
	// secret: stored encoded
	// stored: README secret.b14
}

// A base16384 file can be read at any offset: only the blocks holding the
// bytes asked for are read and decoded.
func ExampleFs_Open_readAt() {
	fsys, err := fsx.New(afero.NewMemMapFs(), base16384.NewCodec())
	if err != nil {
		fmt.Println(err)
		return
	}
	afero.WriteFile(fsys, "digits", []byte(strings.Repeat("0123456789", 100000)), 0o644)

	f, err := fsys.Open("digits")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	p := make([]byte, 10)
	if _, err := f.ReadAt(p, 987654); err != nil {
		fmt.Println(err)
		return
	}
	info, _ := f.Stat()
	fmt.Printf("%s of %d bytes\n", p, info.Size())
	// Output:
	// 4567890123 of 1000000 bytes
}
