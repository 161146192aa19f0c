package main

import (
	"fmt"
	"strings"

	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/transform"
)

// viewFlags are the flags of the commands that show a directory of encoded
// files decoded (mount, serve): one place defines them and builds the view.
type viewFlags struct {
	chain, suffix, ext string
	showAll, writable  bool
}

// add defines the view flags on cmd.
func (v *viewFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&v.chain, "chain", "c", defaultChain, "the chain the files of DIR are encoded with")
	cmd.Flags().StringVar(&v.suffix, "suffix", "", "the suffix of stored names (default: the codec's own, such as .b14)")
	cmd.Flags().StringVar(&v.ext, "ext", "", "show stored `.STORED=.SHOWN` names with the extension replaced")
	cmd.Flags().BoolVar(&v.showAll, "show-all", false, "show the other files of DIR too, as they are")
	cmd.Flags().BoolVarP(&v.writable, "writable", "w", false, "let programs write: files are stored encoded")
}

// build returns the decoded view of base that the flags of cmd ask for.
// A bad chain or mapping is a usage error.
func (v *viewFlags) build(cmd *cobra.Command, reg *core.Registry, base afero.Fs) (*fsx.Fs, error) {
	codec, err := transform.New(reg, v.chain)
	if err != nil {
		return nil, err
	}
	var opts []fsx.Option
	switch {
	case v.ext != "":
		stored, shown, ok := strings.Cut(v.ext, "=")
		if !ok {
			return nil, usageError{fmt.Errorf("--ext %q: want .STORED=.SHOWN", v.ext)}
		}
		opts = append(opts, fsx.WithExtension(stored, shown))
	case cmd.Flags().Changed("suffix"):
		opts = append(opts, fsx.WithSuffix(v.suffix))
	}
	if v.showAll {
		opts = append(opts, fsx.ShowUnmapped())
	}
	fsys, err := fsx.New(base, codec, opts...)
	if err != nil {
		return nil, usageError{err}
	}
	return fsys, nil
}
