package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/afero"
	"github.com/spf13/cobra"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/internal/mount"
)

func newMountCommand(reg *core.Registry, std stdio) *cobra.Command {
	var view viewFlags
	cmd := &cobra.Command{
		Use:   "mount [-c CHAIN] DIR MOUNTPOINT",
		Short: "Mount DIR at MOUNTPOINT with its encoded files shown decoded (FUSE)",
		Long: `Mount DIR at MOUNTPOINT through FUSE: each file of DIR stored encoded by
CHAIN is shown decoded, under its name without the codec's suffix (notes.txt
for a stored notes.txt.b14). The mount is read-only unless --writable: then
what programs write is stored encoded, each file replaced atomically when it
is closed. b14fs serves the mount until it gets SIGINT or SIGTERM, or until
MOUNTPOINT is unmounted (fusermount3 -u).`,
		Example: "  b14fs mount ~/vault /mnt/plain\n" +
			"  b14fs mount -c bencode --ext .torrent=.json ~/torrents /mnt/json",
		Args: args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			fsys, err := view.build(cmd, reg, afero.NewBasePathFs(afero.NewOsFs(), a[0]))
			if err != nil {
				return err
			}
			return serveMount(std, a[0], a[1], fsys, view.writable)
		},
	}
	view.add(cmd)
	registerCompletions(cmd, reg)
	return cmd
}

// serveMount mounts fsys at mountpoint and serves it until a signal comes or
// the mount goes away.
func serveMount(std stdio, dir, mountpoint string, fsys afero.Fs, writable bool) error {
	if fi, err := os.Stat(dir); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	logErr := func(err error) { fmt.Fprintf(std.err, "b14fs: %v\n", err) }
	srv, err := mount.Mount(fsys, mountpoint, mount.Options{Name: dir, Writable: writable, Log: logErr})
	if err != nil {
		return fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	fmt.Fprintf(std.err, "b14fs: %s mounted at %s; Ctrl-C or SIGTERM unmounts\n", dir, mountpoint)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan struct{})
	go func() {
		srv.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-sig:
	}
	if err := srv.Unmount(); err != nil {
		return fmt.Errorf("unmount %s: %w", mountpoint, err)
	}
	<-done
	return nil
}
