package serve

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

func TestParseIf(t *testing.T) {
	for _, c := range []struct {
		in     string
		groups int
		etags  int
		ok     bool
	}{
		{`(<urn:x>)`, 1, 0, true},
		{`(<urn:x> ["e1"]) (Not <DAV:no-lock> ["e1"])`, 1, 2, true},
		{`<http://h/a> (<urn:x>) <http://h/b> (["e"])`, 2, 1, true},
		{`(<urn:x>`, 0, 0, false},
		{`<http://h/a>`, 0, 0, false},
		{`()`, 0, 0, false},
		{`(junk)`, 0, 0, false},
	} {
		groups, ok := parseIf(c.in)
		etags := 0
		for _, g := range groups {
			for _, l := range g.lists {
				etags += len(l.etags)
			}
		}
		if ok != c.ok || (ok && (len(groups) != c.groups || etags != c.etags)) {
			t.Errorf("parseIf(%q) = %d groups, %d etags, %v", c.in, len(groups), etags, ok)
		}
	}
}

// TestIfETag checks that entity tags in If headers are checked: with a
// lock held, a PUT whose lists pair the lock token with a wrong ETag fails
// with 412, one pairing it with the right ETag goes through.
func TestIfETag(t *testing.T) {
	srv, _, _, _ := setup(t, Options{Writable: true})
	url := srv.URL + "/sub/notes.txt"
	resp, _ := do(t, "LOCK", url, strings.NewReader(`<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>`), "Timeout", "Second-60")
	token := resp.Header.Get("Lock-Token")
	if resp.StatusCode != 200 || token == "" {
		t.Fatalf("LOCK: %s, token %q", resp.Status, token)
	}
	resp, _ = do(t, "HEAD", url, nil)
	etag := resp.Header.Get("ETag")
	for _, c := range []struct {
		hdr string
		ok  bool
	}{
		{`(` + token + ` ["bogus"])`, false},
		{`(` + token + ` ["bogus"]) (Not <DAV:no-lock> ["bogus"])`, false},
		{`(` + token + ` Not [` + etag + `])`, false},
		{`<` + url + `> (` + token + ` ["bogus"])`, false},
		{`(` + token + ` [` + etag + `])`, true},
	} {
		resp, _ := do(t, "PUT", url, strings.NewReader("new notes\n"), "If", c.hdr)
		if (resp.StatusCode < 300) != c.ok || (!c.ok && resp.StatusCode != http.StatusPreconditionFailed) {
			t.Errorf("If: %s: %s, want success %v (412 otherwise)", c.hdr, resp.Status, c.ok)
		}
	}
}

// TestIfETagAlone checks If headers whose lists hold entity tags and no
// lock token: on an unlocked file the request goes through when a list
// holds and fails with 412 when none does; on a locked file it fails with
// 423, as without the header.
func TestIfETagAlone(t *testing.T) {
	srv, _, _, _ := setup(t, Options{Writable: true})
	url := srv.URL + "/sub/notes.txt"
	etag := func() string {
		resp, _ := do(t, "HEAD", url, nil)
		return resp.Header.Get("ETag")
	}
	for _, c := range []struct {
		hdr    string
		status int
	}{
		{`([` + etag() + `])`, http.StatusCreated},
		{`(Not ["bogus"])`, http.StatusCreated},
		{`(["bogus"]) (Not ["bogus"])`, http.StatusCreated},
		{`<` + url + `> (Not ["bogus"])`, http.StatusCreated},
		{`(["bogus"])`, http.StatusPreconditionFailed},
	} {
		if resp, _ := do(t, "PUT", url, strings.NewReader("new notes\n"), "If", c.hdr); resp.StatusCode != c.status {
			t.Errorf("unlocked, If: %s: %s, want %d", c.hdr, resp.Status, c.status)
		}
	}
	resp, _ := do(t, "LOCK", url, strings.NewReader(`<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>`), "Timeout", "Second-60")
	if resp.StatusCode != 200 {
		t.Fatalf("LOCK: %s", resp.Status)
	}
	if resp, _ := do(t, "PUT", url, strings.NewReader("other notes\n"), "If", `([`+etag()+`])`); resp.StatusCode != http.StatusLocked {
		t.Errorf("locked, If with the ETag and no token: %s, want 423", resp.Status)
	}
}

func TestEmptyNamespace(t *testing.T) {
	srv, _, _, _ := setup(t, Options{})
	resp, _ := do(t, "PROPFIND", srv.URL+"/", strings.NewReader(`<D:propfind xmlns:D="DAV:"><D:prop><bar:foo xmlns:bar=""/></D:prop></D:propfind>`), "Depth", "0")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("xmlns:bar=\"\": %s, want 400", resp.Status)
	}
	resp, _ = do(t, "PROPFIND", srv.URL+"/", strings.NewReader(`<D:propfind xmlns:D="DAV:"><D:prop><foo xmlns=""/></D:prop></D:propfind>`), "Depth", "0")
	if resp.StatusCode != http.StatusMultiStatus {
		t.Errorf("xmlns=\"\" (allowed): %s, want 207", resp.Status)
	}
}

