package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/b14fs/b14fs/internal/testing/slowfs"
	"github.com/spf13/afero"
)

// TestListingAtOnce checks that a PROPFIND of a directory over a base whose
// calls wait for a network states its entries several at once, not one
// round trip after the other, once each (webdav states each entry again
// after listing it), and lists them all.
func TestListingAtOnce(t *testing.T) {
	base := slowfs.New(afero.NewMemMapFs(), 20*time.Millisecond)
	for i := range 40 {
		if err := afero.WriteFile(base.Fs, fmt.Sprintf("/f%02d", i), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(Handler(base, Options{}))
	defer srv.Close()
	resp, body := do(t, "PROPFIND", srv.URL+"/", nil, "Depth", "1")
	if resp.StatusCode != http.StatusMultiStatus {
		t.Fatalf("PROPFIND: %s", resp.Status)
	}
	for i := range 40 {
		if name := fmt.Sprintf("/f%02d", i); !strings.Contains(string(body), name+"<") {
			t.Errorf("the listing lacks %s", name)
		}
	}
	stats, most := base.Counts()
	if most < 2 {
		t.Errorf("the entries were stated one at a time")
	}
	if stats > 40+3 {
		t.Errorf("%d Stats for a listing of 40 entries: webdav's Stat of each did not take what the listing found", stats)
	}
}
