package serve

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
)

// serveIndex answers a GET or HEAD of a directory, which WebDAV leaves
// undefined (x/net's webdav answers 405), with an HTML listing for
// browsers, and reports whether name was a directory.
func (h *handler) serveIndex(w http.ResponseWriter, r *http.Request) bool {
	fsys := h.dav.FileSystem
	name := clean(r.URL.Path)
	fi, err := fsys.Stat(r.Context(), name)
	if err != nil || !fi.IsDir() {
		return false
	}
	if !strings.HasSuffix(r.URL.Path, "/") {
		// One leading slash: "//host/" is another host to a browser.
		to := "/" + strings.TrimLeft(r.URL.Path, "/") + "/"
		http.Redirect(w, r, (&url.URL{Path: to}).EscapedPath(), http.StatusMovedPermanently)
		return true
	}
	f, err := fsys.OpenFile(r.Context(), name, os.O_RDONLY, 0)
	if err != nil {
		http.Error(w, "cannot open the directory", http.StatusInternalServerError)
		return true
	}
	defer f.Close()
	fis, err := f.Readdir(-1)
	if err != nil {
		http.Error(w, "cannot list the directory", http.StatusInternalServerError)
		return true
	}
	slices.SortFunc(fis, func(a, b os.FileInfo) int { return strings.Compare(a.Name(), b.Name()) })
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodHead {
		return true
	}
	var b strings.Builder
	title := html.EscapeString(name)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<h1>%s</h1>\n<pre>\n", title, title)
	if name != "/" {
		b.WriteString("<a href=\"../\">../</a>\n")
	}
	for _, fi := range fis {
		n := fi.Name()
		if fi.IsDir() {
			n += "/"
		}
		href := (&url.URL{Path: "./" + n}).EscapedPath()
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>", html.EscapeString(href), html.EscapeString(n))
		if !fi.IsDir() {
			fmt.Fprintf(&b, "  %d", fi.Size())
		}
		b.WriteString("\n")
	}
	b.WriteString("</pre>\n")
	w.Write([]byte(b.String()))
	return true
}
