package serve

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// x/net's webdav leaves out checks that this file adds in front of it: the
// entity tags in If headers (RFC 4918), If-Match and If-None-Match on the
// requests that change their target (RFC 9110; http.ServeContent checks
// them for GET and HEAD), and namespace declarations that bind a prefix to
// the empty name in request bodies.

// ifList is one parenthesized list of an If header.
type ifList struct {
	raw    string   // as sent, parentheses included
	etags  []ifETag // its entity-tag conditions
	tokens int      // how many state-token conditions it has
}

type ifETag struct {
	not  bool
	etag string // quotes included
}

// ifGroup is the lists of an If header for one resource tag ("" for
// untagged lists, which apply to the request URL).
type ifGroup struct {
	tag   string // as sent, angle brackets included, or ""
	lists []ifList
}

// parseIf parses an If header into its groups; ok is false when it is
// malformed (webdav then answers 400 itself).
func parseIf(s string) (groups []ifGroup, ok bool) {
	s = strings.TrimSpace(s)
	for s != "" {
		switch s[0] {
		case '<':
			end := strings.IndexByte(s, '>')
			if end < 0 {
				return nil, false
			}
			groups = append(groups, ifGroup{tag: s[:end+1]})
			s = s[end+1:]
		case '(':
			if len(groups) == 0 {
				groups = append(groups, ifGroup{})
			}
			l, rest, ok := parseIfList(s)
			if !ok {
				return nil, false
			}
			g := &groups[len(groups)-1]
			g.lists = append(g.lists, l)
			s = rest
		default:
			return nil, false
		}
		s = strings.TrimLeft(s, " \t")
	}
	for _, g := range groups {
		if len(g.lists) == 0 {
			return nil, false
		}
	}
	return groups, len(groups) > 0
}

// parseIfList parses the list at the start of s, "(" conditions ")".
func parseIfList(s string) (ifList, string, bool) {
	var l ifList
	rest := strings.TrimLeft(s[1:], " \t")
	n := 0
	for {
		if rest == "" {
			return l, "", false
		}
		if rest[0] == ')' {
			l.raw = s[:len(s)-len(rest)+1]
			return l, rest[1:], n > 0
		}
		not := false
		if strings.HasPrefix(rest, "Not") {
			not = true
			rest = strings.TrimLeft(rest[3:], " \t")
		}
		switch {
		case strings.HasPrefix(rest, "<"):
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return l, "", false
			}
			l.tokens++
			rest = rest[end+1:]
		case strings.HasPrefix(rest, "["):
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return l, "", false
			}
			l.etags = append(l.etags, ifETag{not: not, etag: strings.TrimSpace(rest[1:end])})
			rest = rest[end+1:]
		default:
			return l, "", false
		}
		n++
		rest = strings.TrimLeft(rest, " \t")
	}
}

// checkIfETags drops from r's If header the lists whose entity-tag
// conditions do not hold, leaving webdav to check their state tokens. It
// reports false when no list is left: the request fails with 412. When
// every list left has no state token, the header holds: it is removed, as
// webdav fails every list without a token (a lock on the resource still
// needs its token then: webdav answers 423).
func (h *handler) checkIfETags(r *http.Request) bool {
	hdr := r.Header.Get("If")
	if hdr == "" {
		return true
	}
	groups, ok := parseIf(hdr)
	if !ok {
		return true
	}
	var kept []ifGroup
	changed := false
	for _, g := range groups {
		target := r.URL.Path
		if g.tag != "" {
			u, err := url.Parse(g.tag[1 : len(g.tag)-1])
			if err != nil {
				return true
			}
			target = u.Path
		}
		var lists []ifList
		for _, l := range g.lists {
			if h.etagsHold(r, target, l.etags) {
				lists = append(lists, l)
			} else {
				changed = true
			}
		}
		if len(lists) > 0 {
			kept = append(kept, ifGroup{tag: g.tag, lists: lists})
		}
	}
	if len(kept) == 0 {
		return false
	}
	if !hasTokens(kept) {
		r.Header.Del("If")
		return true
	}
	if changed {
		r.Header.Set("If", formatIf(kept))
	}
	return true
}

// hasTokens reports whether a list of groups has a state-token condition.
func hasTokens(groups []ifGroup) bool {
	for _, g := range groups {
		for _, l := range g.lists {
			if l.tokens > 0 {
				return true
			}
		}
	}
	return false
}

// formatIf returns the If header of groups: each group's tag, then its
// lists as they were sent.
func formatIf(groups []ifGroup) string {
	var parts []string
	for _, g := range groups {
		if g.tag != "" {
			parts = append(parts, g.tag)
		}
		for _, l := range g.lists {
			parts = append(parts, l.raw)
		}
	}
	return strings.Join(parts, " ")
}

// etagsHold reports whether the entity-tag conditions hold for the
// resource at target; a resource that does not exist matches no tag.
func (h *handler) etagsHold(r *http.Request, target string, conds []ifETag) bool {
	if len(conds) == 0 {
		return true
	}
	current := ""
	if fi, err := h.dav.FileSystem.Stat(r.Context(), clean(target)); err == nil {
		current, _ = info{fi}.ETag(r.Context())
	}
	for _, c := range conds {
		match := current != "" && strings.TrimPrefix(c.etag, "W/") == current
		if match == c.not {
			return false
		}
	}
	return true
}

// checkMatch evaluates the If-Match and If-None-Match headers (RFC 9110,
// 13.1.1 and 13.1.2) of a request that changes its target (PUT, DELETE,
// MOVE, COPY, PROPPATCH, ...), and reports whether they hold: a client
// that uploads with If-Match: "its ETag" to keep from overwriting another
// client's change, or with If-None-Match: * to make a file only if there is
// none, had it overwritten. GET and HEAD are left to http.ServeContent.
func (h *handler) checkMatch(r *http.Request) bool {
	match, noneMatch := r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
	if match == "" && noneMatch == "" || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	current := ""
	if fi, err := h.dav.FileSystem.Stat(r.Context(), clean(r.URL.Path)); err == nil {
		current, _ = info{fi}.ETag(r.Context())
	}
	if match != "" && (current == "" || !etagListHas(match, current, false)) {
		return false
	}
	return noneMatch == "" || current == "" || !etagListHas(noneMatch, current, true)
}

// etagListHas reports whether the list of entity tags of an If-Match or
// If-None-Match header, or "*", matches current, an existing resource's
// strong entity tag: by the strong comparison, or by the weak one (W/
// ignored) for If-None-Match.
func etagListHas(list, current string, weak bool) bool {
	if strings.TrimSpace(list) == "*" {
		return true
	}
	for _, tag := range strings.Split(list, ",") {
		tag = strings.TrimSpace(tag)
		if weak {
			tag = strings.TrimPrefix(tag, "W/")
		}
		if tag == current {
			return true
		}
	}
	return false
}

var errEmptyNamespace = errors.New("a namespace prefix is bound to the empty name")

// checkXMLBody reads r's body (already limited) and refuses XML that
// binds a namespace prefix to the empty name (xmlns:p="", which Namespaces
// in XML 1.0 forbids and encoding/xml accepts). The body is put back for
// webdav to parse.
func checkXMLBody(r *http.Request) (int, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return http.StatusRequestEntityTooLarge, err
		}
		return http.StatusBadRequest, err
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.RawToken()
		if err != nil {
			return 0, nil // EOF, or a syntax error webdav reports itself
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Space == "xmlns" && a.Value == "" {
					return http.StatusBadRequest, errEmptyNamespace
				}
			}
		}
	}
}
