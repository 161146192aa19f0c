//go:build linux

package mount

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/fsx"
	"github.com/b14fs/b14fs/internal/fsutil/umask"
)

// DefaultTimeout is how long the kernel may keep names and attributes
// without asking again, unless Options.Timeout says otherwise: how long a
// change made to the directory underneath, not through the mount, can go
// unseen by stat and lookups. What the mount itself changes is seen at once.
const DefaultTimeout = time.Second

// CacheTimeout is the timeout with Options.Cache.
const CacheTimeout = time.Minute

// Options configure a mount.
type Options struct {
	// Name is shown as the file system's source, in /proc/mounts.
	Name string
	// Dir is the directory the file system stores its files in, whose
	// statfs the mount reports (df).
	Dir string
	// Usage, where Dir is empty, tells the usage the mount reports of the
	// file system the files are stored in: a remote one's. Where both are
	// empty, the mount reports zeros.
	Usage func() (Usage, error)
	// Writable lets programs create, write, rename and remove files and
	// directories. Without it the mount is read-only.
	Writable bool
	// AllowOther lets other users than the one mounting use the mount (the
	// FUSE allow_other option, with default_permissions so that the kernel
	// checks each file's mode for them). An unprivileged user needs
	// user_allow_other in /etc/fuse.conf.
	AllowOther bool
	// Cache trades coherence for speed: every open is served from the
	// kernel's page cache, kept across opens, and names and attributes
	// for CacheTimeout. Changes made underneath can then stay unseen for
	// that long, and a file changed while open can read stale data.
	// Without it, read-only opens use the page cache where it stays true
	// (pagecache.go).
	Cache bool
	// Timeout overrides DefaultTimeout (or CacheTimeout) when positive.
	Timeout time.Duration
	// Fusermount mounts through fusermount3 even as root, who otherwise
	// mounts with mount(2) and needs no fusermount3.
	Fusermount bool
	// Log, if set, is told of each error that reaches programs only as EIO,
	// such as bad data in a file, so that its cause can be shown.
	Log func(error)
}

// A Usage is what statfs(2) tells of a file system: its block size and
// fragment size (the unit of the block counts), its blocks, free blocks
// and those free to unprivileged users, its files and free files, and its
// longest name.
type Usage struct {
	Bsize, Frsize         uint32
	Blocks, Bfree, Bavail uint64
	Files, Ffree          uint64
	NameLen               uint32
}

// Errors of Mount, before anything is mounted.
var (
	// ErrNoFUSE is returned when this machine cannot mount FUSE file
	// systems: no /dev/fuse, or no fusermount3 for a user other than root.
	ErrNoFUSE = errors.New("FUSE is not available")
	// ErrMountpoint is returned for a mountpoint that is not a directory,
	// does not exist, or is a dead mount.
	ErrMountpoint = errors.New("bad mountpoint")
)

// A Server is a running mount.
type Server struct {
	srv        *fuse.Server
	mountpoint string
	direct     bool // mounted by mount(2), not by fusermount
	done       chan struct{}
}

// Mount serves fsys at mountpoint. It checks the mountpoint first (an
// existing directory) and, when the kernel mount succeeds but serving it
// does not start, takes the mount away again: it never leaves a dead mount.
// As root it mounts with mount(2) itself, needing no fusermount.
func Mount(fsys afero.Fs, mountpoint string, opts Options) (*Server, error) {
	if err := CheckMountpoint(mountpoint); err != nil {
		return nil, err
	}
	direct := os.Geteuid() == 0 && !opts.Fusermount
	if err := checkFUSE(direct); err != nil {
		return nil, err
	}
	m, root, err := newMount(fsys, opts)
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
		if opts.Cache {
			timeout = CacheTimeout
		}
	}
	mo := fuseOptions(opts, direct)
	fo := &fs.Options{
		MountOptions:    mo,
		EntryTimeout:    &timeout,
		AttrTimeout:     &timeout,
		NullPermissions: true, // a file of mode 0000 is shown as such
		RootStableAttr:  &fs.StableAttr{Ino: root.ino},
	}
	if opts.Cache {
		fo.NegativeTimeout = &timeout
	}
	srv, err := fuse.NewServer(rawFS{fs.NewNodeFS(root, fo), m}, mountpoint, &fo.MountOptions)
	if err != nil {
		return nil, mountError(mountpoint, direct, err)
	}
	s := &Server{srv: srv, mountpoint: mountpoint, direct: direct, done: make(chan struct{})}
	go func() {
		srv.Serve()
		// Files the kernel never released (it drops what is pending when
		// the mount goes): close them, which stores what they hold.
		m.closeAll()
		close(s.done)
	}()
	tuneReadAhead(mountpoint, mo)
	// NewServer returned with the file system mounted and the kernel's
	// INIT answered, so it is ready. Not srv.WaitMount: its poll hack
	// opens a file on the mount from this process, and a process killed
	// while it has a file of its own mount open never ends (exiting, it
	// flushes the file: a request only itself could answer). The hack is
	// for a process that opens files of its own mount, which b14fs mount
	// does not (its tests do, and run it: usableInProcess).
	return s, nil
}

