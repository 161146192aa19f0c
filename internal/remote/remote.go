// Package remote opens the storage a location names, for the commands that
// take a directory: sftp://[user@]host[:port]/path (a directory on an SSH
// server, through SFTP) or s3://bucket[/prefix] (the objects under a prefix
// of an S3 bucket). Anything else is a local path, which the caller opens.
//
// Credentials never go in a location: an SFTP URL with a password and an
// S3 URL with user information are refused, and errors show locations with
// any such part redacted. S3 credentials come from the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) or the
// shared credentials file (~/.aws/credentials, AWS_PROFILE), SSH keys from
// ssh-agent or key files.
package remote

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/user"
	"path"
	"strings"
	"time"

	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/internal/remote/s3fs"
	"github.com/b14fs/b14fs/internal/remote/sftpfs"
)

// Options are the settings of remote locations the command line takes.
type Options struct {
	// S3Endpoint is the S3-compatible store to use instead of Amazon S3:
	// http://host:port, https://host[:port], or host[:port] for HTTPS.
	// Empty: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else Amazon S3.
	S3Endpoint string
	// S3Region is the bucket's region. Empty: $AWS_REGION,
	// $AWS_DEFAULT_REGION, else us-east-1 for another store than Amazon
	// S3, and found out for Amazon S3.
	S3Region string
	// SFTPKeys are private key files to log in with (sftpfs.Config).
	SFTPKeys []string
	// SFTPKnownHosts are the known_hosts files (sftpfs.Config).
	SFTPKnownHosts []string
	// SFTPInsecureIgnoreHostKey accepts any SSH host key.
	SFTPInsecureIgnoreHostKey bool
	// Timeout bounds how long a request may make no progress; zero means
	// the backends' default (30 s).
	Timeout time.Duration
	// NoFollow makes Stat describe a symbolic link itself, not what it
	// points at, as a FUSE mount wants (sftp://; s3:// has no links).
	NoFollow bool
}

// IsURL reports whether loc names remote storage rather than a local
// path.
func IsURL(loc string) bool {
	return strings.HasPrefix(loc, "sftp://") || strings.HasPrefix(loc, "s3://")
}

// Redact returns loc with any password or user information of a URL
// replaced, for messages.
func Redact(loc string) string {
	if !IsURL(loc) {
		return loc
	}
	u, err := url.Parse(loc)
	if err != nil {
		return strings.SplitN(loc, "://", 2)[0] + "://(unparsable URL)"
	}
	if strings.HasPrefix(loc, "s3://") && u.User != nil {
		u.User = url.User("xxxxx")
	}
	return u.Redacted()
}

// OpenFile opens the directory holding the file the remote location loc
// names (sftp://HOST/dir/file, s3://BUCKET/prefix/file) and returns it with
// the file's name there.
func OpenFile(loc string, opts Options) (fsys afero.Fs, name string, closer io.Closer, err error) {
	u, err := url.Parse(loc)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: not a URL", Redact(loc))
	}
	dir, name := path.Split(u.Path)
	if name == "" || name == "." || name == ".." || name == "~" {
		return nil, "", nil, fmt.Errorf("%s: names no file", Redact(loc))
	}
	u.Path = dir
	fsys, closer, err = Open(u.String(), opts)
	if err != nil {
		return nil, "", nil, err
	}
	return fsys, name, closer, nil
}

// Open returns the filesystem of the remote location loc (IsURL) and what
// closes its connection.
func Open(loc string, opts Options) (afero.Fs, io.Closer, error) {
	u, err := url.Parse(loc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a URL", Redact(loc))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, nil, fmt.Errorf("%s: a location takes no query or fragment", Redact(loc))
	}
	switch u.Scheme {
	case "sftp":
		return openSFTP(loc, u, opts)
	case "s3":
		fsys, err := openS3(loc, u, opts)
		return fsys, io.NopCloser(nil), err
	}
	return nil, nil, fmt.Errorf("%s: unknown scheme %q (sftp:// or s3://)", Redact(loc), u.Scheme)
}

func openSFTP(loc string, u *url.URL, opts Options) (afero.Fs, io.Closer, error) {
	if _, has := u.User.Password(); has {
		return nil, nil, fmt.Errorf("%s: passwords are not taken in URLs: log in with a key (ssh-agent or --sftp-key)", Redact(loc))
	}
	if u.Hostname() == "" {
		return nil, nil, fmt.Errorf("%s: no host", Redact(loc))
	}
	name := u.User.Username()
	if name == "" {
		if cur, err := user.Current(); err == nil {
			name = cur.Username
		}
	}
	port := u.Port()
	if port == "" {
		port = "22"
	}
	// sftp://host/abs/path is /abs/path; sftp://host/~/rel is rel to the
	// login directory, as with curl.
	root := u.Path
	if rel, ok := strings.CutPrefix(root, "/~"); ok {
		root = strings.TrimPrefix(rel, "/")
	}
	fsys, err := sftpfs.Dial(sftpfs.Config{
		Addr:                  net.JoinHostPort(u.Hostname(), port),
		User:                  name,
		KeyFiles:              opts.SFTPKeys,
		KnownHosts:            opts.SFTPKnownHosts,
		InsecureIgnoreHostKey: opts.SFTPInsecureIgnoreHostKey,
		Timeout:               opts.Timeout,
	}, root)
	if err != nil {
		return nil, nil, err
	}
	if opts.NoFollow {
		return fsys.NoFollow(), fsys, nil
	}
	return fsys, fsys, nil
}

func openS3(loc string, u *url.URL, opts Options) (afero.Fs, error) {
	if u.User != nil {
		return nil, fmt.Errorf("%s: credentials are not taken in URLs: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", Redact(loc))
	}
	bucket := u.Host
	if bucket == "" {
		return nil, fmt.Errorf("%s: no bucket (s3://BUCKET/PREFIX)", Redact(loc))
	}
	cfg := s3fs.Config{Timeout: opts.Timeout, Region: opts.S3Region}
	endpoint := opts.S3Endpoint
	for _, env := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if endpoint == "" {
			endpoint = os.Getenv(env)
		}
	}
	if endpoint != "" {
		host, insecure, err := parseEndpoint(endpoint)
		if err != nil {
			return nil, err
		}
		cfg.Endpoint, cfg.Insecure = host, insecure
	}
	for _, env := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if cfg.Region == "" {
			cfg.Region = os.Getenv(env)
		}
	}
	if cfg.Region == "" && endpoint != "" {
		cfg.Region = "us-east-1"
	}
	cfg.Credentials = credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
	})
	fsys, err := s3fs.New(bucket, strings.TrimPrefix(u.Path, "/"), cfg)
	if err == nil {
		err = fsys.Check()
	}
	if err != nil {
		return nil, err
	}
	return fsys, nil
}

// parseEndpoint splits --s3-endpoint into host[:port] and whether it is
// plain HTTP.
func parseEndpoint(e string) (host string, insecure bool, err error) {
	if !strings.Contains(e, "://") {
		return e, false, nil
	}
	u, err := url.Parse(e)
	switch {
	case err != nil:
		return "", false, fmt.Errorf("--s3-endpoint %q: %w", e, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, fmt.Errorf("--s3-endpoint %q: want http:// or https://", e)
	case u.User != nil:
		return "", false, errors.New("--s3-endpoint: credentials are not taken in URLs")
	case u.Path != "" && u.Path != "/":
		return "", false, fmt.Errorf("--s3-endpoint %q: no path, please", e)
	}
	return u.Host, u.Scheme == "http", nil
}
