package main

import (
	"errors"
	"fmt"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/transform"
)

// textFlags are the flags for text for people: -w for encode, -i for
// decode.
type textFlags struct {
	wrap          int
	wrapSet       bool // -w was given
	ignoreGarbage bool
}

// textChain returns the chain of spec with its last stage, the one that
// writes what encode outputs and reads what decode is given, set out for
// people as the text flags ask (core.Texter). When encode writes text,
// such as base16384=form=utf8, it ends with a newline (unless the chain
// says otherwise) and -w sets its lines; -w needs such text. -i needs a
// last stage that can skip garbage. binary reports that encode writes the
// binary form of a codec that could write text, such as base16384's raw
// UTF-16BE.
func textChain(g *globals, spec string, dir direction, f textFlags) (_ core.Codec, binary bool, err error) {
	stages, err := transform.Parse(spec)
	if err != nil {
		return nil, false, err
	}
	codecs, err := transform.Configure(g.reg, stages, g.chain...)
	if err != nil {
		return nil, false, err
	}
	last := &codecs[len(codecs)-1]
	texter, isTexter := (*last).(core.Texter)
	flag, o := "-w", core.TextOptions{Wrap: f.wrap, WrapSet: f.wrapSet}
	switch {
	case dir.name == encodeDirection.name:
		text := isTexter && texter.WritesText()
		binary = isTexter && !text
		if f.wrapSet && !text {
			return nil, false, usageError{errors.New("-w: lines are for text: end the chain with base16384=form=utf8")}
		}
		if !text {
			return transform.Compose(codecs...), binary, nil
		}
	case !f.ignoreGarbage:
		return transform.Compose(codecs...), false, nil
	case !isTexter:
		return nil, false, usageError{fmt.Errorf("-i: the chain's last stage is %s, not base16384", (*last).Name())}
	default:
		flag, o = "-i", core.TextOptions{SkipGarbage: true}
	}
	if *last, err = texter.Text(o); err != nil {
		return nil, false, usageError{fmt.Errorf("%s: %w", flag, err)}
	}
	return transform.Compose(codecs...), binary, nil
}