// fuseOptions returns the FUSE options of a mount with opts, mounted with
// mount(2) itself if direct.
func fuseOptions(opts Options, direct bool) fuse.MountOptions {
	mo := fuse.MountOptions{
		FsName:            opts.Name,
		Name:              "b14fs",
		AllowOther:        opts.AllowOther,
		DirectMountStrict: direct,
		MaxWrite:          1 << 20,
		// Reads answer with decoded data, never a file descriptor to
		// splice from; a 1 MiB answer does not fit a pipe anyway.
		DisableSplice: true,
		// O_TRUNC comes with OPEN, so that a file opened to be rewritten
		// is replaced as a whole; and shared mmap works on direct I/O files.
		ExtraCapabilities: fuse.CAP_ATOMIC_O_TRUNC | fuse.CAP_DIRECT_IO_ALLOW_MMAP,
	}
	if !opts.Cache {
		// Pages dropped while a file is open through the page cache can
		// be read past what they hold (pagecache.go).
		mo.DisabledCapabilities = fuse.CAP_AUTO_INVAL_DATA
	}
	if !opts.Writable {
		mo.Options = append(mo.Options, "ro")
	}
	if opts.AllowOther {
		mo.Options = append(mo.Options, "default_permissions")
	}
	return mo
}

// tuneReadAhead has the kernel read ahead of the mount at mountpoint as
// much as it answers at once (MaxWrite), as root: a cold file is read
// through the page cache 1.3-1.4 times as fast as with the default of
// 128 KiB (docs/benchmarks.md). Without root, or where sysfs is read-only,
// the default stays.
func tuneReadAhead(mountpoint string, mo fuse.MountOptions) {
	if os.Geteuid() == 0 {
		_ = setReadAhead(mountpoint, mo.MaxWrite>>10)
	}
}

// CheckMountpoint reports why mountpoint cannot be mounted on: it does not
// exist, is not a directory, or is a dead mount (its server is gone). Its
// errors match ErrMountpoint.
func CheckMountpoint(mountpoint string) error {
	fi, err := os.Stat(mountpoint)
	switch {
	case errors.Is(err, syscall.ENOTCONN):
		return mountpointError(fmt.Sprintf("mountpoint %s is a dead mount (its server is gone): take it away with fusermount3 -u %s", mountpoint, mountpoint))
	case errors.Is(err, iofs.ErrNotExist):
		return mountpointError(fmt.Sprintf("mountpoint %s: no such directory", mountpoint))
	case err != nil:
		return mountpointError(fmt.Sprintf("mountpoint %v", err))
	case !fi.IsDir():
		return mountpointError(fmt.Sprintf("mountpoint %s: not a directory", mountpoint))
	}
	return nil
}

// mountpointError is an error of CheckMountpoint.
type mountpointError string

func (e mountpointError) Error() string        { return string(e) }
func (e mountpointError) Is(target error) bool { return target == ErrMountpoint }

// checkFUSE reports what this machine lacks to mount FUSE file systems.
func checkFUSE(direct bool) error {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("%w: no /dev/fuse (load the fuse kernel module: modprobe fuse; in a container, pass --device /dev/fuse)", ErrNoFUSE)
	}
	if direct {
		return nil
	}
	if _, err := exec.LookPath("fusermount3"); err == nil {
		return nil
	}
	if _, err := exec.LookPath("fusermount"); err == nil {
		return nil
	}
	return fmt.Errorf("%w: fusermount3 not found: install the fuse3 package (Debian, Ubuntu: apt install fuse3; Fedora: dnf install fuse3)", ErrNoFUSE)
}