// FuzzParseIf checks If headers as any client may send them: parseIf never
// panics, and what it accepts, written back by formatIf (as checkIfETags
// does once it drops lists), parses to the same groups.
func FuzzParseIf(f *testing.F) {
	for _, seed := range []string{
		`(<urn:x>)`,
		`(<urn:x> ["e1"]) (Not <DAV:no-lock> ["e1"])`,
		`<http://h/a> (<urn:x>) <http://h/b> (["e"])`,
		` <http://h/a>	(Not["W/\"e\""]<urn:y>)  `,
		`(<urn:x>`, `<http://h/a>`, `()`, `(junk)`, `(Not)`, `([)`, `(<>)`, "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		groups, ok := parseIf(s)
		if !ok {
			return
		}
		for _, g := range groups {
			if g.tag != "" && (len(g.tag) < 2 || g.tag[0] != '<' || g.tag[len(g.tag)-1] != '>') {
				t.Fatalf("parseIf(%q): tag %q", s, g.tag)
			}
		}
		out := formatIf(groups)
		again, ok := parseIf(out)
		if !ok || !reflect.DeepEqual(again, groups) {
			t.Fatalf("parseIf(%q) = %+v, written back as %q, which parses to %+v, %v", s, groups, out, again, ok)
		}
	})
}

// TestIfMatch checks If-Match and If-None-Match on requests that change
// their target (RFC 9110, 13.1.1-2): webdav ignored them, so a client that
// uploads on the condition that the file is the one it read, or that there
// is none, overwrote another's change.
func TestIfMatch(t *testing.T) {
	srv, _, _, _ := setup(t, Options{Writable: true})
	url := srv.URL + "/sub/notes.txt"
	resp, _ := do(t, "HEAD", url, nil)
	etag := resp.Header.Get("ETag")
	for _, c := range []struct {
		method, path, hdr, value string
		want                     int
	}{
		{"PUT", "/sub/notes.txt", "If-Match", `"stale"`, http.StatusPreconditionFailed},
		{"PUT", "/sub/notes.txt", "If-None-Match", "*", http.StatusPreconditionFailed},
		{"PUT", "/sub/notes.txt", "If-None-Match", `"other", W/` + etag, http.StatusPreconditionFailed},
		{"PUT", "/sub/new.txt", "If-Match", "*", http.StatusPreconditionFailed},
		{"DELETE", "/sub/notes.txt", "If-Match", `"stale"`, http.StatusPreconditionFailed},
		{"MOVE", "/sub/notes.txt", "If-Match", `"stale"`, http.StatusPreconditionFailed},
		{"PUT", "/sub/new.txt", "If-None-Match", "*", http.StatusCreated},
		{"PUT", "/sub/notes.txt", "If-Match", `"other", ` + etag, http.StatusCreated}, // webdav answers every PUT so
	} {
		resp, _ := do(t, c.method, srv.URL+c.path, strings.NewReader("new\n"), c.hdr, c.value, "Destination", srv.URL+"/moved.txt")
		if resp.StatusCode != c.want {
			t.Errorf("%s %s with %s: %s: %s, want %d", c.method, c.path, c.hdr, c.value, resp.Status, c.want)
		}
	}
	if _, data := do(t, "GET", url, nil); string(data) != "new\n" {
		t.Errorf("after the one PUT that held: %q", data)
	}
}

// TestPutETag checks that the ETag a PUT answers is the one the stored file
// then has: it was the upload's before its store, so that a client's next
// PUT with If-Match: that ETag failed though nobody else changed the file.
func TestPutETag(t *testing.T) {
	srv, _, _, _ := setup(t, Options{Writable: true})
	url := srv.URL + "/doc.txt"
	for i := range 3 {
		resp, _ := do(t, "PUT", url, strings.NewReader(strings.Repeat("v", i+1)))
		etag := resp.Header.Get("ETag")
		head, _ := do(t, "HEAD", url, nil)
		if etag == "" || etag != head.Header.Get("ETag") {
			t.Fatalf("PUT answered ETag %q, HEAD %q", etag, head.Header.Get("ETag"))
		}
		if resp, _ := do(t, "PUT", url, strings.NewReader("next"), "If-Match", etag); resp.StatusCode >= 300 {
			t.Fatalf("PUT with If-Match: the ETag of the last PUT: %s", resp.Status)
		}
	}
}

// TestLockUnstatable locks a file whose size does not decode (a cut
// torrent, through bencode's JSON side): webdav took it for absent and
// created it anew with O_TRUNC, emptying the stored file, and answered 201.
func TestLockUnstatable(t *testing.T) {
	srv, base := bencodeServer(t, "cut.torrent", "d3:foo", Options{Writable: true})
	lock := `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>`
	if resp, _ := do(t, "LOCK", srv.URL+"/cut.json", strings.NewReader(lock)); resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("LOCK: %s, want 500", resp.Status)
	}
	if data, err := afero.ReadFile(base, "cut.torrent"); err != nil || string(data) != "d3:foo" {
		t.Errorf("the stored file after the LOCK: %q, %v", data, err)
	}
	if resp, _ := do(t, "LOCK", srv.URL+"/new.json", strings.NewReader(lock)); resp.StatusCode != http.StatusCreated {
		t.Errorf("LOCK of a new name: %s, want 201", resp.Status)
	}
}
