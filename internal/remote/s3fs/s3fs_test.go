package s3fs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"testing/iotest"
	"time"

	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/remote/s3fs"
	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
	"github.com/b14fs/b14fs/internal/testing/tmpfs"
	"github.com/b14fs/b14fs/plugins/base16384"
)

// newFs returns an Fs over endpoint's Bucket under prefix, whose requests
// counter counts.
func newFs(t testing.TB, endpoint, prefix string) (*s3fs.Fs, *remotetest.Counter) {
	t.Helper()
	return newFsSpool(t, endpoint, prefix, t.TempDir())
}

// newFsSpool is newFs with the spool files in spool.
func newFsSpool(t testing.TB, endpoint, prefix, spool string) (*s3fs.Fs, *remotetest.Counter) {
	t.Helper()
	// gofakes3 stores the signed chunked form of multipart parts as it
	// is, framing and all.
	_, fake := fakes.Load(endpoint)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 30 * time.Second
	counter := &remotetest.Counter{Next: tr}
	fsys, err := s3fs.New(remotetest.Bucket, prefix, s3fs.Config{
		Endpoint:        endpoint,
		Insecure:        true,
		Region:          "us-east-1",
		Credentials:     credentials.NewStaticV4(remotetest.AccessKey, remotetest.SecretKey, ""),
		Transport:       counter,
		Timeout:         10 * time.Second,
		SpoolDir:        spool,
		UnsignedPayload: fake,
	})
	if err != nil {
		t.Fatal(err)
	}
	return fsys, counter
}

// fakes holds the endpoints of the gofakes3 servers.
var fakes sync.Map

func fakeS3(t testing.TB) string {
	e := remotetest.FakeS3(t)
	fakes.Store(e, true)
	return e
}

// servers returns the S3 servers the tests run against: the fake always,
// SeaweedFS when it is there, with the long checks (longtest).
func servers(t *testing.T) map[string]func(t testing.TB) string {
	m := map[string]func(t testing.TB) string{"fake": fakeS3}
	if longtest.Enabled() && remotetest.WeedBinary() != "" {
		m["seaweedfs"] = func(t testing.TB) string { e, _ := remotetest.Weed(t); return e }
	}
	return m
}

// TestFS runs fstest.TestFS over the bucket as it is and through fsx.
func TestFS(t *testing.T) {
	for sname, start := range servers(t) {
		t.Run(sname, func(t *testing.T) {
			endpoint := start(t)
			raw, _ := newFs(t, endpoint, "raw")
			names := remotetest.WriteTree(t, raw)
			if err := fstest.TestFS(afero.NewIOFS(raw), names...); err != nil {
				t.Error("raw:", err)
			}
			base, _ := newFs(t, endpoint, "fsx/prefix")
			enc, err := fsx.New(base, base16384.NewCodec())
			if err != nil {
				t.Fatal(err)
			}
			names = remotetest.WriteTree(t, enc)
			if err := fstest.TestFS(afero.NewIOFS(enc), names...); err != nil {
				t.Error("fsx:", err)
			}
			for name, content := range remotetest.Tree {
				got, err := afero.ReadFile(enc, name)
				if err != nil || string(got) != content {
					t.Errorf("fsx: %s reads %q, %v; want %q", name, got, err, content)
				}
				if _, err := base.Stat(name + ".b14"); err != nil {
					t.Errorf("stored %s: %v", name, err)
				}
			}
		})
	}
}

