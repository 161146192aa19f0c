package main

import (
	"errors"
	"io"
	"os"
	"unicode/utf8"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// errBinaryToTerminal refuses binary output to a terminal, as gzip and zstd
// do: it would garble the screen, and is rarely what was meant.
var errBinaryToTerminal = errors.New("refusing to write binary data to a terminal: use -o FILE, a pipe, or -f to force")

// sniffLen is how much of the output's start textGuard looks at.
const sniffLen = 8 << 10

// A textGuard passes what is written to it on to w once the first write
// shows that it is text (see isText); for binary it writes nothing and
// fails with a usage error.
type textGuard struct {
	w       io.Writer
	checked bool
}

func (g *textGuard) Write(p []byte) (int, error) {
	if !g.checked && len(p) > 0 {
		if !isText(p[:min(len(p), sniffLen)], len(p) > sniffLen) {
			return 0, usageError{errBinaryToTerminal}
		}
		g.checked = true
	}
	return g.w.Write(p)
}

// isText reports whether p is UTF-8 text without control characters but
// tab, line feed, carriage return, form feed and backspace; a character
// cut at p's end counts when more follows.
func isText(p []byte, more bool) bool {
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && n <= 1:
			return more && !utf8.FullRune(p)
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\b', r == 0x7F:
			return false
		}
		p = p[n:]
	}
	return true
}
