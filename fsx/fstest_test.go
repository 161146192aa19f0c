package fsx_test

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/b14fs/b14fs/transform"
	"github.com/spf13/afero"
)

// codecs returns the codecs every test runs with.
func codecs() map[string]core.Codec {
	return map[string]core.Codec{
		"block":          b64{},
		"block-header":   b64{header: true},
		"stream":         gz{},
		"base16384":      base16384.NewCodec(),
		"base16384-utf8": base16384Codec("form=utf8", "bom=true"),
		"chain":          transform.Compose(gz{}, base16384.NewCodec()),
	}
}

// base16384Codec returns the base16384 codec with options key=value.
func base16384Codec(opts ...string) core.Codec {
	var o core.Options
	for _, opt := range opts {
		k, v, _ := strings.Cut(opt, "=")
		o = append(o, core.Option{Key: k, Value: v})
	}
	c, err := base16384.NewCodec().WithOptions(o)
	if err != nil {
		panic(err)
	}
	return c
}

// tree holds the files TestFS checks: path to content.
var tree = map[string]string{
	"a.txt":             "hello, world\n",
	"empty":             "",
	"dir/b.bin":         strings.Repeat("0123456789", 100),
	"dir/sub/c":         "x",
	"dir/sub/deeper/d7": "1234567",
	"e.json":            `{"k":"v"}`,
}

func writeTree(t *testing.T, fsys afero.Fs, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := fsys.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := afero.WriteFile(fsys, name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func treeNames(files map[string]string) []string {
	var names []string
	for name := range files {
		names = append(names, name)
	}
	return names
}

func TestFS(t *testing.T) {
	t.Parallel()
	for _, b := range backends() {
		for cname, c := range codecs() {
			t.Run(b.name+"/"+cname, func(t *testing.T) {
				fsys := newFs(t, b.fresh(t), c)
				writeTree(t, fsys, tree)
				if err := fstest.TestFS(afero.NewIOFS(fsys), treeNames(tree)...); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestFSMappings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     []fsx.Option
		files    map[string]string // written through fsx
		raw      map[string]string // written to the base as they are
		expected []string
	}{
		{
			name:     "extension",
			opts:     []fsx.Option{fsx.WithExtension(".torrent", ".json")},
			files:    map[string]string{"x.json": "{}", "d/y.json": "[1]"},
			raw:      map[string]string{"notes.txt": "not shown"},
			expected: []string{"x.json", "d/y.json"},
		},
		{
			name:     "unmapped shown",
			opts:     []fsx.Option{fsx.ShowUnmapped()},
			files:    map[string]string{"a": "A", "d/b": "B"},
			raw:      map[string]string{"notes.txt": "shown as is", "d/c.raw": "raw"},
			expected: []string{"a", "d/b", "notes.txt", "d/c.raw"},
		},
		{
			name:     "no suffix",
			opts:     []fsx.Option{fsx.WithSuffix("")},
			files:    map[string]string{"a": "A", "d/b.b64": "B"},
			expected: []string{"a", "d/b.b64"},
		},
	}
	for _, tt := range tests {
		for _, b := range backends() {
			t.Run(tt.name+"/"+b.name, func(t *testing.T) {
				base := b.fresh(t)
				writeTree(t, base, tt.raw)
				fsys := newFs(t, base, b64{}, tt.opts...)
				writeTree(t, fsys, tt.files)
				if err := fstest.TestFS(afero.NewIOFS(fsys), tt.expected...); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
