package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
)

// registerCompletions makes the shell complete cmd's -c with the codecs of
// reg and their options, and --progress with its values.
func registerCompletions(cmd *cobra.Command, reg *core.Registry) {
	cmd.RegisterFlagCompletionFunc("chain", func(_ *cobra.Command, _ []string, word string) ([]string, cobra.ShellCompDirective) {
		return completeChain(reg, word), cobra.ShellCompDirectiveNoSpace
	})
	if cmd.Flags().Lookup("progress") != nil {
		cmd.RegisterFlagCompletionFunc("progress", cobra.FixedCompletions(progressModes, cobra.ShellCompDirectiveNoFileComp))
	}
}

// completeChain returns the completions of word, a chain spec being typed:
// codec names for a stage without '=', then its option keys and their
// values, for codecs that list them (core.OptionLister).
func completeChain(reg *core.Registry, word string) []string {
	done, stage := "", word
	if i := strings.LastIndexByte(word, ','); i >= 0 {
		done, stage = word[:i+1], word[i+1:]
	}
	name, opts, hasOpts := strings.Cut(stage, "=")
	var out []string
	if !hasOpts {
		for _, e := range reg.List() {
			if n := e.Codec.Name(); strings.HasPrefix(n, name) {
				out = append(out, done+n)
			}
		}
		return out
	}
	c, err := reg.Lookup(name)
	lister, ok := c.(core.OptionLister)
	if err != nil || !ok {
		return nil
	}
	set, current := "", opts
	if i := strings.LastIndexByte(opts, ':'); i >= 0 {
		set, current = opts[:i+1], opts[i+1:]
	}
	prefix := done + name + "=" + set
	key, value, hasValue := strings.Cut(current, "=")
	for _, o := range lister.OptionDocs() {
		switch {
		case !hasValue && strings.HasPrefix(o.Key, key):
			out = append(out, prefix+o.Key+"=\t"+o.Usage)
		case hasValue && o.Key == key:
			for _, v := range o.Values {
				if strings.HasPrefix(v, value) {
					out = append(out, prefix+key+"="+v)
				}
			}
		}
	}
	return out
}
