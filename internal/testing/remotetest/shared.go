//go:build unix

package remotetest

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/b14fs/b14fs/internal/testing/longtest"
)

// shared is a server that all the tests of a process share: the first test
// that asks for it starts it, StopShared stops it.
type shared[T any] struct {
	once sync.Once
	dir  string
	stop func() // stops the server; nil when none started
	val  T
	err  error
}

var (
	sharedWeed shared[string]
	sharedFake shared[string]
	sharedSSHD shared[*SSH]

	stopMu sync.Mutex
	stops  []func() // of the shared servers started
)

// get starts the server with start the first time, in a directory of its
// own, and returns what start returned; it skips the test when the
// server's program is not there, every time it is asked for. start returns
// the server's value and the function that stops it.
func (s *shared[T]) get(t testing.TB, start func(dir string) (T, func(), error)) T {
	t.Helper()
	s.once.Do(func() {
		s.dir, s.err = os.MkdirTemp("", "b14fs-test-server-")
		if s.err == nil {
			s.val, s.stop, s.err = start(s.dir)
		}
		stopMu.Lock()
		stops = append(stops, func() {
			if s.stop != nil {
				s.stop()
			}
			if s.dir != "" {
				os.RemoveAll(s.dir)
			}
		})
		stopMu.Unlock()
	})
	if errors.Is(s.err, ErrNotInstalled) {
		t.Skip(s.err)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.val
}

// SharedWeed returns the S3 endpoint of a SeaweedFS server, as Weed
// starts, that all the tests of the process share; StopShared stops it. It
// skips the test when weed is not there.
func SharedWeed(t testing.TB) string {
	t.Helper()
	return sharedWeed.get(t, func(dir string) (string, func(), error) {
		endpoint, srv, err := StartWeed(dir)
		if err != nil {
			return "", nil, err
		}
		return endpoint, srv.Kill, nil
	})
}

// SharedS3 returns the S3 endpoint that all the tests of the process share,
// and whether it is SeaweedFS: with the long checks (longtest), a SeaweedFS
// server, as SharedWeed starts, where weed is there (CI builds it:
// .ci/weed), and else the in-process fake of FakeS3, so that no S3 test is
// skipped for want of a server, and the quick run starts no server of its
// own. Both hold Bucket and take AccessKey and SecretKey (the fake checks
// no signature).
func SharedS3(t testing.TB) (endpoint string, weed bool) {
	t.Helper()
	if longtest.Enabled() && WeedBinary() != "" {
		return SharedWeed(t), true
	}
	return sharedFake.get(t, func(string) (string, func(), error) {
		srv, err := startFake()
		if err != nil {
			return "", nil, err
		}
		return strings.TrimPrefix(srv.URL, "http://"), srv.Close, nil
	}), false
}

// SharedSSHD returns an sshd, as SSHD starts, that all the tests of the
// process share; StopShared stops it. Tests keep to directories of their
// own under its Root. It skips the test when sshd is not there or cannot
// run.
func SharedSSHD(t testing.TB) *SSH {
	t.Helper()
	return sharedSSHD.get(t, func(dir string) (*SSH, func(), error) {
		s, err := StartSSHD(dir)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Kill, nil
	})
}

// StopShared kills the shared servers that were started and removes their
// files. TestMain calls it after the tests.
func StopShared() {
	stopMu.Lock()
	defer stopMu.Unlock()
	for _, stop := range stops {
		stop()
	}
	stops = nil
}
