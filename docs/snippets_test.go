// Package docs holds the project's documentation; its test compiles every
// Go snippet of the documents, so that none of them goes stale.
package docs

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// imports are the packages a snippet may use without importing them: the
// test adds the imports a snippet needs, as a reader would.
var imports = map[string]string{
	"afero":     "github.com/spf13/afero",
	"base16384": "github.com/b14fs/b14fs/plugins/base16384",
	"bencode":   "github.com/b14fs/b14fs/plugins/bencode",
	"builtin":   "github.com/b14fs/b14fs/builtin",
	"core":      "github.com/b14fs/b14fs/core",
	"fsx":       "github.com/b14fs/b14fs/fsx",
	"torrent":   "github.com/b14fs/b14fs/torrent",
	"transform": "github.com/b14fs/b14fs/transform",
	"context":   "context",
	"fmt":       "fmt",
	"io":        "io",
	"os":        "os",
	"sha1":      "crypto/sha1",
}

// ambient declares what snippets take as given: the values their text
// names without making them (a context, a torrent's bytes, a file).
const ambient = `
var (
	ctx       context.Context
	data      []byte
	file      io.Reader
	out       io.Writer
	downloads string
)
`

// A snippet is a Go code block of a document.
type snippet struct {
	doc  string // the document's path
	line int    // the line the code starts on
	code string
}

var fence = regexp.MustCompile("(?ms)^```go\n(.*?)^```")

// snippets returns the Go code blocks of the documents: docs/*.md and the
// READMEs.
func snippets(t *testing.T) []snippet {
	docs, _ := filepath.Glob("*.md")
	readmes, _ := filepath.Glob("../examples/plugins/*/README.md")
	docs = append(append(docs, "../README.md"), readmes...)
	var all []snippet
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fence.FindAllSubmatchIndex(text, -1) {
			line := 1 + bytes.Count(text[:m[2]], []byte("\n"))
			all = append(all, snippet{doc, line, string(text[m[2]:m[3]])})
		}
	}
	return all
}

// program returns a Go file of package name that holds s: as it is when
// it is made of declarations, else as the body of a function whose
// variables are all used, with the imports the snippet needs and the
// ambient values.
func program(s snippet, name string) ([]byte, error) {
	src := "package " + name + "\n" + s.code
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "", src, 0); err != nil {
		src = "package " + name + "\nfunc _() error {\n" + s.code + "\nreturn nil\n}\n"
		f, err := parser.ParseFile(fset, "", src, 0)
		if err != nil {
			return nil, fmt.Errorf("neither declarations nor statements: %v", err)
		}
		// "declared and not used" is no fault of a snippet.
		var used []string
		for _, stmt := range f.Decls[0].(*ast.FuncDecl).Body.List {
			if a, ok := stmt.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
				for _, lhs := range a.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && id.Name != "_" {
						used = append(used, "_ = "+id.Name)
					}
				}
			}
		}
		src = "package " + name + "\nfunc _() error {\n" + s.code + "\n" + strings.Join(used, "\n") + "\nreturn nil\n}\n"
	}
	var names []string
	for pkg := range imports {
		if strings.Contains(src+ambient, pkg+".") {
			names = append(names, pkg)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "// %s:%d\n%s\nimport (\n", s.doc, s.line, strings.SplitN(src, "\n", 2)[0])
	for _, pkg := range names {
		fmt.Fprintf(&b, "\t%q\n", imports[pkg])
	}
	b.WriteString(")\n" + ambient + strings.SplitN(src, "\n", 2)[1])
	return format.Source([]byte(b.String()))
}

// TestSnippets compiles every Go snippet of the documents, each as a
// package of its own inside the module (so that it builds against the
// code beside it), in a directory that ./... leaves out.
func TestSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds each snippet with the go command")
	}
	all := snippets(t)
	if len(all) == 0 {
		t.Fatal("no Go snippet found in the documents")
	}
	dir, err := os.MkdirTemp("..", "_snippets")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var pkgs, legend []string
	for i, s := range all {
		name := fmt.Sprintf("s%d", i)
		src, err := program(s, name)
		if err != nil {
			t.Errorf("%s:%d: %v", s.doc, s.line, err)
			continue
		}
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "snippet.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(filepath.Base(dir), name)))
		legend = append(legend, fmt.Sprintf("%s is the snippet at %s:%d", name, s.doc, s.line))
	}
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the snippets do not compile:\n%s\n%s", out, strings.Join(legend, "\n"))
	}
}