// mountError explains a failed kernel mount.
func mountError(mountpoint string, direct bool, err error) error {
	if direct && errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("mount %s: %w (mount(2) needs CAP_SYS_ADMIN)", mountpoint, err)
	}
	return fmt.Errorf("mount %s: %w", mountpoint, err)
}

// Wait waits until the mount is gone: unmounted by Unmount, by fusermount3
// -u or umount, or its connection aborted.
func (s *Server) Wait() { <-s.done }

// Done is closed when the mount is gone.
func (s *Server) Done() <-chan struct{} { return s.done }

// Unmount takes the mount away and waits until it is gone. When programs
// still use it (a shell cd'd into it, an open file), it unmounts lazily
// instead, reports lazy, and returns at once: the mount is gone from the
// file system tree, and the server keeps serving those programs until the
// last of them lets go, which Wait waits for.
func (s *Server) Unmount() (lazy bool, err error) {
	lazy, err = s.unmount(false)
	if err == nil && !lazy {
		s.Wait()
	}
	return lazy, err
}

// Detach unmounts lazily (MNT_DETACH, fusermount3 -u -z) at once: the
// mount is gone from the file system tree, and the programs still using it
// keep being served until they let go, which Wait waits for.
func (s *Server) Detach() error { return s.detach(true) }

// ErrBusy is how an unmount reports a busy mount.
var ErrBusy = errors.New("mount is busy")

// unmount takes the mount away, lazily when it is busy (or when force).
func (s *Server) unmount(force bool) (lazy bool, err error) {
	if !force {
		delay := 10 * time.Millisecond
		for try := 0; ; try++ {
			err = s.detach(false)
			if err == nil || !errors.Is(err, ErrBusy) || try == 3 {
				break
			}
			// The kernel may not have seen the last close of a program
			// that just ended.
			time.Sleep(delay)
			delay *= 4
		}
		if err == nil {
			return false, nil
		}
		if !errors.Is(err, ErrBusy) {
			return false, err
		}
	}
	if err := s.detach(true); err != nil {
		return false, err
	}
	return true, nil
}

// detach unmounts once, lazily (MNT_DETACH, fusermount3 -z) if lazy.
func (s *Server) detach(lazy bool) error {
	if s.direct {
		flags := 0
		if lazy {
			flags = syscall.MNT_DETACH
		}
		err := syscall.Unmount(s.mountpoint, flags)
		switch {
		case errors.Is(err, syscall.EBUSY):
			return fmt.Errorf("unmount %s: %w", s.mountpoint, ErrBusy)
		case errors.Is(err, syscall.EINVAL):
			return nil // not mounted any more
		case err != nil:
			return fmt.Errorf("unmount %s: %w", s.mountpoint, err)
		}
		return nil
	}
	bin, err := exec.LookPath("fusermount3")
	if err != nil {
		if bin, err = exec.LookPath("fusermount"); err != nil {
			return fmt.Errorf("unmount %s: %w", s.mountpoint, err)
		}
	}
	args := []string{"-u"}
	if lazy {
		args = append(args, "-z")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, append(args, "--", s.mountpoint)...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		switch {
		case strings.Contains(msg, "busy"):
			return fmt.Errorf("unmount %s: %w", s.mountpoint, ErrBusy)
		case strings.Contains(msg, "not mounted"), strings.Contains(msg, "entry for"):
			return nil // gone already
		}
		return fmt.Errorf("unmount %s: %s: %w", s.mountpoint, msg, err)
	}
	return nil
}

// mnt is the state shared by the nodes of a mount.
type mnt struct {
	fsys  afero.Fs
	opts  Options
	ids   table
	umask os.FileMode // this process's, which the base applies to what it makes

	openMu  sync.Mutex
	handles map[*handle]struct{} // the handles not released

	// lookups is how many lookups to make at once over fsys
	// (fsx.ConcurrentLookups); above 1, where its calls wait for a
	// network, a Readdir looks its entries up ahead.
	lookups int
	// changes counts the starts and ends of operations that change the
	// file system through the mount (changing).
	changes atomic.Uint64
	// writeback holds the cancel channels of the WRITE requests being
	// served that write back cached pages (see rawFS).
	writeback sync.Map

	logMu sync.Mutex
}

