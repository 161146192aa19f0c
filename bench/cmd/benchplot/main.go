// Command benchplot runs b14fs's base16384 benchmarks and draws their
// results as SVG plots for docs/benchmarks.md and the README:
//
//	cd bench && go run ./cmd/benchplot            # run the benchmarks, then draw
//	cd bench && go run ./cmd/benchplot -draw-only # redraw from the saved output
//
// It writes the raw `go test -bench` output next to the plots, in
// docs/plots/*.txt, so that every figure can be checked and redrawn.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A run is one benchmark package whose output a plot is drawn from.
type run struct {
	pkg  string // relative to the repository's root
	file string // the saved output, in the plots directory
}

// A figure is one SVG plot: a benchmark function of a run.
type figure struct {
	run   run
	fn    string
	file  string
	title string
	skip  []string // implementations left out
}

var (
	codecRun  = run{"./plugins/base16384", "base16384.txt"}
	kernelRun = run{"./plugins/base16384/internal/kernel", "kernel.txt"}

	figures = []figure{
		{codecRun, "BenchmarkEncode", "base16384-encode.svg", "base16384 encode against encoding/base64", nil},
		{codecRun, "BenchmarkDecode", "base16384-decode.svg", "base16384 decode against encoding/base64", nil},
		{kernelRun, "BenchmarkEncode", "kernel-encode.svg", "base16384 block kernels, encode", []string{"selected"}},
		{kernelRun, "BenchmarkDecode", "kernel-decode.svg", "base16384 block kernels, decode", []string{"selected"}},
	}
)

func main() {
	root := flag.String("root", "..", "the b14fs repository")
	drawOnly := flag.Bool("draw-only", false, "redraw from the saved benchmark output, without running the benchmarks")
	count := flag.Int("count", 3, "runs of each benchmark (the plots show medians)")
	benchtime := flag.String("benchtime", "100ms", "go test -benchtime")
	flag.Parse()
	dir := filepath.Join(*root, "docs", "plots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	if !*drawOnly {
		for _, r := range []run{codecRun, kernelRun} {
			if err := runBench(*root, r, filepath.Join(dir, r.file), *count, *benchtime); err != nil {
				fail(err)
			}
		}
	}
	for _, f := range figures {
		out, err := os.ReadFile(filepath.Join(dir, f.run.file))
		if err != nil {
			fail(err)
		}
		if err := drawFigure(f, out, filepath.Join(dir, f.file)); err != nil {
			fail(fmt.Errorf("%s: %v", f.file, err))
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchplot:", err)
	os.Exit(1)
}

// runBench runs the benchmarks of r in root and saves their output.
func runBench(root string, r run, out string, count int, benchtime string) error {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", ".", "-count", fmt.Sprint(count), "-benchtime", benchtime, r.pkg)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go test %s: %v", r.pkg, err)
	}
	return os.WriteFile(out, b, 0o644)
}

// drawFigure draws f from the benchmark output out into the SVG file path:
// throughput against input size, one line an implementation.
func drawFigure(f figure, out []byte, path string) error {
	all, err := parseBench(bytes.NewReader(out), f.fn)
	if err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = f.title
	if cpu := cpuName(out); cpu != "" {
		p.Title.Text += "\n" + cpu
	}
	p.X.Label.Text = "input size"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{}
	p.Y.Label.Text = "GB/s (higher is better)"
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	drawn := 0
	for _, s := range all {
		if slices.Contains(f.skip, s.name) {
			continue
		}
		xys := make(plotter.XYs, len(s.points))
		for i, pt := range s.points {
			xys[i] = plotter.XY{X: float64(pt.size), Y: pt.gbs}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		c := palette[drawn%len(palette)]
		line.Color, points.Color = c, c
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
		drawn++
	}
	if drawn == 0 {
		return fmt.Errorf("no %s results", f.fn)
	}
	// Room for the first and last size labels.
	p.X.Min /= 1.6
	p.X.Max *= 1.6
	c := vgsvg.NewWith(vgsvg.UseWH(6*vg.Inch, 4*vg.Inch), vgsvg.EmbedFonts(false))
	p.Draw(draw.New(c))
	var svg bytes.Buffer
	if _, err := c.WriteTo(&svg); err != nil {
		return err
	}
	return os.WriteFile(path, svg.Bytes(), 0o644)
}

// palette tells the lines apart, also for readers with red-green colour
// blindness (Okabe and Ito's colours).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},
	color.RGBA{213, 94, 0, 255},
	color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255},
	color.RGBA{230, 159, 0, 255},
	color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255},
}

// cpuName returns the "cpu:" line of go test's output, or "".
func cpuName(out []byte) string {
	for line := range strings.Lines(string(out)) {
		if cpu, ok := strings.CutPrefix(line, "cpu: "); ok {
			return strings.TrimSpace(cpu)
		}
	}
	return ""
}

// sizeTicks marks the powers of two of a log axis of sizes as 16 B, 4 KiB,
// 1 MiB and so on.
type sizeTicks struct{}

func (sizeTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for v := 1.0; v <= max; v *= 4 {
		if v >= min {
			ticks = append(ticks, plot.Tick{Value: v, Label: sizeLabel(int64(v))})
		}
	}
	return ticks
}

// sizeLabel returns n bytes with a binary unit.
func sizeLabel(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
