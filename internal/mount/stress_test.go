//go:build linux

package mount

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/b14fs/b14fs/internal/testing/longtest"
)

// stressDuration is how long TestStress runs: B14FS_STRESS seconds, else
// 60 s with the long checks (longtest), 2 s without.
func stressDuration() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("B14FS_STRESS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if longtest.Enabled() {
		return 60 * time.Second
	}
	return 2 * time.Second
}

// raceDuration is how long the tests that race programs against each other
// over one file run: 3 s with the long checks, 1 s without (some hundred
// rewrites and thousands of reads).
func raceDuration() time.Duration {
	if longtest.Enabled() {
		return 3 * time.Second
	}
	return time.Second
}

// TestStress runs 8 writers and 8 readers on a writable mount at once, over
// files each writer has to itself and files writers share:
//
//   - 2 writers replace shared file "rewrite" whole, as editors do (a new
//     file renamed over it), with content naming the writer and version, of
//     varying length;
//   - 2 writers append lines to shared file "log" (O_APPEND), a few a time;
//   - 4 writers write random ranges in place of their own 256 KiB files
//     "own0".."own3", with letters naming the version, and sometimes
//     truncate and regrow them.
//
// Every read must be a state some writer produced, as on a local file
// system: "rewrite" whole as one of its versions (a reader goes on reading
// the file it opened, after another is renamed over it); "log" whole
// lines, each writer's in order; an own file letters only, no longer than
// its writer made it (a read may end early where the writer cut the file
// meanwhile, as on a local file system), save for zeros past where a
// truncation running meanwhile cut it, which the kernel may show
// (docs/mount.md, "Limits"; logged). No read may fail.
// At the end each file holds what its writers stored last.
func TestStress(t *testing.T) {
	tm := mountNew(t)
	d := stressDuration()
	stop := time.Now().Add(d)
	var failed atomic.Int64
	fail := func(format string, args ...any) {
		if failed.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	var reads, writes atomic.Int64

	// "rewrite": versions are "W<w>V<v>L<len>\n" repeated, cut to len.
	rewriteContent := func(w, v, n int) []byte {
		tag := fmt.Sprintf("W%dV%dL%d\n", w, v, n)
		return bytes.Repeat([]byte(tag), n/len(tag)+1)[:n]
	}
	tagRE := regexp.MustCompile(`^W(\d)V(\d+)L(\d+)\n`)
	var lastRewrite [2]atomic.Int64 // the last version each writer stored
	checkRewrite := func(b []byte) {
		if len(b) == 0 {
			return // before the first write
		}
		m := tagRE.FindSubmatch(b)
		if m == nil {
			fail("rewrite: read %d bytes starting %.30q: not a version", len(b), b)
			return
		}
		w, _ := strconv.Atoi(string(m[1]))
		v, _ := strconv.Atoi(string(m[2]))
		n, _ := strconv.Atoi(string(m[3]))
		if !bytes.Equal(b, rewriteContent(w, v, n)) {
			fail("rewrite: read %d bytes of version W%dV%dL%d: not that version whole (%d NUL bytes)", len(b), w, v, n, bytes.Count(b, []byte{0}))
		}
	}

	// "log": lines "W<w> <i>\n", each writer's i counting up from 0.
	var logLines [2]atomic.Int64
	lineRE := regexp.MustCompile(`^W(\d) (\d+)$`)
	checkLog := func(b []byte, final bool) {
		if len(b) > 0 && b[len(b)-1] != '\n' {
			fail("log: read %d bytes not ending at a line's end: %.30q", len(b), b[max(0, len(b)-30):])
			return
		}
		next := [2]int{}
		for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if len(line) == 0 && len(b) == 0 {
				break
			}
			m := lineRE.FindSubmatch(line)
			if m == nil {
				fail("log: bad line %q", line)
				return
			}
			w, _ := strconv.Atoi(string(m[1]))
			i, _ := strconv.Atoi(string(m[2]))
			if i != next[w] {
				fail("log: writer %d's line %d where %d was due", w, i, next[w])
				return
			}
			next[w]++
		}
		if final {
			for w := range 2 {
				if int64(next[w]) != logLines[w].Load() {
					fail("log: %d lines of writer %d at the end, it wrote %d", next[w], w, logLines[w].Load())
				}
			}
		}
	}

	// Own files: their writers record every size they give them, and
	// their truncations.
	const ownSize = 256 << 10
	var ownSizes [4]sync.Map // size -> true
	var ownCuts [4]cutRecord
	var zerosPastCut atomic.Int64
	checkOwn := func(i int, b []byte, cutFrom int) {
		// A read may end early where its writer cut the file meanwhile,
		// as on a local file system: a prefix of a state.
		if _, ok := ownSizes[i].Load(len(b)); !ok && len(b) > ownSize {
			fail("own%d: read %d bytes, more than its writer ever gave it", i, len(b))
		}
		zeros := false
		for j, c := range b {
			if c == 0 && cutFrom >= 0 && j >= cutFrom {
				zeros = true // the kernel's, docs/mount.md "Limits"
				continue
			}
			if c < 'a' || c > 'z' {
				fail("own%d: byte %d of %d is %q, which no writer wrote", i, j, len(b), c)
				return
			}
		}
		if zeros {
			zerosPastCut.Add(1)
		}
	}
	var ownFinal [4][]byte
	for i := range 4 {
		ownFinal[i] = bytes.Repeat([]byte("a"), ownSize)
		ownSizes[i].Store(ownSize, true)
		if err := os.WriteFile(tm.at(fmt.Sprintf("own%d", i)), ownFinal[i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(tm.at("log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	loop := func(seed uint64, body func(r *rand.Rand) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 99))
			for time.Now().Before(stop) && failed.Load() == 0 {
				if err := body(r); err != nil {
					fail("%v", err)
					return
				}
			}
		}()
	}
	for w := range 2 {
		v := 0
		loop(uint64(w), func(r *rand.Rand) error {
			v++
			n := 1 + r.IntN(300000)
			tmp := tm.at(fmt.Sprintf("rewrite.new%d", w))
			if err := os.WriteFile(tmp, rewriteContent(w, v, n), 0o644); err != nil {
				return fmt.Errorf("rewrite writer %d: %w", w, err)
			}
			if err := os.Rename(tmp, tm.at("rewrite")); err != nil {
				return fmt.Errorf("rewrite writer %d: %w", w, err)
			}
			lastRewrite[w].Store(int64(v)<<32 | int64(n))
			writes.Add(1)
			return nil
		})
		loop(uint64(10+w), func(r *rand.Rand) error {
			f, err := os.OpenFile(tm.at("log"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return fmt.Errorf("log writer %d: %w", w, err)
			}
			for range 1 + r.IntN(5) {
				i := logLines[w].Load()
				if _, err := fmt.Fprintf(f, "W%d %d\n", w, i); err != nil {
					f.Close()
					return fmt.Errorf("log writer %d: %w", w, err)
				}
				logLines[w].Add(1)
			}
			writes.Add(1)
			if err := f.Close(); err != nil {
				return fmt.Errorf("log writer %d: close: %w", w, err)
			}
			return nil
		})
	}
	for i := range 4 {
		name := tm.at(fmt.Sprintf("own%d", i))
		model := ownFinal[i]
		v := 0
		loop(uint64(20+i), func(r *rand.Rand) error {
			v++
			f, err := os.OpenFile(name, os.O_RDWR, 0)
			if err != nil {
				return fmt.Errorf("own%d: %w", i, err)
			}
			letter := byte('a' + v%26)
			for range 1 + r.IntN(4) {
				off := r.IntN(len(model))
				n := 1 + r.IntN(min(20000, len(model)-off))
				p := bytes.Repeat([]byte{letter}, n)
				if _, err := f.WriteAt(p, int64(off)); err != nil {
					f.Close()
					return fmt.Errorf("own%d: write: %w", i, err)
				}
				copy(model[off:], p)
			}
			if r.IntN(5) == 0 {
				// Cut and regrow: a size readers may see in between.
				cut := r.IntN(len(model))
				ownSizes[i].Store(cut, true)
				ownCuts[i].begin(cut)
				if err := f.Truncate(int64(cut)); err != nil {
					f.Close()
					return fmt.Errorf("own%d: truncate: %w", i, err)
				}
				if err := f.Sync(); err != nil {
					f.Close()
					return fmt.Errorf("own%d: sync: %w", i, err)
				}
				if _, err := f.WriteAt(model[cut:], int64(cut)); err != nil {
					f.Close()
					return fmt.Errorf("own%d: regrow: %w", i, err)
				}
				ownCuts[i].end()
			}
			if err := f.Close(); err != nil {
				return fmt.Errorf("own%d: close: %w", i, err)
			}
			writes.Add(1)
			got, err := os.ReadFile(name)
			if err != nil || !bytes.Equal(got, model) {
				return fmt.Errorf("own%d: its writer read back %d bytes, %v; not what it stored", i, len(got), err)
			}
			return nil
		})
	}
	files := []string{"rewrite", "log", "own0", "own1", "own2", "own3"}
	for rd := range 8 {
		loop(uint64(100+rd), func(r *rand.Rand) error {
			name := files[r.IntN(len(files))]
			own, cutsBefore := -1, 0 // the writer of an own file
			if strings.HasPrefix(name, "own") {
				own = int(name[3] - '0')
				cutsBefore = ownCuts[own].ended()
			}
			f, err := os.Open(tm.at(name))
			if os.IsNotExist(err) && name == "rewrite" {
				return nil
			}
			if err != nil {
				return fmt.Errorf("reader: open %s: %w", name, err)
			}
			var b []byte
			if rd%2 == 0 {
				b, err = io.ReadAll(f)
			} else {
				b, err = readAllSmall(f, 1+r.IntN(10000))
			}
			f.Close()
			if err != nil {
				return fmt.Errorf("reader: read %s: %w", name, err)
			}
			reads.Add(1)
			switch name {
			case "rewrite":
				checkRewrite(b)
			case "log":
				checkLog(b, false)
			default:
				checkOwn(own, b, ownCuts[own].lowestSince(cutsBefore))
			}
			return nil
		})
	}
	wg.Wait()
	t.Logf("%v: %d writes, %d reads", d, writes.Load(), reads.Load())
	if n := zerosPastCut.Load(); n > 0 {
		t.Logf("%d reads of own files read zeros past where a truncation running meanwhile cut the file (docs/mount.md, \"Limits\")", n)
	}

	// The end: each file as its writers left it.
	b, err := os.ReadFile(tm.at("rewrite"))
	if err != nil {
		t.Fatal(err)
	}
	checkRewrite(b)
	if m := tagRE.FindSubmatch(b); m != nil {
		w, _ := strconv.Atoi(string(m[1]))
		v, _ := strconv.Atoi(string(m[2]))
		if last := lastRewrite[w].Load(); int64(v) != last>>32 {
			t.Errorf("rewrite: ends as writer %d's version %d, its last was %d", w, v, last>>32)
		}
	}
	b, err = os.ReadFile(tm.at("log"))
	if err != nil {
		t.Fatal(err)
	}
	checkLog(b, true)
	for i := range 4 {
		if b, err := os.ReadFile(tm.at(fmt.Sprintf("own%d", i))); err != nil || !bytes.Equal(b, ownFinal[i]) {
			t.Errorf("own%d: ends with %d bytes, %v; not what its writer stored last", i, len(b), err)
		}
	}
	if errs := tm.errors(); len(errs) > 0 {
		t.Errorf("the mount logged %d errors, the first: %v", len(errs), errs[0])
	}
}

// readAllSmall reads r to its end n bytes at a time.
func readAllSmall(r io.Reader, n int) ([]byte, error) {
	var out []byte
	buf := make([]byte, n)
	for {
		m, err := r.Read(buf)
		out = append(out, buf[:m]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// A cutRecord records the truncations of a file: where each began cut the
// file, in order, and how many ended, with the file regrown.
type cutRecord struct {
	mu    sync.Mutex
	at    []int
	count int // ended
}

func (c *cutRecord) begin(at int) {
	c.mu.Lock()
	c.at = append(c.at, at)
	c.mu.Unlock()
}

func (c *cutRecord) end() {
	c.mu.Lock()
	c.count++
	c.mu.Unlock()
}

// ended returns how many truncations ended.
func (c *cutRecord) ended() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

// lowestSince returns the lowest point the truncations cut the file at
// that had not ended when ended returned n, and have begun: those a read
// begun then and ended now ran alongside; or -1, for none.
func (c *cutRecord) lowestSince(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n >= len(c.at) {
		return -1
	}
	return slices.Min(c.at[n:])
}
