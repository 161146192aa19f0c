package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// remoteFs is a base whose Stats each take a while, as over a network
// (fsx.HighLatency), and which records how many ran at once at most.
type remoteFs struct {
	afero.Fs
	mu      sync.Mutex
	running int
	most    int
	stats   int
}

func (r *remoteFs) HighLatency() bool { return true }

func (r *remoteFs) Stat(name string) (os.FileInfo, error) {
	r.mu.Lock()
	r.running++
	r.stats++
	r.most = max(r.most, r.running)
	r.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	r.mu.Lock()
	r.running--
	r.mu.Unlock()
	return r.Fs.Stat(name)
}

// TestListingAtOnce checks that a PROPFIND of a directory over a base whose
// calls wait for a network states its entries several at once, not one
// round trip after the other, once each (webdav states each entry again
// after listing it), and lists them all.
func TestListingAtOnce(t *testing.T) {
	base := &remoteFs{Fs: afero.NewMemMapFs()}
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
	base.mu.Lock()
	defer base.mu.Unlock()
	if base.most < 2 {
		t.Errorf("the entries were stated one at a time")
	}
	if base.stats > 40+3 {
		t.Errorf("%d Stats for a listing of 40 entries: webdav's Stat of each did not take what the listing found", base.stats)
	}
}
