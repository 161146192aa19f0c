package listing

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"syscall"
	"testing"
	"testing/fstest"
)

func TestPages(t *testing.T) {
	m := fstest.MapFS{"a": {}, "b": {}, "c": {}}
	var infos []os.FileInfo
	for _, name := range []string{"a", "b", "c"} {
		info, err := fs.Stat(m, name)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	var p Pages
	if p.Listed() {
		t.Fatal("Listed before Set")
	}
	p.Set(infos)
	for _, step := range []struct {
		n    int
		want []string
		err  error
	}{
		{2, []string{"a", "b"}, nil},
		{2, []string{"c"}, nil},
		{2, []string{}, io.EOF},
		{0, []string{}, nil},
	} {
		names, err := Names(p.Next(step.n))
		if !slices.Equal(names, step.want) || err != step.err {
			t.Errorf("Next(%d) = %q, %v; want %q, %v", step.n, names, err, step.want, step.err)
		}
	}
	var all Pages
	all.Set(infos)
	if names, err := Names(all.Next(-1)); len(names) != 3 || err != nil {
		t.Errorf("Next(-1) = %q, %v; want all three", names, err)
	}
}

// TestDir checks that a Dir lists its directory once, hands the entries
// out in pages, returns list's error as it is, refuses what a directory
// cannot do with EISDIR, and fails after Close.
func TestDir(t *testing.T) {
	m := fstest.MapFS{"a": {}, "b": {}}
	var infos []os.FileInfo
	for _, name := range []string{"a", "b"} {
		info, err := fs.Stat(m, name)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	lists := 0
	d := NewDir("d", infos[0], func() ([]os.FileInfo, error) { lists++; return infos, nil })
	if names, err := d.Readdirnames(1); err != nil || !slices.Equal(names, []string{"a"}) {
		t.Fatalf("Readdirnames(1) = %v, %v", names, err)
	}
	if got, err := d.Readdir(0); err != nil || len(got) != 1 || got[0].Name() != "b" {
		t.Fatalf("Readdir(0) = %v, %v", got, err)
	}
	if lists != 1 {
		t.Errorf("listed %d times, want 1", lists)
	}
	for op, err := range map[string]error{
		"read":     func() error { _, err := d.Read(nil); return err }(),
		"write":    func() error { _, err := d.WriteString("x"); return err }(),
		"truncate": d.Truncate(0),
	} {
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Op != op || !errors.Is(err, syscall.EISDIR) {
			t.Errorf("%s: %v, want EISDIR in a *fs.PathError", op, err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Close: %v, want fs.ErrClosed", err)
	}
	if _, err := d.Readdir(1); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Readdir after Close: %v, want fs.ErrClosed", err)
	}
	failed := errors.New("listing failed")
	e := NewDir("e", infos[0], func() ([]os.FileInfo, error) { return nil, failed })
	if _, err := e.Readdir(1); err != failed {
		t.Errorf("Readdir = %v, want list's error as it is", err)
	}
}
