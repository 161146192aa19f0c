package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/base16384"
	"github.com/b14fs/b14fs/transform"
)

// textFlags are the flags for base16384 text: -w for encode, -i for decode.
type textFlags struct {
	wrap          int
	wrapSet       bool // -w was given
	ignoreGarbage bool
}

// textSpec returns spec with the options the text flags ask for added to
// its last stage, the one that writes what encode outputs and reads what
// decode is given. When encode writes base16384's UTF-8 form, that is text
// for people: it ends with a newline (unless the spec says newline=false)
// and -w sets its lines. -w needs that form; -i needs base16384 last. raw
// reports that encode writes base16384's raw UTF-16BE form, which is
// binary.
func textSpec(spec string, dir direction, f textFlags) (_ string, raw bool, err error) {
	stages, err := transform.Parse(spec)
	if err != nil {
		return "", false, err
	}
	last := &stages[len(stages)-1]
	isB14 := last.Name == base16384.Name
	add := func(key, value string) { last.Options = append(last.Options, core.Option{Key: key, Value: value}) }
	switch {
	case dir.name == encodeDirection.name:
		text := isB14 && optionValue(last.Options, "form") == "utf8"
		raw = isB14 && !text
		if f.wrapSet && !text {
			return "", false, usageError{errors.New("-w: lines are for text: end the chain with base16384=form=utf8")}
		}
		if f.wrapSet {
			add("wrap", strconv.Itoa(f.wrap))
		}
		if text && optionValue(last.Options, "newline") == "" {
			add("newline", "true")
		}
	case f.ignoreGarbage:
		if !isB14 {
			return "", false, usageError{fmt.Errorf("-i: the chain's last stage is %s, not base16384", last.Name)}
		}
		add("garbage", "skip")
	}
	parts := make([]string, len(stages))
	for i, s := range stages {
		parts[i] = s.String()
	}
	return strings.Join(parts, ","), raw, nil
}

// optionValue returns the value of the last option named key, or "".
func optionValue(opts core.Options, key string) string {
	v := ""
	for _, o := range opts {
		if o.Key == key {
			v = o.Value
		}
	}
	return v
}
