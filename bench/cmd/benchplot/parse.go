package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A point is one benchmark's throughput at one input size, the median of
// its runs.
type point struct {
	size int64   // input bytes
	gbs  float64 // GB/s (10^9 bytes a second)
}

// A series is the points of one implementation, by increasing size.
type series struct {
	name   string
	points []point
}

// parseBench reads `go test -bench` output and returns, for the benchmark
// function fn (such as "BenchmarkEncode"), one series per implementation,
// in the order they first appear. Sub-benchmark names end in IMPL/SIZE
// ("impl=EncodeTo/size=4K" or "avx2/4KiB"); lines without a MB/s figure
// are skipped.
func parseBench(r io.Reader, fn string) ([]series, error) {
	runs := map[string]map[int64][]float64{}
	var order []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], fn+"/") {
			continue
		}
		mbs := slices.Index(f, "MB/s")
		if mbs < 1 {
			continue
		}
		name := f[0][len(fn)+1:]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // the GOMAXPROCS suffix
		}
		parts := strings.Split(name, "/")
		if len(parts) < 2 {
			continue
		}
		impl := strings.TrimPrefix(parts[len(parts)-2], "impl=")
		size, err := parseSize(strings.TrimPrefix(parts[len(parts)-1], "size="))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f[0], err)
		}
		v, err := strconv.ParseFloat(f[mbs-1], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f[0], err)
		}
		if runs[impl] == nil {
			runs[impl] = map[int64][]float64{}
			order = append(order, impl)
		}
		runs[impl][size] = append(runs[impl][size], v/1000)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []series
	for _, impl := range order {
		s := series{name: impl}
		for size, vs := range runs[impl] {
			s.points = append(s.points, point{size, median(vs)})
		}
		slices.SortFunc(s.points, func(a, b point) int { return int(a.size - b.size) })
		out = append(out, s)
	}
	return out, nil
}

// parseSize parses a size such as 16, 4K, 4KiB, 1M or 1MiB.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = rest, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %v", s, err)
	}
	return n * mult, nil
}

// median returns the median of vs, which is not empty.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
