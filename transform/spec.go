// Package transform turns chain specs such as "bencode,base16384=form=utf8"
// into codecs that run their stages as one streaming pipeline.
//
// A spec is stages separated by commas; each stage is a codec name, optionally
// followed by '=' and key=value options separated by ':' (the ffmpeg
// filter-graph convention):
//
//	name
//	name=key=value
//	name=key=value:key=value
//
// Encoding applies the stages left to right and decoding right to left, so
// one spec names both directions. Spaces around a stage are ignored. Names,
// keys and values cannot hold ',', and names and keys cannot hold ':' or '='.
//
// New builds a chain from a spec in three steps, each a function of its own
// for callers that hold a step's result already: Parse splits the spec into
// Stages, Configure looks up and configures the codec of each stage, and
// Compose chains codecs. Options of New and Configure (MapStages) change
// the codecs of every stage as they are made.
package transform

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/b14fs/b14fs/core"
)

// A Stage is one parsed stage of a chain spec.
type Stage struct {
	Name    string       // the codec's name
	Options core.Options // its options, in the order given
}

// String returns the stage in spec form.
func (s Stage) String() string {
	if len(s.Options) == 0 {
		return s.Name
	}
	return s.Name + "=" + s.Options.String()
}

// ErrSpec is matched by errors.Is for every *SpecError.
var ErrSpec = errors.New("bad chain spec")

// A SpecError reports a chain spec that cannot be parsed or built, pointing at
// the offending stage.
type SpecError struct {
	Spec   string // the whole spec
	Stage  int    // index of the offending stage, from 0
	Offset int    // byte offset of that stage in Spec
	Err    error  // what is wrong: a parse error, a core.ErrUnknownCodec or a *core.OptionError
}

func (e *SpecError) Error() string {
	stage := e.Spec
	if e.Offset <= len(stage) {
		stage = stage[e.Offset:]
	}
	if i := strings.IndexByte(stage, ','); i >= 0 {
		stage = stage[:i]
	}
	return fmt.Sprintf("chain %q: stage %d (%q at byte %d): %v", e.Spec, e.Stage+1, stage, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *SpecError) Unwrap() error { return e.Err }

// Is reports whether target is ErrSpec.
func (e *SpecError) Is(target error) bool { return target == ErrSpec }

// Parse splits a chain spec into its stages without looking any codec up.
func Parse(spec string) ([]Stage, error) {
	var stages []Stage
	offset := 0
	for i, text := range strings.Split(spec, ",") {
		stage, err := parseStage(text)
		if err != nil {
			return nil, &SpecError{Spec: spec, Stage: i, Offset: offset, Err: err}
		}
		stages = append(stages, stage)
		offset += len(text) + 1
	}
	return stages, nil
}

func parseStage(text string) (Stage, error) {
	text = strings.TrimSpace(text)
	name, opts, hasOpts := strings.Cut(text, "=")
	if name == "" {
		return Stage{}, errors.New("empty codec name")
	}
	if strings.ContainsAny(name, ": \t") {
		return Stage{}, fmt.Errorf("bad codec name %q", name)
	}
	stage := Stage{Name: name}
	if !hasOpts {
		return stage, nil
	}
	if opts == "" {
		return Stage{}, errors.New("'=' with no options after it")
	}
	for _, kv := range strings.Split(opts, ":") {
		key, value, ok := strings.Cut(kv, "=")
		if !ok {
			return Stage{}, fmt.Errorf("option %q is not key=value", kv)
		}
		if key == "" {
			return Stage{}, fmt.Errorf("option %q has an empty key", kv)
		}
		if slices.ContainsFunc(stage.Options, func(o core.Option) bool { return o.Key == key }) {
			return Stage{}, fmt.Errorf("option %q given twice", key)
		}
		stage.Options = append(stage.Options, core.Option{Key: key, Value: value})
	}
	return stage, nil
}
