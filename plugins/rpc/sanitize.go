package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
)

// Text from a plugin (error messages, log lines, anything it chose) is
// shown to the user only through cleanText: a plugin must not be able to
// move the cursor, recolour the terminal or forge lines of the host's own
// output.

// maxMessage caps, in bytes, a message or a log line from a plugin.
const maxMessage = 1024

// cleanText returns s, from a plugin, fit to print: cut to max bytes (at a
// character boundary, saying how much was cut), and, if it holds anything
// that is not printable (control characters such as newlines and escapes,
// bidirectional overrides, invalid UTF-8), quoted as a Go string literal, so
// that every such byte shows as an escape (\n, \x1b, \u202e).
func cleanText(s string, max int) string { return cutText(s, max, 0) }

// cutText is cleanText of a string that was already cut by dropped bytes.
func cutText(s string, max, dropped int) string {
	cut := dropped
	if len(s) > max {
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		cut += len(s) - n
		s = s[:n]
	}
	if !printable(s) {
		s = strconv.Quote(s)
	}
	if cut > 0 {
		s += fmt.Sprintf("... (%d more bytes)", cut)
	}
	return s
}

// printable reports whether s is valid UTF-8 made of printable characters
// and spaces only.
func printable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// validName reports whether name can name a plugin's codec: printable, and
// short enough to print whole.
func validName(name string) bool {
	return name != "" && len(name) <= 64 && printable(name) && !strings.ContainsAny(name, ",=: ")
}

// validSuffix reports whether a suffix a plugin suggests is fit to end a
// file name: empty, or a dot and up to 32 printable characters that hold no
// path separator and do not make "." or "..".
func validSuffix(s string) bool {
	if s == "" {
		return true
	}
	return len(s) >= 2 && len(s) <= 33 && s[0] == '.' && s != ".." && printable(s) &&
		!strings.ContainsAny(s, `/\ `)
}

// logRelay is the standard error of a plugin process: it splits what the
// plugin writes into lines and logs each, cleaned, to logger. A line in
// hclog's JSON form keeps its level, message and fields; any other line is
// logged at debug level, except a Go panic or fatal error and the lines that
// follow it, logged as errors. It never fails, so the plugin never blocks on
// its standard error.
type logRelay struct {
	logger hclog.Logger

	mu        sync.Mutex
	line      []byte   // a line not yet ended, cut at maxLogLine bytes
	dropped   int      // bytes of the line cut off
	panicking bool     // a panic began: the lines that follow are its trace
	tail      []string // the last lines logged, cleaned, at most tailLines
}

// tailLines is how many of its last log lines a plugin that fails to start
// has shown in the error.
const tailLines = 3

// last returns the last lines logged, cleaned, oldest first.
func (l *logRelay) last() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.tail)
}

// log logs a cleaned line and keeps it in the tail.
func (l *logRelay) log(level hclog.Level, msg string, args ...any) {
	l.logger.Log(level, msg, args...)
	if len(l.tail) == tailLines {
		l.tail = append(l.tail[:0], l.tail[1:]...)
	}
	l.tail = append(l.tail, cleanText(msg, 200))
}

// maxLogLine caps, in bytes, a line of a plugin's standard error: more than
// maxMessage, so that a message in a JSON line can be as long as that.
const maxLogLine = 64 << 10

func (l *logRelay) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxLogLine - len(l.line); len(chunk) > room {
			l.dropped += len(chunk) - room
			chunk = chunk[:room]
		}
		l.line = append(l.line, chunk...)
		if i < 0 {
			break
		}
		l.emit()
		p = p[i+1:]
	}
	return n, nil
}

// flush logs a last line that had no newline.
func (l *logRelay) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.line) > 0 {
		l.emit()
	}
}

func (l *logRelay) emit() {
	line := string(bytes.TrimSuffix(l.line, []byte{'\r'}))
	dropped := l.dropped
	l.line, l.dropped = l.line[:0], 0
	if dropped == 0 {
		if level, msg, args, ok := parseLogLine(line); ok {
			l.log(level, msg, args...)
			return
		}
	}
	level := hclog.Debug
	switch {
	case strings.HasPrefix(line, "panic: "), strings.HasPrefix(line, "fatal error: "):
		l.panicking = true
		level = hclog.Error
	case l.panicking:
		level = hclog.Error
	default:
		for _, lv := range []hclog.Level{hclog.Trace, hclog.Debug, hclog.Info, hclog.Warn, hclog.Error} {
			if strings.HasPrefix(line, "["+strings.ToUpper(lv.String())+"]") {
				level = lv
			}
		}
	}
	l.log(level, cutText(line, maxMessage, dropped))
}

// parseLogLine reads a line in hclog's JSON form, checking the type of
// every part: a plugin's line must never crash the host.
func parseLogLine(line string) (level hclog.Level, msg string, args []any, ok bool) {
	if !strings.HasPrefix(line, "{") {
		return 0, "", nil, false
	}
	var raw map[string]any
	if json.Unmarshal([]byte(line), &raw) != nil {
		return 0, "", nil, false
	}
	m, ok := raw["@message"].(string)
	if !ok {
		return 0, "", nil, false
	}
	lv, _ := raw["@level"].(string)
	level = hclog.LevelFromString(lv)
	if level == hclog.NoLevel {
		level = hclog.Debug
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		if !strings.HasPrefix(k, "@") && k != "timestamp" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys[:min(len(keys), 16)] {
		v, isString := raw[k].(string)
		if !isString {
			b, _ := json.Marshal(raw[k])
			v = string(b)
		}
		args = append(args, cleanText(k, 64), cleanText(v, maxMessage))
	}
	return level, cleanText(m, maxMessage), args, true
}
