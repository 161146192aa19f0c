package bencode_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/b14fs/b14fs/plugins/bencode"
)

// The huge-string benchmarks measure the peak resident memory (VmHWM) of a
// child process that streams one long string through the codec or a Decoder,
// from a generator reader to a writer that checks the output against the
// expected stream: nothing of the size of the string is ever made by the
// test itself. Each iteration is one child process, so the figure is the
// peak of that transcoding alone (a fresh Go process running the test binary
// idles at a few MiB). Linux only (it reads /proc/self/status).
//
//	go test -run XXX -bench HugeString -benchtime 1x ./plugins/bencode
//
// Sizes above 10 MB are skipped with -short.

const hugeChildEnv = "BENCODE_HUGE_CHILD"

var hugeSizes = []struct {
	name string
	n    int64
}{
	{"10MB", 10e6},
	{"300MB", 300e6},
	{"1GiB", 1 << 30},
}

// BenchmarkHugeString streams one binary string (so its JSON form is
// base64) of each size through the codec: bencode to JSON (decode) and JSON
// to bencode (encode), through the reader and the writer forms.
func BenchmarkHugeString(b *testing.B) {
	for _, dir := range []string{"decode", "encode"} {
		for _, form := range []string{"reader", "writer"} {
			for _, size := range hugeSizes {
				b.Run("dir="+dir+"/form="+form+"/size="+size.name, func(b *testing.B) {
					runHugeChild(b, size.n, dir, form, strconv.FormatInt(size.n, 10))
				})
			}
		}
	}
}

// BenchmarkHugeStringDecoder measures a Decoder decoding one string into a
// []byte: complete strings of each size, and a header that claims 2 GB
// followed by 100 MiB of data and the end of the input (an error).
func BenchmarkHugeStringDecoder(b *testing.B) {
	for _, size := range hugeSizes {
		b.Run("value=complete/size="+size.name, func(b *testing.B) {
			runHugeChild(b, size.n, "value", "complete", strconv.FormatInt(size.n, 10))
		})
	}
	b.Run("value=truncated/claim=2GB/size=100MiB", func(b *testing.B) {
		runHugeChild(b, 100<<20, "value", "truncated", "100MiB of 2GB")
	})
}

func runHugeChild(b *testing.B, n int64, dir, form, what string) {
	if runtime.GOOS != "linux" {
		b.Skip("peak RSS is read from /proc/self/status")
	}
	if testing.Short() && n > 10e6 {
		b.Skip("-short: only 10 MB strings")
	}
	b.SetBytes(n)
	var peak, secs float64
	for range b.N {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHugeStringChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), hugeChildEnv+"="+dir+" "+form+" "+strconv.FormatInt(n, 10))
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%s %s %s: %v\n%s", dir, form, what, err, out)
		}
		var hwm, ns int64
		i := bytes.Index(out, []byte("hugestring:"))
		if i < 0 {
			b.Fatalf("no report from the child:\n%s", out)
		}
		if _, err := fmt.Sscanf(string(out[i:]), "hugestring: hwm_kib=%d ns=%d", &hwm, &ns); err != nil {
			b.Fatalf("bad report from the child (%v):\n%s", err, out)
		}
		peak = max(peak, float64(hwm)/1024)
		secs += float64(ns) / 1e9
	}
	b.ReportMetric(peak, "peak-RSS-MiB")
	b.ReportMetric(secs/float64(b.N), "child-s/op")
}

// TestHugeStringChild is the child process of the huge-string benchmarks;
// it does nothing unless BENCODE_HUGE_CHILD says what to run.
func TestHugeStringChild(t *testing.T) {
	job := os.Getenv(hugeChildEnv)
	if job == "" {
		t.Skip("the child of BenchmarkHugeString")
	}
	var dir, form string
	var n int64
	if _, err := fmt.Sscanf(job, "%s %s %d", &dir, &form, &n); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := hugeJob(dir, form, n); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	hwm, err := vmHWM()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("hugestring: hwm_kib=%d ns=%d\n", hwm, elapsed.Nanoseconds())
}