// newMount makes the shared state and the root node.
func newMount(fsys afero.Fs, opts Options) (*mnt, *node, error) {
	m := &mnt{fsys: fsys, opts: opts, handles: make(map[*handle]struct{}), umask: umask.Get(), lookups: fsx.ConcurrentLookups(fsys)}
	m.ids.init()
	if fx, ok := fsys.(*fsx.Fs); ok {
		fx.OnReplace(m.ids.replacedBase)
	}
	info, err := m.lstat("/")
	if err != nil {
		return nil, nil, err
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("the root of the file system is not a directory")
	}
	return m, m.ids.newRoot(m, info), nil
}

// lstat describes the named file, directory or link without following a
// link (when fsys can tell links apart).
func (m *mnt) lstat(name string) (os.FileInfo, error) {
	if ls, ok := m.fsys.(afero.Lstater); ok {
		info, _, err := ls.LstatIfPossible(name)
		return info, err
	}
	return m.fsys.Stat(name)
}

// own gives what the mount just made at p the caller's owner, when the
// mount serves other users as root (allow_other), as a local file system
// makes a file its creator's; and the setuid, setgid and sticky bits of
// perm, which the base may not take at creation (not for a link, whose
// mode means nothing).
func (m *mnt) own(ctx context.Context, p string, perm os.FileMode, link bool) syscall.Errno {
	if c, ok := fuse.FromContext(ctx); ok && os.Geteuid() == 0 && m.opts.AllowOther && (c.Uid != 0 || c.Gid != 0) {
		// The base's Chown changes a link itself (rootfs), or fails with
		// errors.ErrUnsupported where it cannot (sftpfs): such a link
		// keeps the owner the base made it with.
		err := m.fsys.Chown(p, int(c.Uid), int(c.Gid))
		if err != nil && !(link && errors.Is(err, errors.ErrUnsupported)) {
			return m.errno(err)
		}
	}
	// The kernel applied the caller's umask to perm already; the base
	// applies this process's as well.
	if !link && (perm&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 || perm.Perm()&m.umask != 0) {
		return m.errno(m.fsys.Chmod(p, perm))
	}
	return 0
}

// errno maps an error from the file system to the errno the kernel gets,
// and logs the errors that become EIO.
func (m *mnt) errno(err error) syscall.Errno {
	e := errno(err)
	if e == syscall.EIO && m.opts.Log != nil {
		m.logMu.Lock()
		m.opts.Log(err)
		m.logMu.Unlock()
	}
	return e
}

// log reports an error that no program gets, such as a failure when a file
// is released.
func (m *mnt) log(err error) {
	if err != nil && m.opts.Log != nil {
		m.logMu.Lock()
		m.opts.Log(err)
		m.logMu.Unlock()
	}
}

// errno maps an error to an errno.
func errno(err error) syscall.Errno {
	var e syscall.Errno
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e
	case errors.Is(err, iofs.ErrNotExist), errors.Is(err, fsx.ErrNotMapped):
		return syscall.ENOENT
	case errors.Is(err, iofs.ErrExist):
		return syscall.EEXIST
	case errors.Is(err, iofs.ErrPermission):
		return syscall.EACCES
	case errors.Is(err, iofs.ErrInvalid):
		return syscall.EINVAL
	case errors.Is(err, iofs.ErrClosed), errors.Is(err, fsx.ErrReadOnly), errors.Is(err, fsx.ErrWriteOnly):
		return syscall.EBADF
	case errors.Is(err, errors.ErrUnsupported):
		// What the base cannot do, such as a rename on S3.
		return syscall.ENOTSUP
	case strings.Contains(err.Error(), "path escapes from parent"):
		// os.Root refused a link that leads out of the directory.
		return syscall.EXDEV
	}
	return syscall.EIO
}

// isNotMapped reports whether err says a name has no stored form.
func isNotMapped(err error) bool { return errors.Is(err, fsx.ErrNotMapped) }

// closeAll releases the handles the kernel did not release.
func (m *mnt) closeAll() {
	m.openMu.Lock()
	hs := make([]*handle, 0, len(m.handles))
	for h := range m.handles {
		hs = append(hs, h)
	}
	m.openMu.Unlock()
	for _, h := range hs {
		h.Release(context.Background())
	}
}
