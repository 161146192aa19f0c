package codectest

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/b14fs/b14fs/internal/testing/longtest"
)

// TestEdgeByteReader checks the reader of long sources: it gives the
// source whole, a byte at a time at both ends.
func TestEdgeByteReader(t *testing.T) {
	src := bytes.Repeat([]byte("0123456789"), 3*oneByteEdges/10)
	r := &edgeByteReader{r: bytes.NewReader(src), n: len(src)}
	var got []byte
	var sizes []int
	buf := make([]byte, 1000)
	for {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		sizes = append(sizes, n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, src) {
		t.Fatalf("read %d bytes, not the %d of the source", len(got), len(src))
	}
	for _, part := range [][]int{sizes[:oneByteEdges], sizes[len(sizes)-1-oneByteEdges : len(sizes)-1]} {
		for _, n := range part {
			if n != 1 {
				t.Fatalf("a read of %d bytes at an end of the source", n)
			}
		}
	}
	if len(sizes) > 2*oneByteEdges+1+2*len(src)/len(buf) {
		t.Errorf("%d reads: the middle was read a byte at a time too", len(sizes))
	}
	if err := iotest.TestReader(&edgeByteReader{r: bytes.NewReader(src), n: len(src)}, src); err != nil {
		t.Error(err)
	}
}

// TestLong checks that the suite's long checks answer to the project's
// switch.
func TestLong(t *testing.T) {
	for _, v := range []string{"1", "0", ""} {
		t.Setenv(longtest.EnvVar, v)
		if long() != longtest.Enabled() {
			t.Errorf("%s=%q: long() = %v, longtest.Enabled() = %v", longtest.EnvVar, v, long(), longtest.Enabled())
		}
	}
}
