package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/rootfs"
	"github.com/b14fs/b14fs/internal/remote"
	"github.com/b14fs/b14fs/plugins/rpc"
	"github.com/b14fs/b14fs/transform"
)

// viewFlags are the flags of the commands that show a directory of encoded
// files decoded (mount, serve): one place defines them and builds the view.
type viewFlags struct {
	chain, suffix, ext string
	suffixSet          bool // --suffix was given
	showAll, writable  bool
	remote             remote.Options
}

// add defines the view flags on cmd.
func (v *viewFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&v.chain, "chain", "c", defaultChain, "the chain the files of DIR are encoded with")
	cmd.Flags().StringVar(&v.suffix, "suffix", "", "the suffix of stored names (default: the codec's own, such as .b14)")
	cmd.Flags().StringVar(&v.ext, "ext", "", "show stored `.STORED=.SHOWN` names with the extension replaced")
	cmd.Flags().BoolVar(&v.showAll, "show-all", false, "show the other files of DIR too, as they are")
	cmd.Flags().BoolVarP(&v.writable, "writable", "w", false, "let programs write: files are stored encoded")
	addRemoteFlags(cmd, &v.remote)
}

// addRemoteFlags defines the flags of remote locations (DIR given as
// sftp://USER@HOST[:PORT]/PATH or s3://BUCKET/PREFIX) on cmd.
func addRemoteFlags(cmd *cobra.Command, o *remote.Options) {
	f := cmd.Flags()
	f.StringVar(&o.S3Endpoint, "s3-endpoint", "", "the S3-compatible store s3:// locations are in, as `URL` (http://HOST:PORT; default: $AWS_ENDPOINT_URL, else Amazon S3)")
	f.StringVar(&o.S3Region, "s3-region", "", "the `REGION` of s3:// buckets (default: $AWS_REGION)")
	f.StringSliceVar(&o.SFTPKeys, "sftp-key", nil, "log in to sftp:// servers with the private key `FILE` (default: ssh-agent, ~/.ssh/id_*)")
	f.StringSliceVar(&o.SFTPKnownHosts, "sftp-known-hosts", nil, "check sftp:// servers' host keys against `FILE` (default: ~/.ssh/known_hosts)")
	f.BoolVar(&o.SFTPInsecureIgnoreHostKey, "sftp-insecure-ignore-host-key", false, "accept any host key of sftp:// servers: anyone in between can read and change the files")
	f.DurationVar(&o.Timeout, "remote-timeout", 0, "fail a request to a remote location that makes no progress for `DURATION` (default 30s)")
}

// openBase opens DIR: a remote location (remote.IsURL), or a local
// directory through rootfs. With follow, the base's Stat follows links
// (only inside a local directory), as a file server wants; without, it
// describes a link itself, as a mount wants (the kernel follows links).
// It returns the directory's statfs path ("" for a remote location) and
// what closes it.
func (v *viewFlags) openBase(dir string, follow bool) (base afero.Fs, statfs string, closer io.Closer, err error) {
	if remote.IsURL(dir) {
		opts := v.remote
		opts.NoFollow = !follow
		base, closer, err := remote.Open(dir, opts)
		return base, "", closer, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, "", nil, err
	} else if !fi.IsDir() {
		return nil, "", nil, fmt.Errorf("%s: not a directory", dir)
	}
	root, err := rootfs.Open(dir)
	if err != nil {
		return nil, "", nil, err
	}
	if follow {
		return root.FollowLinks(), dir, root, nil
	}
	return root, dir, root, nil
}

// build returns the decoded view of base that the flags ask for, with the
// codecs of g. A bad chain or mapping is a usage error.
func (v *viewFlags) build(g *globals, base afero.Fs) (*fsx.Fs, error) {
	codec, err := g.newChain(v.chain)
	if err != nil {
		return nil, err
	}
	if err := startChainPlugins(g.reg, v.chain); err != nil {
		return nil, err
	}
	var opts []fsx.Option
	switch {
	case v.ext != "":
		stored, shown, ok := strings.Cut(v.ext, "=")
		if !ok {
			return nil, usageError{fmt.Errorf("--ext %q: want .STORED=.SHOWN", v.ext)}
		}
		opts = append(opts, fsx.WithExtension(stored, shown))
	case v.suffixSet:
		opts = append(opts, fsx.WithSuffix(v.suffix))
	}
	if v.showAll {
		opts = append(opts, fsx.ShowUnmapped())
	}
	fsys, err := fsx.New(base, codec, opts...)
	if err != nil {
		return nil, usageError{err}
	}
	return fsys, nil
}

// startChainPlugins starts the plugins of the chain spec's stages: a view that
// could not decode a file through them fails at once, where a mount or a
// server went on with every file failing (and with the suffix a plugin
// suggests unknown, its files shown under their stored names).
func startChainPlugins(reg *core.Registry, spec string) error {
	stages, err := transform.Parse(spec)
	if err != nil {
		return err
	}
	for _, s := range stages {
		c, err := reg.Lookup(s.Name)
		if err != nil {
			return err
		}
		if err := rpc.Start(c); err != nil {
			return err
		}
	}
	return nil
}