func hugeJob(dir, form string, n int64) error {
	c := bencode.NewCodec()
	binary := func() io.Reader { return &repeatReader{pat: hugePattern, n: n} }
	header := func() io.Reader { return strings.NewReader(strconv.FormatInt(n, 10) + ":") }
	var src, want io.Reader
	switch dir {
	case "decode":
		src = io.MultiReader(header(), binary())
		want = io.MultiReader(strings.NewReader(`"base64:`), base64Stream(n), strings.NewReader("\"\n"))
	case "encode":
		src = io.MultiReader(strings.NewReader(`"base64:`), base64Stream(n), strings.NewReader(`"`))
		want = io.MultiReader(header(), binary())
	case "value":
		return hugeValue(form, n)
	default:
		return fmt.Errorf("unknown direction %q", dir)
	}
	dst := &cmpWriter{want: want, buf: make([]byte, 64<<10)}
	var err error
	switch form {
	case "reader":
		r := c.NewDecodeReader(src)
		if dir == "encode" {
			r = c.NewEncodeReader(src)
		}
		_, err = io.Copy(dst, r)
	case "writer":
		w := c.NewDecodeWriter(dst)
		if dir == "encode" {
			w = c.NewEncodeWriter(dst)
		}
		if _, err = io.Copy(w, src); err == nil {
			err = w.Close()
		}
	default:
		return fmt.Errorf("unknown form %q", form)
	}
	if err != nil {
		return err
	}
	return dst.done()
}

// hugeValue decodes one string with a Decoder: a complete one of n bytes,
// or n bytes of one that claims 2 GB.
func hugeValue(form string, n int64) error {
	claim := n
	if form == "truncated" {
		claim = 2e9
	}
	src := io.MultiReader(strings.NewReader(strconv.FormatInt(claim, 10)+":"), &repeatReader{pat: hugePattern, n: n})
	var v []byte
	err := bencode.NewDecoder(src).Decode(&v)
	if form == "truncated" {
		var se *bencode.SyntaxError
		if !errors.As(err, &se) {
			return fmt.Errorf("truncated string: got %v, want a *SyntaxError", err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if int64(len(v)) != n || !bytes.Equal(v[:len(hugePattern)], hugePattern) {
		return fmt.Errorf("decoded %d bytes, want %d", len(v), n)
	}
	return nil
}

// hugePattern is the period of the generated binary strings: random bytes
// (so not UTF-8), a multiple of 3 long so that its base64 form repeats too.
var hugePattern = func() []byte {
	p := make([]byte, 3<<14)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}()

// base64Stream returns the standard base64 of the first n bytes of the
// repeated hugePattern.
func base64Stream(n int64) io.Reader {
	full := base64.StdEncoding.EncodeToString(hugePattern)
	tailAt := (n - n%3) % int64(len(hugePattern))
	tail := base64.StdEncoding.EncodeToString(hugePattern[tailAt : tailAt+n%3])
	return io.MultiReader(&repeatReader{pat: []byte(full), n: n / 3 * 4}, strings.NewReader(tail))
}

// A repeatReader reads the first n bytes of pat repeated.
type repeatReader struct {
	pat []byte
	off int
	n   int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	k := 0
	for k < len(p) {
		c := copy(p[k:], r.pat[r.off:])
		k += c
		r.off = (r.off + c) % len(r.pat)
	}
	r.n -= int64(k)
	return k, nil
}

// A cmpWriter checks what is written to it against want.
type cmpWriter struct {
	want io.Reader
	buf  []byte
	n    int64
}

func (w *cmpWriter) Write(p []byte) (int, error) {
	for done := 0; done < len(p); {
		k := min(len(p)-done, len(w.buf))
		if _, err := io.ReadFull(w.want, w.buf[:k]); err != nil {
			return done, fmt.Errorf("output longer than expected at byte %d: %v", w.n, err)
		}
		if !bytes.Equal(w.buf[:k], p[done:done+k]) {
			return done, fmt.Errorf("output differs from the expected output in the %d bytes from byte %d", k, w.n)
		}
		done += k
		w.n += int64(k)
	}
	return len(p), nil
}

func (w *cmpWriter) done() error {
	if _, err := io.ReadFull(w.want, w.buf[:1]); err == nil {
		return fmt.Errorf("output ends early, at byte %d", w.n)
	}
	return nil
}

// vmHWM returns the process's peak resident set size in KiB.
func vmHWM() (int64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
