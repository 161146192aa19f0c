package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/internal/remote"
	"github.com/b14fs/b14fs/internal/serve"
)

// passwordEnv names the environment variable serve takes the password from.
const passwordEnv = "B14FS_PASSWORD"

// serveFlags are the flags of serve.
type serveFlags struct {
	view                                               viewFlags
	addr, user, passwordFile, tlsCert, tlsKey, urlFile string
	quiet                                              bool
	maxUpload                                          int64
}

func newServeCommand(g *globals) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [-w] [-c CHAIN] [--addr HOST:PORT] DIR|URL",
		Short: "Serve DIR with its encoded files shown decoded, over WebDAV and HTTP",
		Long: `Serve DIR over WebDAV (and so plain HTTP): each file of DIR stored encoded by
CHAIN is shown decoded, under the same names as b14fs mount shows, and GET
serves its decoded bytes, with Range requests. Read-only unless --writable:
then PUT, MKCOL, MOVE, COPY, DELETE, PROPPATCH and LOCK work, and what
clients write is stored encoded, each file replaced atomically.

b14fs listens on 127.0.0.1:8384 unless --addr says otherwise. Listening on
any address that is not loopback requires a password: from --password-file
(its first line) or the environment variable B14FS_PASSWORD; clients then
log in by HTTP Basic authentication as --user. Use --tls-cert and --tls-key
to serve HTTPS. No path leaves DIR: '..' and encoded slashes get 400, and
symbolic links that point out of a local DIR are not followed (an SFTP
server follows them, out of its directory too: see docs/remote.md).

b14fs logs a line per request on stderr (time, method, path, status, bytes,
duration) unless --quiet, and on SIGINT or SIGTERM finishes the requests in
flight (for up to 30 seconds) and exits 0.

DIR may be remote: sftp://USER@HOST[:PORT]/PATH or s3://BUCKET/PREFIX (see
docs/remote.md).`,
		Example: "  b14fs serve ~/vault\n" +
			"  b14fs serve -w --addr 127.0.0.1:9000 ~/vault\n" +
			"  B14FS_PASSWORD=secret b14fs serve --addr :8384 --tls-cert c.pem --tls-key k.pem ~/vault",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			f.view.suffixSet = cmd.Flags().Changed("suffix")
			return runServe(g, f, a[0])
		},
	}
	f.view.add(cmd)
	cmd.Flags().StringVar(&f.addr, "addr", "127.0.0.1:8384", "listen on `HOST:PORT` (port 0 picks a free one)")
	cmd.Flags().StringVar(&f.user, "user", "b14fs", "the user name clients log in with")
	cmd.Flags().StringVar(&f.passwordFile, "password-file", "", "require HTTP Basic authentication with the password on the first line of `FILE`")
	cmd.Flags().StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with the certificate (chain) in PEM `FILE`")
	cmd.Flags().StringVar(&f.tlsKey, "tls-key", "", "the private key of --tls-cert, PEM `FILE`")
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "log no requests")
	cmd.Flags().Int64Var(&f.maxUpload, "max-upload", 0, "the largest PUT body in `BYTES` (0: no limit)")
	cmd.Flags().StringVar(&f.urlFile, "url-file", "", "write the server's URL to `FILE` once it listens (for scripts)")
	registerCompletions(cmd, g.reg)
	return cmd
}

// runServe serves dir until SIGINT or SIGTERM (see listenAndServe).
func runServe(g *globals, f serveFlags, dir string) error {
	host, _, err := net.SplitHostPort(f.addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr %q: %w", f.addr, err)}
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return usageError{errors.New("--tls-cert and --tls-key go together")}
	}
	password, err := readPassword(f.passwordFile)
	if err != nil {
		return err
	}
	if password == "" && !serve.IsLoopback(host) {
		return usageError{fmt.Errorf("--addr %s is not a loopback address: serving it needs a password (--password-file or $%s)", f.addr, passwordEnv)}
	}
	base, _, closer, err := f.view.openBase(dir, true)
	if err != nil {
		return err
	}
	defer closer.Close()
	fsys, err := f.view.build(g, base)
	if err != nil {
		return err
	}
	var log io.Writer = g.std.err
	if f.quiet {
		log = nil
	}
	h := serve.Handler(fsys, serve.Options{Writable: f.view.writable, User: f.user, Password: password, MaxUpload: f.maxUpload, Log: log})
	return listenAndServe(g.std, remote.Redact(dir), f.addr, h, password != "", f.tlsCert, f.tlsKey, f.urlFile)
}

// readPassword returns the first line of file, or $B14FS_PASSWORD when
// file is empty.
func readPassword(file string) (string, error) {
	if file == "" {
		return os.Getenv(passwordEnv), nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return "", fmt.Errorf("%s: the first line is empty: no password", file)
	}
	return line, nil
}

// listenAndServe serves h on addr until SIGINT or SIGTERM, then lets the
// requests in flight finish.
func listenAndServe(std stdio, dir, addr string, h http.Handler, authenticated bool, tlsCert, tlsKey, urlFile string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var urlErr error
	err := serve.Server{
		Addr: addr, TLSCert: tlsCert, TLSKey: tlsKey, Handler: h, LoopbackOnly: !authenticated,
		Ready: func(url string) {
			fmt.Fprintf(std.err, "b14fs: serving %s at %s; Ctrl-C or SIGTERM stops\n", dir, url)
			if urlFile != "" {
				if urlErr = writeURLFile(urlFile, url); urlErr != nil {
					stop()
				}
			}
		},
	}.Run(ctx)
	if urlErr != nil {
		return urlErr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(std.err, "b14fs: stopped serving %s\n", dir)
	return nil
}

// writeURLFile writes url to path whole at once, through a temporary file,
// so that a script waiting for path to appear never reads it empty.
func writeURLFile(path, url string) error {
	f, err := createOutput(path)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, url+"\n"); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
