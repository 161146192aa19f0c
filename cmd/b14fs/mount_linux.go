//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/pkg/sftp"
	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/internal/mount"
	"github.com/b14fs/b14fs/internal/remote"
)

// runMount mounts dir at mountpoint and serves the mount (see serveMount).
func runMount(g *globals, f mountFlags, dir, mountpoint string) error {
	mo := mount.Options{Name: remote.Redact(dir), Writable: f.view.writable, Cache: f.cache}
	if err := parseMountOptions(f.options, &mo); err != nil {
		return err
	}
	if err := mount.CheckMountpoint(mountpoint); err != nil {
		return err
	}
	base, statfs, closer, err := f.view.openBase(dir, false)
	if err != nil {
		return err
	}
	defer closer.Close()
	mo.Dir = statfs
	if statfs == "" {
		mo.Usage = remoteUsage(base)
	}
	fsys, err := f.view.build(g, base)
	if err != nil {
		return err
	}
	return serveMount(g.std, mountpoint, fsys, mo)
}

// remoteUsage returns what tells the usage of the file system of a remote
// base, for df on its mount: the statvfs of an SFTP server (zeros where it
// has none); nil for a base that cannot tell (S3).
func remoteUsage(base afero.Fs) func() (mount.Usage, error) {
	v, ok := base.(interface{ StatVFS() (*sftp.StatVFS, error) })
	if !ok {
		return nil
	}
	return func() (mount.Usage, error) {
		st, err := v.StatVFS()
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			return mount.Usage{}, nil
		case err != nil:
			return mount.Usage{}, err
		}
		return mount.Usage{Bsize: uint32(st.Bsize), Frsize: uint32(st.Frsize), Blocks: st.Blocks, Bfree: st.Bfree,
			Bavail: st.Bavail, Files: st.Files, Ffree: st.Ffree, NameLen: uint32(st.Namemax)}, nil
	}
}

// parseMountOptions applies the -o options to mo.
func parseMountOptions(options []string, mo *mount.Options) error {
	ro := false
	for _, o := range options {
		switch o {
		case "ro":
			ro = true
		case "rw":
			mo.Writable = true
		case "allow_other":
			mo.AllowOther = true
		default:
			return usageError{fmt.Errorf("-o %s: unknown mount option (known: %s)", o, strings.Join(mountOptions, ", "))}
		}
	}
	if ro && mo.Writable {
		return usageError{errors.New("-o ro and --writable (or -o rw): choose one")}
	}
	return nil
}

// serveMount mounts fsys at mountpoint and serves it until a signal comes
// (it then unmounts and returns the exit code exitInterrupted, after which
// the plugins are stopped as usual) or the mount goes away (it returns nil).
func serveMount(std stdio, mountpoint string, fsys afero.Fs, mo mount.Options) error {
	// Signals that come while mounting are handled once it is mounted.
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	mo.Log = func(err error) { fmt.Fprintf(std.err, "b14fs: %v\n", err) }
	srv, err := mount.Mount(fsys, mountpoint, mo)
	if err != nil {
		return err
	}
	mode := "read-only"
	if mo.Writable {
		mode = "writable"
	}
	fmt.Fprintf(std.err, "b14fs: %s mounted at %s (%s); Ctrl-C, SIGTERM or SIGHUP unmounts\n", mo.Name, mountpoint, mode)
	var s os.Signal
	select {
	case <-srv.Done():
		fmt.Fprintf(std.err, "b14fs: %s was unmounted\n", mountpoint)
		return nil
	case s = <-sig:
	}
	fmt.Fprintf(std.err, "b14fs: %v: unmounting %s\n", s, mountpoint)
	lazy, err := srv.Unmount()
	for err != nil {
		fmt.Fprintf(std.err, "b14fs: %v; still serving: send the signal again to detach it\n", err)
		select {
		case <-srv.Done():
			return exitError{exitInterrupted}
		case s = <-sig:
		}
		fmt.Fprintf(std.err, "b14fs: %v: detaching %s\n", s, mountpoint)
		lazy, err = true, srv.Detach()
	}
	if !lazy {
		fmt.Fprintf(std.err, "b14fs: %s unmounted\n", mountpoint)
		return exitError{exitInterrupted}
	}
	fmt.Fprintf(std.err, "b14fs: %s is busy (a program has a file open there, or it is a working directory): "+
		"unmounted lazily, so it is gone from %s; serving the programs still using it until they let go "+
		"(send the signal again to stop at once)\n", mountpoint, mountpoint)
	select {
	case <-srv.Done():
	case s = <-sig:
		fmt.Fprintf(std.err, "b14fs: %v: stopped serving\n", s)
	}
	return exitError{exitInterrupted}
}
