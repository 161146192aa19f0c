//go:build linux

package mount

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// TestCutWhileReading has a read the kernel sent for the page cache, past
// where a truncation cuts the file, reach the mount after the cut and
// before the kernel learns the new size: the reader gets what the file
// held before the cut (or an early end), never the zeros the kernel fills
// a short read with. Each way to cut a file: ftruncate, truncate by name,
// and an open with O_TRUNC.
func TestCutWhileReading(t *testing.T) {
	tm := mountNew(t)
	for _, tt := range []struct {
		how string
		at  int64
		cut func(name string) error
		// between the file's cut and the kernel's learning of it
		hook *atomic.Pointer[func()]
	}{
		{"ftruncate", 4096, func(name string) error {
			w, err := os.OpenFile(name, os.O_RDWR, 0)
			if err != nil {
				return err
			}
			if err := w.Truncate(4096); err != nil {
				w.Close()
				return err
			}
			return w.Close()
		}, &testHookCut},
		{"truncate", 5000, func(name string) error { return os.Truncate(name, 5000) }, &testHookCut},
		{"O_TRUNC", 0, func(name string) error {
			w, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				return err
			}
			return w.Close()
		}, &testHookOpened},
	} {
		t.Run(tt.how, func(t *testing.T) {
			name := "cut-by-" + tt.how
			old := bytes.Repeat([]byte("cut while reading\n"), 16000)
			if err := afero.WriteFile(tm.underneath(base16384.NewCodec()), name, old, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := os.Open(tm.at(name))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()

			var reads atomic.Int64
			var holding, held atomic.Bool
			readHeld, release := make(chan struct{}), make(chan struct{})
			hook := func(file string) {
				if path.Base(file) != name {
					return
				}
				reads.Add(1)
				if holding.Load() && !held.Swap(true) {
					close(readHeld)
					<-release
				}
			}
			testHookRead.Store(&hook)
			defer testHookRead.Store(nil)
			start := make([]byte, 4096)
			for range 2 {
				if _, err := r.ReadAt(start, 0); err != nil {
					t.Fatal(err)
				}
			}
			if n := reads.Load(); n != 1 {
				t.Fatalf("reading the file's start twice asked the mount %d reads, want 1: not read through the page cache", n)
			}

			const off = 128 << 10
			holding.Store(true)
			type result struct {
				b   []byte
				err error
			}
			got := make(chan result, 1)
			go func() {
				b := make([]byte, 64<<10)
				n, err := r.ReadAt(b, off)
				got <- result{b[:n], err}
			}()
			select {
			case <-readHeld:
			case <-time.After(10 * time.Second):
				t.Fatal("the reader's read did not reach the mount")
			}
			answers := make(chan result, 1)
			answered := func() {
				close(release)
				select {
				case res := <-got:
					answers <- res
				case <-time.After(10 * time.Second):
					t.Error("the reader's read did not end while the truncation ran")
				}
			}
			tt.hook.Store(&answered)
			defer tt.hook.Store(nil)
			if err := tt.cut(tm.at(name)); err != nil {
				t.Fatal(err)
			}
			var res result
			select {
			case res = <-answers:
			default:
				t.Fatal("the held read was not answered while the truncation ran")
			}
			if res.err != nil && !errors.Is(res.err, io.EOF) {
				t.Fatal(res.err)
			}
			if !bytes.HasPrefix(old[off:], res.b) {
				t.Errorf("the read racing the cut got %d bytes, %d of them NUL: not what the file held before it", len(res.b), bytes.Count(res.b, []byte{0}))
			}
			if b, err := io.ReadAll(io.NewSectionReader(r, 0, 1<<20)); err != nil || !bytes.Equal(b, old[:tt.at]) {
				t.Errorf("after the cut the reader reads %d bytes, %v; want the %d the file kept", len(b), err, tt.at)
			}
		})
	}
}