// TestRandomReadOneRequest checks that a 4 KiB read at a random offset of
// a large encoded file costs one ranged GET, and never a whole-object GET.
func TestRandomReadOneRequest(t *testing.T) {
	for sname, start := range servers(t) {
		t.Run(sname, func(t *testing.T) {
			base, counter := newFs(t, start(t), "")
			enc, err := fsx.New(base, base16384.NewCodec())
			if err != nil {
				t.Fatal(err)
			}
			size := 24 << 20
			if testing.Short() {
				size = 4 << 20
			}
			want := remotetest.RandomBytes(size, 1)
			if err := afero.WriteFile(enc, "big", want, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := enc.Open("big")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := rand.New(rand.NewPCG(3, 4))
			p := make([]byte, 4096)
			for range 50 {
				off := r.Int64N(int64(size - len(p)))
				before, beforeAll := counter.RangeGets(), counter.Requests()
				if _, err := f.ReadAt(p, off); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(p, want[off:off+int64(len(p))]) {
					t.Fatalf("ReadAt(4096, %d): wrong data", off)
				}
				if gets, all := counter.RangeGets()-before, counter.Requests()-beforeAll; gets != 1 || all != 1 {
					t.Fatalf("ReadAt(4096, %d): %d ranged GETs, %d requests; want 1 and 1", off, gets, all)
				}
			}
		})
	}
}

// TestSequentialReadAtStreams reads an encoded file from start to end
// with ReadAt calls of 128 KiB, as the kernel asks a mount: fsx reads whole
// codec blocks, so each call starts a little before where the one before
// ended, and the calls go on one streaming GET rather than a GET each.
func TestSequentialReadAtStreams(t *testing.T) {
	base, counter := newFs(t, fakeS3(t), "")
	enc, err := fsx.New(base, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	const size, chunk = 8 << 20, 128 << 10
	want := remotetest.RandomBytes(size, 5)
	if err := afero.WriteFile(enc, "seq", want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := enc.Open("seq")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := counter.Requests()
	p := make([]byte, chunk)
	for off := 0; off < size; off += chunk {
		n, err := f.ReadAt(p, int64(off))
		if n != min(chunk, size-off) || (err != nil && err != io.EOF) {
			t.Fatalf("ReadAt(%d, %d): %d, %v", chunk, off, n, err)
		}
		if !bytes.Equal(p[:n], want[off:off+n]) {
			t.Fatalf("ReadAt(%d, %d): wrong data", chunk, off)
		}
	}
	if got := counter.Requests() - before; got > 3 {
		t.Errorf("%d ReadAt calls in a row took %d requests, want at most 3", size/chunk, got)
	}
}

// TestReads reads objects with every testing/iotest reader and at every
// offset near the ends.
func TestReads(t *testing.T) {
	fsys, _ := newFs(t, fakeS3(t), "p")
	want := remotetest.RandomBytes(100000, 2)
	if err := afero.WriteFile(fsys, "x", want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Open("x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := iotest.TestReader(f, want); err != nil {
		t.Error(err)
	}
	for _, off := range []int64{0, 1, 99999, 100000, 100001} {
		p := make([]byte, 10)
		n, err := f.ReadAt(p, off)
		end := min(off+10, 100000)
		wantN := int(max(end-off, 0))
		if n != wantN || !bytes.Equal(p[:n], want[min(off, end):end]) {
			t.Errorf("ReadAt(10, %d) = %d; want %d bytes", off, n, wantN)
		}
		if (err == io.EOF) != (wantN < 10) || (err != nil && err != io.EOF) {
			t.Errorf("ReadAt(10, %d): error %v", off, err)
		}
	}
}

// TestUnsupported checks that what S3 cannot do fails with a *fs.PathError
// wrapping errors.ErrUnsupported, and changes nothing.
func TestUnsupported(t *testing.T) {
	fsys, _ := newFs(t, fakeS3(t), "")
	if err := afero.WriteFile(fsys, "x", []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]func() error{
		"rename":  func() error { return fsys.Rename("x", "y") },
		"chmod":   func() error { return fsys.Chmod("x", 0o600) },
		"chown":   func() error { return fsys.Chown("x", 1, 1) },
		"chtimes": func() error { return fsys.Chtimes("x", time.Now(), time.Now()) },
		"append": func() error {
			_, err := fsys.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
			return err
		},
		"write in part": func() error {
			_, err := fsys.OpenFile("x", os.O_RDWR, 0)
			return err
		},
	}
	for name, do := range tests {
		err := do()
		var pe *fs.PathError
		if !errors.As(err, &pe) || !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s: error %v (%T), want a *fs.PathError wrapping errors.ErrUnsupported", name, err, err)
		}
	}
	if got, _ := afero.ReadFile(fsys, "x"); string(got) != "old" {
		t.Errorf("x reads %q after the failures, want %q", got, "old")
	}
}

// TestErrors checks the errors of missing files and directories.
func TestErrors(t *testing.T) {
	fsys, _ := newFs(t, fakeS3(t), "")
	if err := afero.WriteFile(fsys, "f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Mkdir("d", 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"open missing", open(fsys, "nope", os.O_RDONLY), fs.ErrNotExist},
		{"create in missing dir", open(fsys, "nodir/x", os.O_WRONLY|os.O_CREATE), fs.ErrNotExist},
		{"excl", open(fsys, "f", os.O_WRONLY|os.O_CREATE|os.O_EXCL), fs.ErrExist},
		{"write dir", open(fsys, "d", os.O_WRONLY|os.O_TRUNC), errIsDir},
		{"mkdir twice", fsys.Mkdir("d", 0o755), fs.ErrExist},
		{"remove missing", fsys.Remove("nope"), fs.ErrNotExist},
	}
	for _, tt := range tests {
		var pe *fs.PathError
		if !errors.As(tt.err, &pe) || !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v, want a *fs.PathError wrapping %v", tt.name, tt.err, tt.want)
		}
	}
	if err := afero.WriteFile(fsys, "d/in", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Remove("d"); err == nil {
		t.Error("Remove of a directory holding a file succeeded")
	}
	if err := fsys.RemoveAll("d"); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Stat("d"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after RemoveAll: Stat: %v", err)
	}
}

// TestRemoveAll removes directories holding directories: nothing of them
// is left, not even on a store that keeps a folder for every prefix
// (SeaweedFS).
func TestRemoveAll(t *testing.T) {
	for sname, start := range servers(t) {
		t.Run(sname, func(t *testing.T) {
			fsys, _ := newFs(t, start(t), "removeall")
			if err := fsys.MkdirAll("d/e/f", 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"d/x", "d/e/y", "d/e/f/z", "kept"} {
				if err := afero.WriteFile(fsys, name, []byte(name), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := fsys.RemoveAll("d"); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"d", "d/e", "d/e/f", "d/x"} {
				if _, err := fsys.Stat(name); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("after RemoveAll: Stat(%s): %v, want fs.ErrNotExist", name, err)
				}
			}
			infos, err := afero.ReadDir(fsys, "/")
			if err != nil || len(infos) != 1 || infos[0].Name() != "kept" {
				t.Errorf("after RemoveAll: the root lists %d entries, %v; want only kept", len(infos), err)
			}
		})
	}
}

// TestRemoveOpen checks that files open for reading read on, whole, after
// the Fs removes their object (Remove, RemoveAll) or a new object takes its
// name, as on a local disk; that a removal whose copy cannot be made fails
// and leaves the object; and that one removed or replaced by another
// client meanwhile is removed, its open files failing to read.
func TestRemoveOpen(t *testing.T) {
	for sname, start := range servers(t) {
		t.Run(sname, func(t *testing.T) {
			endpoint := start(t)
			spool := t.TempDir()
			fsys, _ := newFsSpool(t, endpoint, "removeopen", spool)
			other, _ := newFs(t, endpoint, "removeopen")
			want := remotetest.RandomBytes(300000, 6)
			if err := fsys.MkdirAll("d", 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"x", "d/y", "empty", "gone", "replaced"} {
				content := want
				if name == "empty" {
					content = nil
				}
				if err := afero.WriteFile(fsys, name, content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opened := map[string][]afero.File{}
			for _, name := range []string{"x", "x", "d/y", "empty", "gone", "replaced"} {
				f, err := fsys.Open(name)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				opened[name] = append(opened[name], f)
			}
			// One file of x has read part of it, and holds a GET open.
			head := make([]byte, 1000)
			if _, err := io.ReadFull(opened["x"][0], head); err != nil {
				t.Fatal(err)
			}

			// A removal that cannot copy fails, and changes nothing.
			os.Remove(spool)
			if err := fsys.Remove("x"); err == nil {
				t.Error("Remove copied x into a spool directory that is gone")
			}
			if _, err := other.Stat("x"); err != nil {
				t.Errorf("after a failed Remove: %v", err)
			}
			if err := os.Mkdir(spool, 0o700); err != nil {
				t.Fatal(err)
			}

			if err := other.Remove("gone"); err != nil {
				t.Fatal(err)
			}
			if err := afero.WriteFile(other, "replaced", []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"x", "empty", "gone", "replaced"} {
				if err := fsys.Remove(name); err != nil && name != "gone" {
					t.Errorf("Remove(%s): %v", name, err)
				}
			}
			if err := fsys.RemoveAll("d"); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"x", "d/y", "empty", "gone", "replaced"} {
				if _, err := other.Stat(name); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("after Remove: Stat(%s): %v, want fs.ErrNotExist", name, err)
				}
			}
			// A new object under x does not change what x's files read.
			if err := afero.WriteFile(fsys, "x", []byte("new x"), 0o644); err != nil {
				t.Fatal(err)
			}

			rest, err := io.ReadAll(opened["x"][0])
			if err != nil || !bytes.Equal(append(head, rest...), want) {
				t.Errorf("x, read on after its removal: %d bytes, %v; want the %d it held", len(head)+len(rest), err, len(want))
			}
			if err := iotest.TestReader(opened["x"][1], want); err != nil {
				t.Errorf("x, read after its removal: %v", err)
			}
			if got, err := io.ReadAll(opened["d/y"][0]); err != nil || !bytes.Equal(got, want) {
				t.Errorf("d/y, read after RemoveAll: %d bytes, %v", len(got), err)
			}
			if got, err := io.ReadAll(opened["empty"][0]); err != nil || len(got) != 0 {
				t.Errorf("empty, read after its removal: %q, %v", got, err)
			}
			for _, name := range []string{"gone", "replaced"} {
				if _, err := io.ReadAll(opened[name][0]); err == nil {
					t.Errorf("%s, changed by another client, then removed: read with no error", name)
				}
			}
			if got, err := afero.ReadFile(fsys, "x"); err != nil || string(got) != "new x" {
				t.Errorf("the new x reads %q, %v", got, err)
			}
		})
	}
}

// TestRemoveOpenFullSpool removes an object open for reading whose copy
// does not fit the spool directory (a 1 MiB tmpfs): the removal fails with
// ENOSPC and leaves the object, which the open file reads whole; once it
// is closed, the removal needs no copy and succeeds.
func TestRemoveOpenFullSpool(t *testing.T) {
	spool := tmpfs.Mount(t, "1m")
	endpoint := fakeS3(t)
	fsys, _ := newFsSpool(t, endpoint, "fullspool", spool)
	writer, _ := newFs(t, endpoint, "fullspool")
	want := remotetest.RandomBytes(2<<20, 8)
	if err := afero.WriteFile(writer, "x", want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Open("x")
	if err != nil {
		t.Fatal(err)
	}
	if err := fsys.Remove("x"); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Remove of an open file whose copy does not fit: %v, want ENOSPC", err)
	}
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("after the failed Remove, the open file reads %d bytes, %v", len(got), err)
	}
	f.Close()
	if err := fsys.Remove("x"); err != nil {
		t.Errorf("Remove once closed: %v", err)
	}
	if entries, _ := os.ReadDir(spool); len(entries) != 0 {
		t.Errorf("the spool directory holds %d files", len(entries))
	}
}

// TestRemoveOpenRace opens and reads a file while another goroutine
// removes it: every open that succeeds reads the whole content.
func TestRemoveOpenRace(t *testing.T) {
	fsys, _ := newFs(t, fakeS3(t), "race")
	want := remotetest.RandomBytes(50000, 7)
	for round := range 20 {
		if err := afero.WriteFile(fsys, "x", want, 0o644); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				f, err := fsys.Open("x")
				if err != nil {
					if !errors.Is(err, fs.ErrNotExist) {
						t.Error(err)
					}
					return
				}
				defer f.Close()
				if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, want) {
					t.Errorf("round %d: an open file of x read %d bytes, %v", round, len(got), err)
				}
			})
		}
		if err := fsys.Remove("x"); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
	}
}

