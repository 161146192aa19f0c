package main_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/core/codectest"
	"github.com/b14fs/b14fs/internal/testing/shareddata"
	"github.com/b14fs/b14fs/internal/testing/vectors"
	"github.com/b14fs/b14fs/plugins/rpc"
	"github.com/b14fs/b14fs/transform"
)

// remote is a registry of the built-in codecs served by this command, each
// as its plugin process, built once for the package's tests into the
// program pluginBin.
var (
	remote    *core.Registry
	pluginBin string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "b14fs-plugin")
	if err != nil {
		panic(err)
	}
	code := 1
	if host, err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
		host.Close()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds the command into dir as the plugin of each built-in codec
// and registers them in remote.
func build(dir string) (*rpc.Host, error) {
	bin := filepath.Join(dir, rpc.PluginPrefix+"base16384")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building b14fs-plugin: %v\n%s", err, out)
	}
	pluginBin = bin
	if err := os.Link(bin, filepath.Join(dir, rpc.PluginPrefix+"bencode")); err != nil {
		return nil, err
	}
	remote = new(core.Registry)
	return rpc.Discover(remote, dir, rpc.WithLogger(hclog.NewNullLogger()))
}

// chains are the codecs and options compared, in process and out.
var chains = map[string][]string{
	"base16384": {"base16384", "base16384=form=utf8", "base16384=form=utf8:wrap=38:newline=true", "base16384=checksum=true", "base16384=bom=true:strict=true"},
	"bencode":   {"bencode", "bencode=lenient=true"},
}

// convert runs input through the chain of reg, encoding or decoding, and
// returns the output and the error's text.
func convert(t *testing.T, reg *core.Registry, chain string, decode bool, input []byte) ([]byte, string) {
	t.Helper()
	c, err := transform.New(reg, chain)
	if err != nil {
		t.Fatalf("%s: %v", chain, err)
	}
	r := c.NewEncodeReader(bytes.NewReader(input))
	if decode {
		r = c.NewDecodeReader(bytes.NewReader(input))
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		return out, err.Error()
	}
	return out, ""
}

// same checks that the built-in codec named by the chain gives the same
// bytes and the same error in process and through its plugin.
func same(t *testing.T, codec, name string, decode bool, input []byte) {
	t.Helper()
	for _, chain := range chains[codec] {
		want, wantErr := convert(t, builtin.Registry(), chain, decode, input)
		got, gotErr := convert(t, remote, chain, decode, input)
		if wantErr != "" {
			got, want = nil, nil // what comes before an error may differ
		}
		if !bytes.Equal(got, want) || gotErr != wantErr {
			t.Errorf("%s of %s (%d bytes), decode %v: through the plugin %d bytes, error %q; in process %d bytes, error %q",
				chain, name, len(input), decode, len(got), gotErr, len(want), wantErr)
		}
	}
}

// TestSharedCorpus compares the codecs in process and through their plugin
// on every file of the shared corpus: the base16384 vectors encoded and
// their encodings decoded, the bencode files decoded and their decodings
// encoded back.
func TestSharedCorpus(t *testing.T) {
	t.Parallel()
	for _, codec := range []string{"base16384", "bencode"} {
		t.Run(codec, func(t *testing.T) {
			dir := shareddata.Dir(t, codec)
			n := 0
			err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".tsv") {
					return err
				}
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(dir, path)
				encoded := codec == "bencode" || strings.HasSuffix(path, ".b14")
				same(t, codec, rel, encoded, data)
				if plain, errText := convert(t, builtin.Registry(), codec, true, data); encoded && errText == "" {
					same(t, codec, rel+" decoded", false, plain)
				}
				n++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d files of %s compared", n, dir)
		})
	}
}

// TestRepositoryData does the same on the repository's own data: the
// reference base16384 inputs and the bencode corpus of plugins/bencode.
func TestRepositoryData(t *testing.T) {
	t.Parallel()
	vs, err := vectors.Base16384()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		same(t, "base16384", v.Name, false, v.Plain)
	}
	files, err := filepath.Glob("../../plugins/bencode/testdata/corpus/*/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("the repository's bencode corpus: %v, %d files", err, len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "bencode", f, true, data)
	}
}

// TestContract runs the codec conformance suite on each plugin.
func TestContract(t *testing.T) {
	t.Parallel()
	inputs := [][]byte{nil, []byte("x"), []byte("hello, plugin"), bytes.Repeat([]byte("0123456789"), 30000)}
	for _, name := range []string{"base16384", "bencode"} {
		t.Run(name, func(t *testing.T) {
			c, err := remote.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			in := inputs
			if name == "bencode" {
				in = bencodeJSON(t)
			}
			codectest.TestCodec(t, c, in...)
		})
	}
}

// TestChainContract runs the conformance suite on a chain with a plugin's
// stage between built-in ones: bencode, then base16384 through its plugin,
// then base16384 in UTF-8 in process.
func TestChainContract(t *testing.T) {
	t.Parallel()
	var stages []core.Codec
	for _, s := range []struct {
		reg  *core.Registry
		spec string
	}{{builtin.Registry(), "bencode"}, {remote, "base16384"}, {builtin.Registry(), "base16384=form=utf8"}} {
		c, err := transform.New(s.reg, s.spec)
		if err != nil {
			t.Fatal(err)
		}
		stages = append(stages, c)
	}
	codectest.TestCodec(t, transform.Compose(stages...), bencodeJSON(t)...)
}

// bencodeJSON returns JSON in the form the bencode decoder writes, which
// encoding then decoding gives back byte for byte: the decodings of the
// first files of the repository's corpus.
func bencodeJSON(t *testing.T) [][]byte {
	files, _ := filepath.Glob("../../plugins/bencode/testdata/corpus/valid/*")
	var inputs [][]byte
	for _, f := range files[:min(len(files), 3)] {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		plain, errText := convert(t, builtin.Registry(), "bencode", true, data)
		if errText != "" {
			t.Fatalf("%s: %s", f, errText)
		}
		inputs = append(inputs, plain)
	}
	return append(inputs, []byte("7\n"))
}

// TestOptions checks that each plugin lists the options of its codec, as
// b14fs plugins shows them.
func TestOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Link(pluginBin, filepath.Join(dir, rpc.PluginPrefix+"bencode")); err != nil {
		t.Fatal(err)
	}
	host, err := rpc.Discover(new(core.Registry), dir, rpc.WithLogger(hclog.NewNullLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	list := host.Inspect()
	want := builtin.Codecs()[1].(core.OptionLister).OptionDocs()
	if len(list) != 1 || list[0].Err != nil || fmt.Sprint(list[0].Options) != fmt.Sprint(want) {
		t.Errorf("Inspect: %+v, want the options %v", list, want)
	}
}
