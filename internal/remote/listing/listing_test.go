package listing

import (
	"io"
	"io/fs"
	"os"
	"slices"
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
