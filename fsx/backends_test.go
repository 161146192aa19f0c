package fsx_test

import (
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/internal/remote/s3fs"
	"github.com/b14fs/b14fs/internal/remote/sftpfs"
	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
)

// A backend is a kind of base filesystem the tests run fsx over.
type backend struct {
	name string
	// fresh returns a new, empty base for one test, or skips the test
	// when the backend's server cannot run here.
	fresh func(t *testing.T) afero.Fs
}

// backends returns the bases every test runs over: in memory, a local
// directory and an S3 bucket (on the in-process fake, or on SeaweedFS with
// the long checks where it is built); the long checks add a directory of
// an sshd, over a connection of each test's own (sftpfs's tests run fsx
// over sshd in the quick run too). The servers start once, for all the
// tests of the process.
func backends() []backend {
	bs := []backend{
		{"mem", memBase},
		{"os", func(t *testing.T) afero.Fs { return afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()) }},
		{"s3", s3Base},
	}
	if longtest.Enabled() {
		bs = append(bs, backend{"sftp", sftpBase})
	}
	return bs
}

// memBase returns a base in memory: a directory of a MemMapFs, through a
// BasePathFs, which makes every name absolute (a MemMapFs stores "a" and
// "/a" as different files, as docs/fsx.md says).
func memBase(t *testing.T) afero.Fs {
	base := afero.NewBasePathFs(afero.NewMemMapFs(), "/base")
	if err := base.MkdirAll("/", 0o755); err != nil {
		t.Fatal(err)
	}
	return base
}

// capabilities say what a base can do where bases differ, as
// docs/remote.md lists it.
type capabilities struct {
	// rename: Rename works.
	rename bool
	// attrs: Chmod, Chown and Chtimes work, and files keep their modes.
	attrs bool
	// inPlace: fsx changes stored files where they are (appends to and
	// writes into block codec files); otherwise the base stores files
	// whole (an atomicfile.Replacer), and fsx rewrites a changed file
	// whole at Close, with no temporary file.
	inPlace bool
	// remote: the base is reached over the network, so tests trim their
	// sizes and counts (never the operations they try).
	remote bool
	// closeIdle closes the idle connections of the base's client, whose
	// goroutines and file descriptors are the client's, not fsx's.
	closeIdle func()
	// openFiles counts the files the base has open: this process's, and
	// the server's where files are open there (an SFTP file is a handle
	// of the server's).
	openFiles func() int
}

// can returns the capabilities of a base that backends made.
func can(base afero.Fs) capabilities {
	switch base.(type) {
	case *s3fs.Fs:
		return capabilities{remote: true, closeIdle: s3Transport.CloseIdleConnections, openFiles: openFiles}
	case *sftpfs.Fs:
		return capabilities{rename: true, attrs: true, inPlace: true, remote: true, closeIdle: func() {},
			openFiles: func() int { return openFiles() + sshd.Load().OpenFiles() }}
	}
	return capabilities{rename: true, attrs: true, inPlace: true, closeIdle: func() {}, openFiles: openFiles}
}

// sshd is the server of the SFTP bases, once one started.
var sshd atomic.Pointer[remotetest.SSH]

// s3Transport carries the requests of every S3 base, so that they share
// their connections.
var s3Transport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 30 * time.Second
	t.MaxIdleConnsPerHost = 16
	t.DisableCompression = true
	return t
}()

// s3Prefixes numbers the key prefixes of the S3 bases.
var s3Prefixes atomic.Int64

// s3Base returns an S3 base over a new key prefix of the bucket of an S3
// server which all the tests share: the in-process fake, or SeaweedFS with
// the long checks where it is built (remotetest.SharedS3).
func s3Base(t *testing.T) afero.Fs {
	endpoint, _ := remotetest.SharedS3(t)
	fsys, err := s3fs.New(remotetest.Bucket, fmt.Sprintf("%s-%d", t.Name(), s3Prefixes.Add(1)), s3fs.Config{
		Endpoint:    endpoint,
		Insecure:    true,
		Region:      "us-east-1",
		Credentials: credentials.NewStaticV4(remotetest.AccessKey, remotetest.SecretKey, ""),
		Transport:   s3Transport,
		SpoolDir:    t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// sftpBase returns an SFTP base over a new directory of an sshd, which all
// the tests share, through a connection of its own.
func sftpBase(t *testing.T) afero.Fs {
	s := remotetest.SharedSSHD(t)
	sshd.Store(s)
	dir, err := os.MkdirTemp(s.Root, "t")
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := sftpfs.Dial(sftpfs.Config{Addr: s.Addr, User: s.User, KeyFiles: []string{s.KeyFile}, KnownHosts: []string{s.KnownHosts}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}
