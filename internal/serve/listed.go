package serve

import (
	"context"
	"net/http"
	"os"
	"sync"
)

// listed holds the FileInfos that the listings of one PROPFIND found, for
// the Stats webdav makes of each entry right after it lists a collection:
// the listing states its entries at once over a network
// (fsx.ConcurrentLookups), and each Stat takes its entry's FileInfo, not
// a round trip more each. It lives as long as its request.
type listed struct {
	mu    sync.Mutex
	infos map[string]os.FileInfo // by clean path
}

type listedKey struct{}

// withListed returns r with a place for what its listings find, when it
// is a PROPFIND.
func withListed(r *http.Request) *http.Request {
	if r.Method != "PROPFIND" {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), listedKey{}, &listed{infos: make(map[string]os.FileInfo)}))
}

// listedOf returns the listed of ctx's request, or nil.
func listedOf(ctx context.Context) *listed {
	l, _ := ctx.Value(listedKey{}).(*listed)
	return l
}

// add records the FileInfo of the entry at path. A nil l records nothing.
func (l *listed) add(path string, fi os.FileInfo) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.infos[path] = fi
	l.mu.Unlock()
}

// take returns the FileInfo recorded for path, once.
func (l *listed) take(path string) (os.FileInfo, bool) {
	if l == nil {
		return nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fi, ok := l.infos[path]
	delete(l.infos, path)
	return fi, ok
}
