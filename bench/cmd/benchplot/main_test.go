package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is go test -bench output of both kinds of sub-benchmark names.
const sample = `goos: linux
cpu: AMD EPYC 7B13
BenchmarkEncode/impl=base64/size=16-2         	 1000	  20.0 ns/op	 800.00 MB/s
BenchmarkEncode/impl=base64/size=16-2         	 1000	  20.0 ns/op	1000.00 MB/s
BenchmarkEncode/impl=base64/size=16-2         	 1000	  20.0 ns/op	 900.00 MB/s
BenchmarkEncode/impl=base64/size=4K-2         	 1000	  20.0 ns/op	1400.00 MB/s
BenchmarkEncode/impl=EncodeTo/size=4K-2       	 1000	  20.0 ns/op	30000.00 MB/s	 0 B/op
BenchmarkEncode/impl=EncodeTo/size=16-2       	 1000	  20.0 ns/op	 600.00 MB/s
BenchmarkDecode/impl=base64/size=16-2         	 1000	  20.0 ns/op	 500.00 MB/s
BenchmarkEncode/avx2/1MiB-2                   	 1000	  20.0 ns/op	28000.00 MB/s
BenchmarkEncode/noMBs/16-2                    	 1000	  20.0 ns/op
PASS
`

func TestParseBench(t *testing.T) {
	got, err := parseBench(strings.NewReader(sample), "BenchmarkEncode")
	if err != nil {
		t.Fatal(err)
	}
	want := []series{
		{"base64", []point{{16, 0.9}, {4096, 1.4}}},
		{"EncodeTo", []point{{16, 0.6}, {4096, 30}}},
		{"avx2", []point{{1 << 20, 28}}},
	}
	if len(got) != len(want) {
		t.Fatalf("parsed %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].name != want[i].name || len(got[i].points) != len(want[i].points) {
			t.Fatalf("series %d: %+v, want %+v", i, got[i], want[i])
		}
		for j, p := range want[i].points {
			if g := got[i].points[j]; g.size != p.size || g.gbs < p.gbs-1e-9 || g.gbs > p.gbs+1e-9 {
				t.Errorf("%s point %d: %+v, want %+v", want[i].name, j, g, p)
			}
		}
	}
	if _, err := parseBench(strings.NewReader("BenchmarkEncode/a/huge-2 1 1 ns/op 1 MB/s\n"), "BenchmarkEncode"); err == nil {
		t.Error("a size that is no size: no error")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"16": 16, "4K": 4096, "4KiB": 4096, "1M": 1 << 20, "1MiB": 1 << 20, "7B": 7} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestDrawFigure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.svg")
	f := figure{run: codecRun, fn: "BenchmarkEncode", title: "test", skip: []string{"avx2"}}
	if err := drawFigure(f, []byte(sample), path); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<svg", "base64", "EncodeTo", "AMD EPYC 7B13", "16 B", "4 KiB", "GB/s"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("the SVG lacks %q", s)
		}
	}
	if strings.Contains(string(svg), ">avx2<") {
		t.Error("the SVG shows a skipped implementation")
	}
	f.fn = "BenchmarkNone"
	if err := drawFigure(f, []byte(sample), path); err == nil {
		t.Error("a figure without results: no error")
	}
}

func TestSizeLabel(t *testing.T) {
	for n, want := range map[int64]string{16: "16 B", 4096: "4 KiB", 1 << 20: "1 MiB", 1000: "1000 B"} {
		if got := sizeLabel(n); got != want {
			t.Errorf("sizeLabel(%d) = %q, want %q", n, got, want)
		}
	}
}
