// Package vectors gives tests the reference base16384 vectors without the
// shared test data: testdata/base16384.tsv is the MANIFEST.tsv of
// ../shared/testdata/base16384 (made with the reference Go implementation,
// go-base16384 @ 313ea7a), which names each vector, its input's length and
// SHA-256, and its encoding's length and SHA-256. The inputs follow from
// their names, so they are generated here and checked against their
// hashes; a test encodes them and compares the encoding's hash with the
// reference's.
package vectors

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

//go:embed testdata/base16384.tsv
var manifest []byte

// Manifest returns the embedded copy of the reference MANIFEST.tsv.
func Manifest() []byte { return bytes.Clone(manifest) }

// A Vector is a reference base16384 vector: an input and what its raw
// UTF-16BE encoding must be.
type Vector struct {
	Name      string
	Plain     []byte
	EncLen    int
	EncSHA256 [sha256.Size]byte
}

// Base16384 returns every vector of the manifest, with its input generated
// from its name and checked against the manifest's hash.
func Base16384() ([]Vector, error) {
	var vs []Vector
	sc := bufio.NewScanner(bytes.NewReader(manifest))
	sc.Scan() // the header line
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 5 {
			return nil, fmt.Errorf("manifest line %q: want 5 fields", sc.Text())
		}
		v := Vector{Name: f[0]}
		var err error
		if v.Plain, err = Generate(f[0]); err != nil {
			return nil, err
		}
		if f[3] != hashOf(v.Plain) {
			return nil, fmt.Errorf("%s: the generated input does not have the manifest's SHA-256", f[0])
		}
		if v.EncLen, err = strconv.Atoi(f[2]); err != nil {
			return nil, fmt.Errorf("%s: encoded length %q: %v", f[0], f[2], err)
		}
		sum, err := hex.DecodeString(f[4])
		if err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("%s: bad SHA-256 %q", f[0], f[4])
		}
		copy(v.EncSHA256[:], sum)
		vs = append(vs, v)
	}
	return vs, sc.Err()
}

func hashOf(p []byte) string {
	sum := sha256.Sum256(p)
	return hex.EncodeToString(sum[:])
}

// Generate returns the input of the vector of that name, by the rules of the
// shared data's README: rand_N is N bytes of successive Uint64 values of
// rand.New(rand.NewPCG(1, N)), little-endian; zeros_N and ff_N are N bytes
// of 0x00 and 0xFF; ascii_K is the first K characters of "12345678".
func Generate(name string) ([]byte, error) {
	kind, num, ok := strings.Cut(name, "_")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 0 {
		return nil, fmt.Errorf("vector %q: not KIND_N", name)
	}
	switch kind {
	case "rand":
		r := rand.New(rand.NewPCG(1, uint64(n)))
		p := make([]byte, (n+7)/8*8)
		for i := 0; i < len(p); i += 8 {
			binary.LittleEndian.PutUint64(p[i:], r.Uint64())
		}
		return p[:n], nil
	case "zeros":
		return make([]byte, n), nil
	case "ff":
		return bytes.Repeat([]byte{0xFF}, n), nil
	case "ascii":
		if n > 8 {
			return nil, fmt.Errorf("vector %q: more than 8 characters", name)
		}
		return []byte("12345678"[:n]), nil
	}
	return nil, fmt.Errorf("vector %q: unknown kind %q", name, kind)
}
