package codectest

import (
	"bytes"
	"context"
	"io"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/b14fs/b14fs/core"
)

func TestHex(t *testing.T) {
	TestCodec(t, Hex{}, nil, []byte("a"), []byte("hello, world"), bytes.Repeat([]byte{0, 0xff, 7}, 30000))
}

// keeper is Hex whose push encoder keeps the bytes of a write and encodes
// them only at the next write or at Close.
type keeper struct{ Hex }

func (keeper) NewEncodeWriter(w io.Writer) io.WriteCloser {
	return &keptWriter{w: Hex{}.NewEncodeWriter(w)}
}

type keptWriter struct {
	w    io.WriteCloser
	kept []byte
}

func (k *keptWriter) Write(p []byte) (int, error) {
	if _, err := k.w.Write(k.kept); err != nil {
		return 0, err
	}
	k.kept = p
	return len(p), nil
}

func (k *keptWriter) Close() error {
	k.w.Write(k.kept)
	return k.w.Close()
}

// scribbler is Hex whose push encoder writes over the caller's bytes.
type scribbler struct{ Hex }

func (scribbler) NewEncodeWriter(w io.Writer) io.WriteCloser {
	return &scribbled{Hex{}.NewEncodeWriter(w)}
}

type scribbled struct{ io.WriteCloser }

func (s *scribbled) Write(p []byte) (int, error) {
	n, err := s.WriteCloser.Write(p)
	clear(p)
	return n, err
}

func TestCallerBytesProblems(t *testing.T) {
	in := []byte("the caller's bytes, in more than one piece")
	enc, _ := io.ReadAll(Hex{}.NewEncodeReader(bytes.NewReader(in)))
	if p := callerBytesProblem(Hex{}, in, enc); p != "" {
		t.Errorf("Hex: %s", p)
	}
	if p := callerBytesProblem(keeper{}, in, enc); !strings.Contains(p, "kept the caller's bytes") {
		t.Errorf("a writer that keeps the caller's bytes: %q", p)
	}
	if p := callerBytesProblem(scribbler{}, in, enc); !strings.Contains(p, "changed the caller's bytes") {
		t.Errorf("a writer that changes the caller's bytes: %q", p)
	}
}

// options is Hex with an option list whose keys WithOptions may not know.
type options struct {
	Hex
	listed  []core.OptionDoc
	unknown bool // WithOptions reports every key as unknown
}

func (o options) OptionDocs() []core.OptionDoc { return o.listed }

func (o options) WithOptions(opts core.Options) (core.Codec, error) {
	for _, opt := range opts {
		if o.unknown || opt.Key != "case" {
			return nil, opt.Unknown(o.Name())
		}
		if err := opt.OneOf(o.Name(), "lower"); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func TestOptionChecks(t *testing.T) {
	good := options{listed: []core.OptionDoc{{Key: "case", Values: []string{"lower", "upper"}, Usage: "the digits' case"}}}
	for _, tc := range []struct {
		name  string
		codec options
		fails bool
	}{
		{"listed and known", good, false},
		{"listed, unknown", options{listed: good.listed, unknown: true}, true},
		{"no usage", options{listed: []core.OptionDoc{{Key: "case", Values: []string{"lower"}}}}, true},
		{"listed twice", options{listed: append(good.listed, good.listed...)}, true},
	} {
		var fake testing.T
		done := make(chan struct{})
		go func() { // checkOptions may call Fatal, which ends its goroutine
			defer close(done)
			checkOptions(&fake, tc.codec)
		}()
		<-done
		if fake.Failed() != tc.fails {
			t.Errorf("%s: failed %v, want %v", tc.name, fake.Failed(), tc.fails)
		}
	}
}

// TestCountLabeled counts the labeled goroutines of a profile whose first
// record is labeled: the profile's header line is not part of it.
func TestCountLabeled(t *testing.T) {
	const profile = `goroutine profile: total 5
1 @ 0x456730 0x44f232
# labels: {"codectest":"leak-test"}
#	0x617710	example.func1+0x30	/src/a_test.go:129

2 @ 0x4bf84e 0x44f50f
# labels: {"codectest":"leak-test"}
#	0x6176b0	example.func2+0xb0	/src/a_test.go:131

2 @ 0x4bf84e 0x44f50f
#	0x6176b0	example.func3+0xb0	/src/a_test.go:140
`
	if n, _ := countLabeled(profile, "leak-test"); n != 3 {
		t.Errorf("countLabeled = %d, want 3", n)
	}
}

// TestLabeledGoroutines: the leak check counts the goroutines that code run
// under its label starts, and those they start, and no others.
func TestLabeledGoroutines(t *testing.T) {
	stop, started := make(chan struct{}), make(chan struct{})
	other := make(chan struct{})
	go func() { <-other }() // not labeled: not counted
	defer close(other)
	pprof.Do(context.Background(), pprof.Labels("codectest", "leak-test"), func(context.Context) {
		go func() {
			go func() { <-stop }()
			close(started)
			<-stop
		}()
	})
	<-started
	if n, stacks := labeledGoroutines("leak-test"); n != 2 {
		t.Fatalf("%d labeled goroutines, want 2:\n%s", n, stacks)
	}
	close(stop)
	deadline := time.Now().Add(5 * time.Second)
	for n, _ := labeledGoroutines("leak-test"); n > 0; n, _ = labeledGoroutines("leak-test") {
		if time.Now().After(deadline) {
			t.Fatalf("%d labeled goroutines left after they returned", n)
		}
		time.Sleep(time.Millisecond)
	}
}

type suffixed struct {
	Hex
	suffix string
}

func (s suffixed) Suffix() string { return s.suffix }

func TestSuffixCheck(t *testing.T) {
	for suffix, fails := range map[string]bool{".hex": false, "": false, "hex": true, ".": true, "..": true, ".a/b": true, ".a\x00": true} {
		var fake testing.T
		checkSuffix(&fake, suffixed{suffix: suffix})
		if fake.Failed() != fails {
			t.Errorf("Suffix %q: failed %v, want %v", suffix, fake.Failed(), fails)
		}
	}
}
