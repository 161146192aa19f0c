package rot13

import "github.com/b14fs/b14fs/core"

// What the plugin declares beside the codec: the suffix of encoded files
// (core.Suffixer) and its option (core.Configurable, core.OptionLister).

// Suffix returns ".rot13", the suffix b14fs gives encoded files.
func (Codec) Suffix() string { return ".rot13" }

// OptionDocs lists the options WithOptions takes.
func (Codec) OptionDocs() []core.OptionDoc {
	return []core.OptionDoc{{Key: "shift", Usage: "rotate letters by N places, 1..25 (default 13)"}}
}

// WithOptions takes shift=N. The host asks the plugin when a chain is
// built, so a bad option fails at once, with this error.
func (c Codec) WithOptions(opts core.Options) (core.Codec, error) {
	for _, opt := range opts {
		if opt.Key != "shift" {
			return nil, opt.Unknown(c.Name())
		}
		shift, err := opt.IntIn(c.Name(), 1, 25)
		if err != nil {
			return nil, err
		}
		c.beyond13 = shift - 13
	}
	return c, nil
}
