// Package peerbench benchmarks base16384 beside the reference Go package,
// github.com/fumiama/go-base16384 (GPL-3.0, with its assembly), side by side
// in one process. It lives under testdata so that neither the project's
// modules nor its tests see it: run.sh copies it into a temporary module
// that replaces the reference with a local copy (see docs/benchmarks.md).
package peerbench

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/b14fs/b14fs/plugins/base16384"
	base14 "github.com/fumiama/go-base16384"
)

// sizes are the plain sizes the benchmarks run at.
var sizes = []int{1, 7, 8, 16, 31, 64, 100, 256, 1 << 10, 4 << 10, 32 << 10, 1 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprint(n)
}

// data returns n random bytes, the same for every run.
func data(n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(n)}).Read(b)
	return b
}

// cpuTime returns the CPU time the process has used, all threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// run runs each of the impls at every size (each one after the other for
// one size, so that the ones compared are measured close in time), counting
// plain bytes. Besides sec/op it reports cpu-ns/op, the CPU time of the
// process an operation: on a machine shared with other work, the time the
// process waited for a CPU counts in sec/op but not there.
func run(b *testing.B, sizes []int, impls []string, bench func(b *testing.B, impl string, plain []byte)) {
	for _, n := range sizes {
		plain := data(n)
		for _, impl := range impls {
			b.Run("size="+sizeName(n)+"/impl="+impl, func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				start := cpuTime()
				bench(b, impl, plain)
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// Implementations: the reference's package function, this package's
// package function, the StdEncoding method and StdEncoding's Append form
// into a buffer with room.
var impls = []string{"ref", "b14fs", "method", "append"}

func BenchmarkEncode(b *testing.B) {
	run(b, sizes, impls, func(b *testing.B, impl string, plain []byte) {
		dst := make([]byte, base16384.EncodeLen(len(plain)))
		switch impl {
		case "ref":
			for b.Loop() {
				if _, err := base14.EncodeTo(plain, dst); err != nil {
					b.Fatal(err)
				}
			}
		case "b14fs":
			for b.Loop() {
				if err := base16384.EncodeTo(plain, dst); err != nil {
					b.Fatal(err)
				}
			}
		case "method":
			for b.Loop() {
				base16384.StdEncoding.Encode(dst, plain)
			}
		case "append":
			for b.Loop() {
				dst = base16384.StdEncoding.AppendEncode(dst[:0], plain)
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	run(b, sizes, impls, func(b *testing.B, impl string, plain []byte) {
		enc := base16384.Encode(plain)
		// Room for the reference, which writes past the decoded bytes.
		dst := make([]byte, len(plain)+16)
		switch impl {
		case "ref":
			for b.Loop() {
				if _, err := base14.DecodeTo(enc, dst); err != nil {
					b.Fatal(err)
				}
			}
		case "b14fs":
			for b.Loop() {
				if err := base16384.DecodeTo(enc, dst); err != nil {
					b.Fatal(err)
				}
			}
		case "method":
			for b.Loop() {
				if _, err := base16384.StdEncoding.Decode(dst, enc); err != nil {
					b.Fatal(err)
				}
			}
		case "append":
			for b.Loop() {
				var err error
				if dst, err = base16384.StdEncoding.AppendDecode(dst[:0], enc); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// The text forms, what chat code calls.
var textSizes = []int{16, 256}

func BenchmarkEncodeToString(b *testing.B) {
	run(b, textSizes, []string{"ref", "b14fs"}, func(b *testing.B, impl string, plain []byte) {
		f := base16384.EncodeToString
		if impl == "ref" {
			f = base14.EncodeToString
		}
		if f(plain) != base16384.EncodeToString(plain) {
			b.Fatal("the encodings differ")
		}
		for b.Loop() {
			_ = f(plain)
		}
	})
}

func BenchmarkDecodeString(b *testing.B) {
	run(b, textSizes, []string{"ref", "b14fs"}, func(b *testing.B, impl string, plain []byte) {
		s := base16384.EncodeToString(plain)
		f := base16384.DecodeString
		if impl == "ref" {
			f = base14.DecodeString
		}
		if f(s) != string(plain) {
			b.Fatal("wrong decoding")
		}
		for b.Loop() {
			_ = f(s)
		}
	})
}

// BenchmarkCopy is copy() of the plain bytes, the ceiling at large sizes.
func BenchmarkCopy(b *testing.B) {
	run(b, []int{32 << 10, 1 << 20}, []string{"copy"}, func(b *testing.B, _ string, plain []byte) {
		dst := make([]byte, len(plain))
		for b.Loop() {
			copy(dst, plain)
		}
	})
}

// BenchmarkSpeedup measures the implementations interleaved: each round
// times a batch of about 10 µs of each in turn, and the fastest batch of
// each counts, the one least disturbed by other work on the machine. It
// reports ref-ns/op, the reference's time; for each other implementation
// IMPL-speedup, the reference's time over its own (higher is better), and
// IMPL-ns/op, its own time: the one to compare two builds by, since the
// reference's time moves from one build to the next. The floors
// (floor, floor-method, floor-append) give the most an assembly
// implementation of each form could reach, nop the most a Go function
// could. ns/op is that of a round and means nothing.
func BenchmarkSpeedup(b *testing.B) {
	for _, op := range []string{"Encode", "Decode", "EncodeToString", "DecodeString"} {
		szs := sizes
		if op == "EncodeToString" || op == "DecodeString" {
			szs = textSizes
		}
		for _, n := range szs {
			b.Run("op="+op+"/size="+sizeName(n), func(b *testing.B) {
				names, fs := batches(op, data(n))
				// Warm the caches and the code first: a cold first batch
				// of 10 µs would leave k at 1, below the clock's grain.
				for _, f := range fs {
					f(64)
				}
				k := 1
				for {
					t := time.Now()
					fs[0](k)
					if time.Since(t) > 10*time.Microsecond {
						break
					}
					k *= 2
				}
				best := make([]time.Duration, len(fs))
				for b.Loop() {
					for i, f := range fs {
						t := time.Now()
						f(k)
						if d := time.Since(t); best[i] == 0 || d < best[i] {
							best[i] = d
						}
					}
				}
				b.ReportMetric(float64(best[0].Nanoseconds())/float64(k), "ref-ns/op")
				for i := 1; i < len(fs); i++ {
					b.ReportMetric(float64(best[0])/float64(best[i]), names[i]+"-speedup")
					b.ReportMetric(float64(best[i].Nanoseconds())/float64(k), names[i]+"-ns/op")
				}
			})
		}
	}
}

// nop takes the arguments of EncodeTo and DecodeTo and does next to
// nothing: the cost of the call, the floor under every implementation.
//
//go:noinline
func nop(src, dst []byte) error {
	if len(dst) > 0 && len(src) > 0 {
		dst[0] = src[0]
	}
	return nil
}

// batches returns the implementations of op, the reference first, each as
// a function that runs it k times on the input of plain. For Encode and
// Decode the last ones are nop and the floors of the assembly calls
// (floor_amd64.go).
func batches(op string, plain []byte) ([]string, []func(k int)) {
	enc := base16384.Encode(plain)
	text := base16384.EncodeToString(plain)
	encDst := make([]byte, len(enc))
	// Room for the reference, which writes past the decoded bytes.
	decDst := make([]byte, len(plain)+16)
	exact := decDst[:len(plain)]
	switch op {
	case "Encode":
		return []string{"ref", "b14fs", "method", "append", "nop", "floor", "floor-method", "floor-append"}, []func(int){
			func(k int) {
				for range k {
					base14.EncodeTo(plain, encDst)
				}
			},
			func(k int) {
				for range k {
					base16384.EncodeTo(plain, encDst)
				}
			},
			func(k int) {
				for range k {
					base16384.StdEncoding.Encode(encDst, plain)
				}
			},
			func(k int) {
				for range k {
					base16384.StdEncoding.AppendEncode(encDst[:0], plain)
				}
			},
			func(k int) {
				for range k {
					nop(plain, encDst)
				}
			},
			func(k int) {
				for range k {
					floorTo(encDst, plain)
				}
			},
			func(k int) {
				for range k {
					floorMethod(base16384.StdEncoding, encDst, plain)
				}
			},
			func(k int) {
				for range k {
					floorAppendEncode(base16384.StdEncoding, encDst[:0], plain)
				}
			},
		}
	case "Decode":
		return []string{"ref", "b14fs", "method", "append", "nop", "floor", "floor-method", "floor-append"}, []func(int){
			func(k int) {
				for range k {
					base14.DecodeTo(enc, decDst)
				}
			},
			func(k int) {
				for range k {
					base16384.DecodeTo(enc, exact)
				}
			},
			func(k int) {
				for range k {
					base16384.StdEncoding.Decode(exact, enc)
				}
			},
			func(k int) {
				for range k {
					base16384.StdEncoding.AppendDecode(exact[:0], enc)
				}
			},
			func(k int) {
				for range k {
					nop(enc, exact)
				}
			},
			func(k int) {
				for range k {
					floorTo(exact, enc)
				}
			},
			func(k int) {
				for range k {
					floorMethod(base16384.StdEncoding, exact, enc)
				}
			},
			func(k int) {
				for range k {
					floorAppendDecode(base16384.StdEncoding, exact[:0], enc)
				}
			},
		}
	case "EncodeToString":
		return []string{"ref", "b14fs"}, []func(int){
			func(k int) {
				for range k {
					_ = base14.EncodeToString(plain)
				}
			},
			func(k int) {
				for range k {
					_ = base16384.EncodeToString(plain)
				}
			},
		}
	}
	return []string{"ref", "b14fs"}, []func(int){
		func(k int) {
			for range k {
				_ = base14.DecodeString(text)
			}
		},
		func(k int) {
			for range k {
				_ = base16384.DecodeString(text)
			}
		},
	}
}

// TestSame checks that both packages write the same bytes and decode them
// back.
func TestSame(t *testing.T) {
	for n := 0; n < 300; n++ {
		plain := data(n)
		want := base14.Encode(plain)
		got := base16384.Encode(plain)
		if string(got) != string(want) {
			t.Fatalf("%d bytes: encodings differ", n)
		}
		if n > 0 && string(base16384.Decode(got)) != string(plain) {
			t.Fatalf("%d bytes: wrong decoding", n)
		}
	}
}
