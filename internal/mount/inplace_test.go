//go:build linux

package mount

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadAfterChangeInPlace changes a file through the mount, in place,
// while another program has it open for reading, and then reads it there at
// offsets around the old and the new end: each read gives what the file
// holds now, as on a local file system. A reader used to go on with the
// block layout it had loaded, and so decoded the new last block of a file
// cut to 7k+6 bytes as a whole block, with a NUL byte nobody wrote at its
// end (TestStress found it). The mount is served by another process.
func TestReadAfterChangeInPlace(t *testing.T) {
	a := func(n int) []byte { return bytes.Repeat([]byte("a"), n) }
	tests := []struct {
		name   string
		before []byte
		change func(t *testing.T, path string)
		after  []byte
	}{
		{"cut to a 6-byte tail", a(262144), func(t *testing.T, path string) {
			f := openOrFail(t, path, os.O_RDWR)
			if err := f.Truncate(97495); err != nil {
				t.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			closeOrFail(t, f)
		}, a(97495)},
		{"written in place over its 6-byte tail", a(97495), func(t *testing.T, path string) {
			f := openOrFail(t, path, os.O_RDWR)
			if _, err := f.WriteAt(bytes.Repeat([]byte("b"), 10), 97490); err != nil {
				t.Fatal(err)
			}
			closeOrFail(t, f)
		}, append(a(97490), bytes.Repeat([]byte("b"), 10)...)},
		{"appended to in place", a(1000), func(t *testing.T, path string) {
			f := openOrFail(t, path, os.O_WRONLY|os.O_APPEND)
			if _, err := f.Write(bytes.Repeat([]byte("b"), 10)); err != nil {
				t.Fatal(err)
			}
			closeOrFail(t, f)
		}, append(a(1000), bytes.Repeat([]byte("b"), 10)...)},
	}
	serveIfChild(t)
	fuseAvailable(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mnt := t.TempDir()
			child := startChild(t, t.TempDir(), mnt, true)
			t.Cleanup(func() {
				child.Process.Kill()
				child.Wait()
				syscall.Unmount(mnt, syscall.MNT_DETACH)
			})
			path := filepath.Join(mnt, "f")
			if err := os.WriteFile(path, tt.before, 0o644); err != nil {
				t.Fatal(err)
			}
			r := openOrFail(t, path, os.O_RDONLY)
			defer r.Close()
			if _, err := r.ReadAt(make([]byte, 1), 0); err != nil {
				t.Fatal(err) // the reader has the file loaded
			}
			tt.change(t, path)
			end := int64(len(tt.after))
			// stat sees the new size soon after the change (the mount
			// tells the kernel to drop what it cached).
			for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(time.Millisecond) {
				info, err := r.Stat()
				if err != nil {
					t.Fatal(err)
				}
				if info.Size() == end {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the reader's file has %d bytes, want %d", info.Size(), end)
				}
			}
			for _, off := range []int64{97494, end - 8, end - 2, end - 1, end, int64(len(tt.before)) - 2} {
				if off < 0 {
					continue
				}
				for _, size := range []int64{2, 1, 16} {
					p := make([]byte, size)
					n, err := r.ReadAt(p, off)
					if err != nil && err != io.EOF {
						t.Fatalf("ReadAt(%d bytes at %d): %v", size, off, err)
					}
					want := tt.after[min(off, end):min(off+size, end)]
					if !bytes.Equal(p[:n], want) {
						t.Errorf("ReadAt(%d bytes at %d) = %q, want %q", size, off, p[:n], want)
					}
				}
			}
		})
	}
}

func openOrFail(t *testing.T, path string, flag int) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func closeOrFail(t *testing.T, f *os.File) {
	t.Helper()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