var errIsDir = errors.New("is a directory")

func open(fsys afero.Fs, name string, flag int) error {
	f, err := fsys.OpenFile(name, flag, 0o644)
	if err == nil {
		f.Close()
	}
	if err != nil && strings.Contains(err.Error(), "is a directory") {
		return &fs.PathError{Op: "open", Path: name, Err: errors.Join(err, errIsDir)}
	}
	return err
}

// failingPuts fails the PUTs of object bodies after some of their bytes
// have gone.
type failingPuts struct{ next http.RoundTripper }

func (f failingPuts) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && req.ContentLength > 100 {
		req.Body = io.NopCloser(io.MultiReader(io.LimitReader(req.Body, 50), iotest.ErrReader(errors.New("connection reset"))))
	}
	return f.next.RoundTrip(req)
}

// TestWriteAtomic checks that an upload that fails, and a write that is
// discarded, leave the old object, and that Close reports the failure.
func TestWriteAtomic(t *testing.T) {
	endpoint := fakeS3(t)
	good, _ := newFs(t, endpoint, "")
	if err := afero.WriteFile(good, "x", []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad, err := s3fs.New(remotetest.Bucket, "", s3fs.Config{
		Endpoint: endpoint, Insecure: true, Region: "us-east-1",
		Credentials: credentials.NewStaticV4(remotetest.AccessKey, remotetest.SecretKey, ""),
		Transport:   failingPuts{http.DefaultTransport},
		SpoolDir:    t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	err = afero.WriteFile(bad, "x", remotetest.RandomBytes(1000, 3), 0o644)
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Errorf("failed upload: error %v, want a *fs.PathError", err)
	}
	if got, _ := afero.ReadFile(good, "x"); string(got) != "old content" {
		t.Errorf("after a failed upload x reads %q", got)
	}
	w, err := good.Replace("x", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("new"))
	w.Discard()
	if got, _ := afero.ReadFile(good, "x"); string(got) != "old content" {
		t.Errorf("after a discarded write x reads %q", got)
	}
	// Through fsx: a failed upload leaves the old encoded file.
	enc, _ := fsx.New(good, base16384.NewCodec())
	if err := afero.WriteFile(enc, "y", []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	encBad, _ := fsx.New(bad, base16384.NewCodec())
	if err := afero.WriteFile(encBad, "y", remotetest.RandomBytes(1000, 4), 0o644); err == nil {
		t.Error("fsx: a failed upload reported no error")
	}
	if got, err := afero.ReadFile(enc, "y"); string(got) != "old" {
		t.Errorf("fsx: after a failed upload y reads %q, %v", got, err)
	}
}

// TestFsxEdits writes through fsx the ways programs do (appends, writes in
// the middle, truncation), which S3 stores by rewriting the object.
func TestFsxEdits(t *testing.T) {
	base, _ := newFs(t, fakeS3(t), "")
	enc, err := fsx.New(base, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	want := remotetest.RandomBytes(10000, 5)
	if err := afero.WriteFile(enc, "x", want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := enc.OpenFile("x", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("tail"))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want = append(want, "tail"...)
	f, err = enc.OpenFile("x", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("MIDDLE"), 5000)
	copy(want[5000:], "MIDDLE")
	if err := f.Truncate(9000); err != nil {
		t.Fatal(err)
	}
	want = want[:9000]
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := afero.ReadFile(enc, "x")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after edits: %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
	names, _ := afero.ReadDir(base, "/")
	if len(names) != 1 {
		t.Errorf("the bucket holds %d objects after the edits, want 1", len(names))
	}
}

// TestStalledServer checks that a server that accepts connections and
// never answers fails a read within the timeout, with an error that says
// so and does not show the secret key.
func TestStalledServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	fsys, err := s3fs.New(remotetest.Bucket, "", s3fs.Config{
		Endpoint: l.Addr().String(), Insecure: true, Region: "us-east-1",
		Credentials: credentials.NewStaticV4(remotetest.AccessKey, remotetest.SecretKey, ""),
		Timeout:     500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = fsys.Stat("x")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Stat took %v on a stalled server", took)
	}
	if err == nil {
		t.Fatal("Stat on a stalled server succeeded")
	}
	if strings.Contains(err.Error(), remotetest.SecretKey) {
		t.Errorf("error shows the secret key: %v", err)
	}
}

// TestFaults cuts the connections to SeaweedFS mid-write and mid-read (as
// a dying server or network would), slows them down, and finally kills
// the server mid-read: writes fail with an error and leave the old object,
// reads fail with an error, and nothing hangs beyond the timeout.
func TestFaults(t *testing.T) {
	longtest.Skip(t, "starts SeaweedFS and cuts its connections")
	if remotetest.WeedBinary() == "" {
		t.Skip("needs SeaweedFS (.ci/weed builds it)")
	}
	endpoint, srv := remotetest.Weed(t)
	// SeaweedFS's first write makes its volumes, which can take longer
	// than a request's timeout on a loaded machine.
	warm, _ := newFs(t, endpoint, "warm")
	for range 3 {
		if afero.WriteFile(warm, "w", []byte("w"), 0o644) == nil {
			break
		}
	}
	proxy := remotetest.NewProxy(t, endpoint)
	base, _ := newFs(t, proxy.Addr, "faults")
	enc, err := fsx.New(base, base16384.NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	old := remotetest.RandomBytes(1<<20, 7)
	if err := afero.WriteFile(enc, "x", old, 0o644); err != nil {
		t.Fatal(err)
	}
	within := func(what string, d time.Duration, do func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- do() }()
		select {
		case err := <-done:
			return err
		case <-time.After(d):
			t.Fatalf("%s: no answer within %v", what, d)
			return nil
		}
	}

	// Mid-write: the upload of a 40 MiB file (multipart) is cut.
	f, err := enc.Create("x")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(remotetest.RandomBytes(40<<20, 8))
	proxy.SetDelay(2 * time.Millisecond)
	time.AfterFunc(300*time.Millisecond, proxy.Cut)
	err = within("Close with the connection cut", 60*time.Second, f.Close)
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Errorf("Close with the connection cut: %v, want a *fs.PathError", err)
	}
	proxy.SetDelay(0)
	proxy.Heal()
	if got, err := afero.ReadFile(enc, "x"); err != nil || !bytes.Equal(got, old) {
		t.Errorf("after a cut upload x reads %d bytes, %v; want the old %d bytes", len(got), err, len(old))
	}

	// Mid-read: the connection is cut while a large read streams.
	big := remotetest.RandomBytes(24<<20, 9)
	if err := afero.WriteFile(enc, "big", big, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := enc.Open("big")
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 1<<20)
	if _, err := io.ReadFull(r, p); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	err = within("reading with the connection cut", 30*time.Second, func() error {
		_, err := io.Copy(io.Discard, r)
		return err
	})
	if !errors.As(err, &pe) {
		t.Errorf("reading with the connection cut: %v, want a *fs.PathError", err)
	}
	r.Close()
	proxy.Heal()

	// The server killed mid-read.
	r, err = enc.Open("big")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, p); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	err = within("reading with the server killed", 30*time.Second, func() error {
		_, err := io.Copy(io.Discard, r)
		return err
	})
	if !errors.As(err, &pe) {
		t.Errorf("reading with the server killed: %v, want a *fs.PathError", err)
	}
	r.Close()
}

// TestManyClients is the scale-out case: several clients, each with its
// own connection pool and fsx, share one bucket, each writing its own files
// while reading the others'; every content is verified at the end by every
// client.
func TestManyClients(t *testing.T) {
	for sname, start := range servers(t) {
		t.Run(sname, func(t *testing.T) {
			endpoint := start(t)
			const clients, files = 4, 5
			content := func(c, i int) []byte { return remotetest.RandomBytes(100000+c*1000+i, uint64(c*100+i)) }
			fss := make([]*fsx.Fs, clients)
			for c := range fss {
				base, _ := newFs(t, endpoint, "shared")
				fss[c], _ = fsx.New(base, base16384.NewCodec())
			}
			if err := fss[0].MkdirAll("/", 0o755); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, clients*files*2)
			for c := range clients {
				wg.Go(func() {
					for i := range files {
						name := fmt.Sprintf("client%d-file%d", c, i)
						if err := afero.WriteFile(fss[c], name, content(c, i), 0o644); err != nil {
							errs <- err
							return
						}
						// Read whatever another client has stored so far:
						// nothing, an empty file (created, being written) or
						// the whole content, never part of it.
						other := fmt.Sprintf("client%d-file%d", (c+1)%clients, i)
						if got, err := afero.ReadFile(fss[c], other); err == nil && len(got) > 0 && !bytes.Equal(got, content((c+1)%clients, i)) {
							errs <- fmt.Errorf("client %d read %s: wrong content", c, other)
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			for c := range clients {
				for o := range clients {
					for i := range files {
						name := fmt.Sprintf("client%d-file%d", o, i)
						if got, err := afero.ReadFile(fss[c], name); err != nil || !bytes.Equal(got, content(o, i)) {
							t.Errorf("client %d reads %s: %d bytes, %v", c, name, len(got), err)
						}
					}
				}
			}
		})
	}
}

// TestExclusiveCreate has several clients create one name with O_EXCL at
// once, as themselves and through fsx: exactly one succeeds, the others
// fail with fs.ErrExist in a *fs.PathError, and the name holds what the
// winner wrote.
func TestExclusiveCreate(t *testing.T) {
	for sname, start := range servers(t) {
		t.Run(sname, func(t *testing.T) {
			endpoint := start(t)
			const clients = 6
			raws := make([]afero.Fs, clients)
			encs := make([]afero.Fs, clients)
			for c := range clients {
				base, _ := newFs(t, endpoint, "excl")
				raws[c] = base
				encs[c], _ = fsx.New(base, base16384.NewCodec())
			}
			// The store's first write is slow (SeaweedFS makes its volumes).
			if err := afero.WriteFile(raws[0], "warm", nil, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, tt := range []struct {
				name string
				fss  []afero.Fs
			}{{"raw", raws}, {"fsx", encs}} {
				t.Run(tt.name, func(t *testing.T) {
					won := remotetest.Race(clients, func(c int) bool {
						f, err := tt.fss[c].OpenFile("one", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
						var pe *fs.PathError
						switch {
						case err == nil:
							fmt.Fprintf(f, "client %d", c)
							if err := f.Close(); err != nil {
								t.Errorf("client %d: Close: %v", c, err)
							}
							return true
						case !errors.Is(err, fs.ErrExist) || !errors.As(err, &pe):
							t.Errorf("client %d: %v, want fs.ErrExist in a *fs.PathError", c, err)
						}
						return false
					})
					if len(won) != 1 {
						t.Fatalf("clients %v created the file, want exactly one", won)
					}
					got, err := afero.ReadFile(tt.fss[0], "one")
					if want := fmt.Sprintf("client %d", won[0]); string(got) != want || err != nil {
						t.Errorf("the file reads %q, %v; want %q", got, err, want)
					}
				})
			}
		})
	}
}

// noConditionalPuts answers 501 Not Implemented to PUTs with If-None-Match,
// as a store without conditional writes may.
type noConditionalPuts struct{ next http.RoundTripper }

func (n noConditionalPuts) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && req.Header.Get("If-None-Match") != "" {
		body := `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>A header you provided implies functionality that is not implemented</Message></Error>`
		return &http.Response{
			StatusCode: http.StatusNotImplemented, Status: "501 Not Implemented", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:        http.Header{"Content-Type": {"application/xml"}},
			Body:          io.NopCloser(strings.NewReader(body)),
			ContentLength: int64(len(body)), Request: req,
		}, nil
	}
	return n.next.RoundTrip(req)
}

// TestExclusiveCreateFallback checks O_EXCL on a store that does not
// implement conditional writes: the name is checked, then written.
func TestExclusiveCreateFallback(t *testing.T) {
	fsys, err := s3fs.New(remotetest.Bucket, "", s3fs.Config{
		Endpoint: fakeS3(t), Insecure: true, Region: "us-east-1",
		Credentials: credentials.NewStaticV4(remotetest.AccessKey, remotetest.SecretKey, ""),
		Transport:   noConditionalPuts{http.DefaultTransport},
		SpoolDir:    t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := open(fsys, "x", os.O_WRONLY|os.O_CREATE|os.O_EXCL); err != nil {
		t.Fatalf("creating a new name: %v", err)
	}
	if _, err := fsys.Stat("x"); err != nil {
		t.Errorf("the created file: %v", err)
	}
	if err := open(fsys, "x", os.O_WRONLY|os.O_CREATE|os.O_EXCL); !errors.Is(err, fs.ErrExist) {
		t.Errorf("creating an existing name: %v, want fs.ErrExist", err)
	}
}

// TestKeyTooLong checks that a name whose key would be longer than stores
// take fails with ENAMETOOLONG, before any request, in every call; one
// slash short of it works.
func TestKeyTooLong(t *testing.T) {
	endpoint := fakeS3(t)
	fsys, requests := newFs(t, endpoint, "long")
	room := 1023 - len("long/") // the longest key takes 1023 bytes
	fits := strings.Repeat("n", room)
	if err := afero.WriteFile(fsys, fits, []byte("x"), 0o644); err != nil {
		t.Fatalf("the longest name: %v", err)
	}
	long := fits + "g"
	before := requests.Requests()
	for op, err := range map[string]error{
		"stat":      func() error { _, err := fsys.Stat(long); return err }(),
		"open":      func() error { _, err := fsys.Open(long); return err }(),
		"create":    func() error { _, err := fsys.Create(long); return err }(),
		"mkdir":     fsys.Mkdir(long, 0o755),
		"mkdirall":  fsys.MkdirAll(long, 0o755),
		"remove":    fsys.Remove(long),
		"removeall": fsys.RemoveAll(long),
	} {
		if !errors.Is(err, syscall.ENAMETOOLONG) {
			t.Errorf("%s of a name whose key is 1,024 bytes: %v, want ENAMETOOLONG", op, err)
		}
	}
	if n := requests.Requests() - before; n != 0 {
		t.Errorf("%d requests for names too long, want none", n)
	}
}

// TestStoreKeyLimit checks that a store's own limit on keys, below S3's
// (SeaweedFS takes no element past 255 bytes), is ENAMETOOLONG, as a local
// directory's NAME_MAX is, not an I/O error.
func TestStoreKeyLimit(t *testing.T) {
	if !longtest.Enabled() || remotetest.WeedBinary() == "" {
		t.Skip("needs SeaweedFS, with the long checks (B14FS_LONG=1; .ci/weed builds it)")
	}
	endpoint, _ := remotetest.Weed(t)
	raw, _ := newFs(t, endpoint, "limit")
	err := afero.WriteFile(raw, strings.Repeat("q", 256), []byte("x"), 0o644)
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("a 256-byte name on SeaweedFS: %v, want ENAMETOOLONG", err)
	}
	if err := afero.WriteFile(raw, strings.Repeat("q", 255), []byte("x"), 0o644); err != nil {
		t.Errorf("a 255-byte name: %v", err)
	}
}
