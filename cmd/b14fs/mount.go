package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// mountOptions are the -o options b14fs mount takes.
var mountOptions = []string{"ro", "rw", "allow_other"}

// mountFlags are the flags of mount.
type mountFlags struct {
	view    viewFlags
	options []string
	cache   bool
}

func newMountCommand(g *globals) *cobra.Command {
	var f mountFlags
	cmd := &cobra.Command{
		Use:   "mount [-c CHAIN] [-w] [-o OPTIONS] DIR|URL MOUNTPOINT",
		Short: "Mount DIR at MOUNTPOINT with its encoded files shown decoded (FUSE)",
		Long: `Mount DIR at MOUNTPOINT through FUSE: each file of DIR stored encoded by
CHAIN is shown decoded, under its name without the codec's suffix (notes.txt
for a stored notes.txt.b14). The mount is read-only unless --writable: then
what programs write is stored encoded. b14fs serves the mount until it gets
SIGINT, SIGTERM or SIGHUP (it then unmounts, lazily if the mount is busy,
and exits with 130), or until MOUNTPOINT is unmounted (fusermount3 -u; exit
0). See docs/mount.md for coherence, links and what a crash can leave.

DIR may be remote: sftp://USER@HOST[:PORT]/PATH (an SSH server's directory)
or s3://BUCKET/PREFIX (with --s3-endpoint for other stores than Amazon S3);
see docs/remote.md.`,
		Example: "  b14fs mount ~/vault /mnt/plain\n" +
			"  b14fs mount -w -o allow_other ~/vault /mnt/plain\n" +
			"  b14fs mount -c bencode --ext .torrent=.json ~/torrents /mnt/json\n" +
			"  b14fs mount -w sftp://me@nas.example/srv/vault /mnt/plain\n" +
			"  b14fs mount --s3-endpoint http://127.0.0.1:8333 s3://vault/me /mnt/plain",
		Args: args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			f.view.suffixSet = cmd.Flags().Changed("suffix")
			return runMount(g, f, a[0], a[1])
		},
	}
	f.view.add(cmd)
	cmd.Flags().StringSliceVarP(&f.options, "options", "o", nil, "mount `OPTIONS`, comma-separated: "+strings.Join(mountOptions, ", "))
	cmd.Flags().BoolVar(&f.cache, "cache", false, "let the kernel cache data and names for a minute: faster, but changes made in DIR underneath can stay unseen")
	registerCompletions(cmd, g.reg)
	return cmd
}
