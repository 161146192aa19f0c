//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/b14fs/b14fs/internal/testing/longtest"
	"github.com/b14fs/b14fs/internal/testing/remotetest"
)

// A remoteMount is a `b14fs mount -w` process of a remote location,
// started by a test. The test works on the mount from its own process,
// which never serves a mount it uses.
type remoteMount struct {
	t      testing.TB
	dir    string
	cmd    *exec.Cmd
	stderr string // the file the process's stderr goes to
	ended  chan struct{}
	err    error // of Wait, once ended is closed
}

// mountRemote starts b14fs mount -w with args (flags and the location) on
// a new directory, and returns once the mount is there. The mount is taken
// away when the test ends, by force if it has to be.
func mountRemote(t testing.TB, args ...string) *remoteMount {
	t.Helper()
	m := &remoteMount{t: t, dir: t.TempDir(), ended: make(chan struct{})}
	m.stderr = filepath.Join(t.TempDir(), "stderr")
	errFile, err := os.Create(m.stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	m.cmd = exec.Command("b14fs", append(append([]string{"mount", "-w"}, args...), m.dir)...)
	m.cmd.Env = remoteEnv(t)
	m.cmd.Stderr = errFile
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { m.err = m.cmd.Wait(); close(m.ended) }()
	t.Cleanup(func() {
		if err := m.unmount(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("b14fs mount %s:\n%s", m.dir, m.log())
		}
	})
	for deadline := time.Now().Add(20 * time.Second); !mounted(m.dir); time.Sleep(20 * time.Millisecond) {
		select {
		case <-m.ended:
			t.Fatalf("b14fs mount %s exited before mounting: %v\n%s", strings.Join(args, " "), m.err, m.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("b14fs mount %s: no mount within 20 s\n%s", strings.Join(args, " "), m.log())
		}
	}
	return m
}

// remoteEnv is the environment of the b14fs processes of remote locations
// the tests start: no credentials, agent or configuration of the
// machine's user.
func remoteEnv(t testing.TB) []string {
	return append(os.Environ(), "HOME="+t.TempDir(), "SSH_AUTH_SOCK=",
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_SESSION_TOKEN=", "AWS_PROFILE=",
		"AWS_ENDPOINT_URL=", "AWS_ENDPOINT_URL_S3=")
}

// at returns the path of name in the mount.
func (m *remoteMount) at(name string) string { return filepath.Join(m.dir, name) }

// log returns what the process wrote to stderr.
func (m *remoteMount) log() string {
	data, _ := os.ReadFile(m.stderr)
	return string(data)
}

// unmount stops the process as a user does (SIGINT), which unmounts, and
// checks that it did; when it does not within 20 s, it takes the mount
// away by force and kills the process. It does nothing the second time.
func (m *remoteMount) unmount() error {
	select {
	case <-m.ended:
		if mounted(m.dir) {
			forceUnmount(m.dir)
			return fmt.Errorf("b14fs mount ended (%v) leaving its mount\n%s", m.err, m.log())
		}
		return nil
	default:
	}
	m.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-m.ended:
	case <-time.After(20 * time.Second):
		forceUnmount(m.dir)
		m.cmd.Process.Kill()
		<-m.ended
		return fmt.Errorf("b14fs mount did not end within 20 s of SIGINT\n%s", m.log())
	}
	var ee *exec.ExitError
	if !errors.As(m.err, &ee) || ee.ExitCode() != exitInterrupted || !strings.Contains(m.log(), " unmounted") {
		forceUnmount(m.dir)
		return fmt.Errorf("b14fs mount after SIGINT: %v, want exit code %d and the mount gone\n%s", m.err, exitInterrupted, m.log())
	}
	return nil
}

// mounted reports whether a file system is mounted at dir.
func mounted(dir string) bool {
	_, ok := mountDevice(dir)
	return ok
}

// mountDevice returns the device (major:minor) of the mount at dir, from
// /proc/self/mountinfo, which reading never waits on the mount.
func mountDevice(dir string) (string, bool) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) > 4 && fields[4] == dir {
			return fields[2], true
		}
	}
	return "", false
}

// forceUnmount takes the mount at dir away however stuck it is:
// fusermount3 -u a few times, then an abort of its FUSE connection and a
// lazy unmount.
func forceUnmount(dir string) {
	for range 5 {
		if !mounted(dir) || exec.Command("fusermount3", "-u", dir).Run() == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	if dev, ok := mountDevice(dir); ok {
		conns := "/sys/fs/fuse/connections"
		if entries, _ := os.ReadDir(conns); len(entries) == 0 {
			syscall.Mount("none", conns, "fusectl", 0, "")
		}
		_, minor, _ := strings.Cut(dev, ":")
		os.WriteFile(filepath.Join(conns, minor, "abort"), []byte("1"), 0)
	}
	syscall.Unmount(dir, syscall.MNT_DETACH)
}

// A writer stores content at path the way some program does.
type writer struct {
	name  string
	write func(src, path string) error
}

// writers write through the kernel as programs do: cp, a shell's
// redirection, and a program's own write(2)s of 1 MiB (dd). Each is given
// the content in the local file src too. Each runs in a process of its own:
// a file this process wrote while its other goroutines start programs
// would get a FLUSH from each child closing its copy of the descriptor at
// exec, and the mount stores what the file holds at every FLUSH (a close),
// which on S3 makes that part a version others see.
var writers = []writer{
	{"cp", func(src, path string) error { return runProgram("cp", src, path) }},
	{"sh", func(src, path string) error { return runProgram("sh", "-c", `cat "$1" > "$2"`, "sh", src, path) }},
	{"dd", func(src, path string) error { return runProgram("dd", "if="+src, "of="+path, "bs=1M", "status=none") }},
}

// runProgram runs a program, its output in the error when it fails.
func runProgram(prog string, args ...string) error {
	if out, err := exec.Command(prog, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return nil
}

// sharedFile is a file of one mount that the others read.
type sharedFile struct {
	name    string
	content []byte
	src     string // the content in a local file
	w       writer
}

// mountFiles returns the files mount m writes: a few bytes, about 300 KiB
// and about 5 MiB, each by another writer.
func mountFiles(t testing.TB, m int) []sharedFile {
	sizes := []int{20 + m, 300_001 + m, 5<<20 + 4321*m}
	dir := t.TempDir()
	files := make([]sharedFile, len(sizes))
	for i, n := range sizes {
		f := sharedFile{name: fmt.Sprintf("m%d-%d.bin", m, i), content: remotetest.RandomBytes(n, uint64(m*10+i)), w: writers[(m+i)%len(writers)]}
		f.src = filepath.Join(dir, f.name)
		if err := os.WriteFile(f.src, f.content, 0o644); err != nil {
			t.Fatal(err)
		}
		files[i] = f
	}
	return files
}

// traits are what a backend's mounts show one another.
type traits struct {
	// prefixes: a file being written shows its beginning to the others,
	// as it grows (SFTP stores long writes in place, as a local file
	// system does); on S3 it shows empty until it is stored whole.
	prefixes bool
}

// awaitWhole reads name in mnt until it holds want, failing the test if a
// read returns anything but nothing, an empty file (created, not yet
// stored), want whole or, with tr.prefixes, the beginning of want.
func awaitWhole(t testing.TB, mnt *remoteMount, name string, want []byte, tr traits) {
	var last error
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got, err := os.ReadFile(mnt.at(name))
		switch {
		case err != nil:
			last = err
		case bytes.Equal(got, want):
			return
		case tr.prefixes && bytes.HasPrefix(want, got):
		case len(got) > 0:
			t.Errorf("%s reads %s as %d bytes that are not its content (%d bytes; its beginning: %v)", mnt.dir, name, len(got), len(want), bytes.HasPrefix(want, got))
			return
		}
	}
	t.Errorf("%s: %s not whole within 60 s (last error: %v)", mnt.dir, name, last)
}

// exerciseMounts is the scale-out case over mounts of one location: each
// mount writes its own files through the kernel while reading the others'
// as they come; then every mount reads every file, sees new and removed
// names in its listing, reads a file another mount keeps replacing whole
// (one version or another, never a mix), and of the mounts creating one
// name with O_EXCL at once, exactly one succeeds. What tr allows is allowed.
// It returns the names the mounts leave.
func exerciseMounts(t *testing.T, mounts []*remoteMount, tr traits) []string {
	files := make([][]sharedFile, len(mounts))
	var names []string
	for m := range mounts {
		files[m] = mountFiles(t, m)
		for _, f := range files[m] {
			names = append(names, f.name)
		}
	}
	var wg sync.WaitGroup
	for m, mnt := range mounts {
		wg.Go(func() {
			for _, f := range files[m] {
				if err := f.w.write(f.src, mnt.at(f.name)); err != nil {
					t.Errorf("mount %d: %s: %v", m, f.w.name, err)
				}
			}
			for o := range mounts {
				for _, f := range files[o] {
					awaitWhole(t, mnt, f.name, f.content, tr)
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return nil
	}
	for _, mnt := range mounts {
		for o := range mounts {
			for _, f := range files[o] {
				if got, err := os.ReadFile(mnt.at(f.name)); err != nil || !bytes.Equal(got, f.content) {
					t.Errorf("%s reads %s: %d bytes, %v; want its %d bytes", mnt.dir, f.name, len(got), err, len(f.content))
				}
			}
		}
	}
	checkListings(t, mounts, names)
	names = append(names, checkReplaced(t, mounts))
	names = append(names, checkExclusive(t, mounts))
	return names
}

// listing returns the names of the mount's root, sorted.
func listing(t testing.TB, mnt *remoteMount) []string {
	entries, err := os.ReadDir(mnt.dir)
	if err != nil {
		t.Errorf("ls %s: %v", mnt.dir, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkListings checks that every mount lists names, that a name another
// mount creates shows in the next listing and lookup, and that a name it
// removes leaves the next listing at once and lookups within the entry
// timeout (one second).
func checkListings(t *testing.T, mounts []*remoteMount, names []string) {
	want := slices.Sorted(slices.Values(names))
	for _, mnt := range mounts {
		if got := listing(t, mnt); !slices.Equal(got, want) {
			t.Errorf("ls %s: %q, want %q", mnt.dir, got, want)
		}
		if _, err := os.Stat(mnt.at("late.txt")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: late.txt before it is made: %v", mnt.dir, err)
		}
	}
	if err := os.WriteFile(mounts[0].at("late.txt"), []byte("late\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mnt := range mounts[1:] {
		if got := listing(t, mnt); !slices.Contains(got, "late.txt") {
			t.Errorf("ls %s right after another mount made late.txt: %q", mnt.dir, got)
		}
		if data, err := os.ReadFile(mnt.at("late.txt")); string(data) != "late\n" || err != nil {
			t.Errorf("%s reads late.txt: %q, %v", mnt.dir, data, err)
		}
	}
	if err := os.Remove(mounts[0].at("late.txt")); err != nil {
		t.Fatal(err)
	}
	for _, mnt := range mounts[1:] {
		if got := listing(t, mnt); slices.Contains(got, "late.txt") {
			t.Errorf("ls %s right after another mount removed late.txt: %q", mnt.dir, got)
		}
		start := time.Now()
		for {
			_, err := os.Stat(mnt.at("late.txt"))
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("%s: stat of the removed late.txt after %v: %v", mnt.dir, time.Since(start), err)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// checkReplaced has the first mount replace a file whole again and again
// while the others read it: each read is one version whole, never a mix
// (a read may fail instead, as an open file whose object was replaced
// does on S3). Each version is a byte longer than the one before, so that
// a reader that reached the end of one and read on into the next would
// show. It returns the file's name.
func checkReplaced(t *testing.T, mounts []*remoteMount) string {
	const name, versions = "replaced.bin", 8
	all := make([][]byte, versions)
	for v := range all {
		all[v] = remotetest.RandomBytes(3<<20+v, uint64(1000+v))
	}
	if err := os.WriteFile(mounts[0].at(name), all[0], 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, mnt := range mounts[1:] {
		wg.Go(func() {
			whole, failed := make(map[int]int), 0
			for stop := false; !stop; {
				select {
				case <-done:
					stop = true
				default:
				}
				got, err := os.ReadFile(mnt.at(name))
				if err != nil {
					failed++
					continue
				}
				v := slices.IndexFunc(all, func(c []byte) bool { return bytes.Equal(got, c) })
				if v < 0 {
					t.Errorf("%s read %s as %d bytes that are no version of it, whole: %s", mnt.dir, name, len(got), describeMix(got, all))
					return
				}
				whole[v]++
			}
			t.Logf("%s read %s whole in versions (version: times) %v; %d reads failed", mnt.dir, name, whole, failed)
		})
	}
	for v := 1; v < versions; v++ {
		if err := os.WriteFile(mounts[0].at(name), all[v], 0o644); err != nil {
			t.Error(err)
		}
	}
	close(done)
	wg.Wait()
	for _, mnt := range mounts[1:] {
		if got, err := os.ReadFile(mnt.at(name)); err != nil || !bytes.Equal(got, all[versions-1]) {
			t.Errorf("%s reads %s at the end: %d bytes, %v; want the last version", mnt.dir, name, len(got), err)
		}
	}
	return name
}

// checkExclusive has every mount create one name with O_EXCL at once:
// exactly one succeeds, the others fail with EEXIST. It returns the name.
func checkExclusive(t *testing.T, mounts []*remoteMount) string {
	const name = "exclusive.txt"
	won := remotetest.Race(len(mounts), func(m int) bool {
		f, err := os.OpenFile(mounts[m].at(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		switch {
		case err == nil:
			fmt.Fprintf(f, "mount %d\n", m)
			if err := f.Close(); err != nil {
				t.Errorf("mount %d: close: %v", m, err)
			}
			return true
		case errors.Is(err, fs.ErrExist):
		default:
			t.Errorf("mount %d: O_EXCL create: %v, want EEXIST", m, err)
		}
		return false
	})
	if len(won) != 1 {
		t.Errorf("mounts %v created %s with O_EXCL, want exactly one", won, name)
		return name
	}
	for _, mnt := range mounts {
		if got, err := os.ReadFile(mnt.at(name)); string(got) != fmt.Sprintf("mount %d\n", won[0]) || err != nil {
			t.Errorf("%s reads %s: %q, %v", mnt.dir, name, got, err)
		}
	}
	return name
}

// stored returns the names of the stored files (with the codec's suffix)
// of names.
func stored(names []string) []string {
	var s []string
	for _, n := range names {
		s = append(s, n+".b14")
	}
	slices.Sort(s)
	return s
}

// s3Client returns a client of the S3 store at endpoint (plain HTTP,
// anonymous), to look at the bucket without a mount.
func s3Client(t testing.TB, endpoint string) *minio.Client {
	client, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4("", "", ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// TestRemoteMounts mounts one S3 prefix (SeaweedFS) and one SFTP
// directory (sshd) three times each, with a b14fs mount process for each
// mount, and runs exerciseMounts over them; once they are unmounted, the
// store holds exactly the files they made: no temporary object or file,
// no unfinished upload.
func TestRemoteMounts(t *testing.T) {
	longtest.Skip(t, "starts SeaweedFS, sshd and b14fs mounts")
	if !fuseAvailable() {
		t.Skip("FUSE is not available (needs /dev/fuse and fusermount3)")
	}
	const n = 3
	t.Run("s3", func(t *testing.T) {
		endpoint, _ := remotetest.Weed(t)
		mounts := make([]*remoteMount, n)
		for i := range mounts {
			mounts[i] = mountRemote(t, "--s3-endpoint", "http://"+endpoint, "s3://"+remotetest.Bucket+"/many")
		}
		names := exerciseMounts(t, mounts, traits{})
		for _, m := range mounts {
			if err := m.unmount(); err != nil {
				t.Error(err)
			}
		}
		if t.Failed() {
			return
		}
		client := s3Client(t, endpoint)
		ctx := context.Background()
		var keys []string
		for o := range client.ListObjects(ctx, remotetest.Bucket, minio.ListObjectsOptions{Prefix: "many/", Recursive: true}) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			keys = append(keys, strings.TrimPrefix(o.Key, "many/"))
		}
		if want := stored(names); !slices.Equal(keys, want) {
			t.Errorf("the bucket holds %q, want %q", keys, want)
		}
		for u := range client.ListIncompleteUploads(ctx, remotetest.Bucket, "many/", true) {
			t.Errorf("an unfinished upload is left: %s %v", u.Key, u.Err)
		}
	})
	t.Run("sftp", func(t *testing.T) {
		ssh := remotetest.SSHD(t)
		mounts := make([]*remoteMount, n)
		for i := range mounts {
			mounts[i] = mountRemote(t, "--sftp-key", ssh.KeyFile, "--sftp-known-hosts", ssh.KnownHosts,
				"sftp://"+ssh.User+"@"+ssh.Addr+ssh.Root)
		}
		names := exerciseMounts(t, mounts, traits{prefixes: true})
		for _, m := range mounts {
			if err := m.unmount(); err != nil {
				t.Error(err)
			}
		}
		if t.Failed() {
			return
		}
		entries, err := os.ReadDir(ssh.Root)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if want := stored(names); !slices.Equal(got, want) {
			t.Errorf("the server's directory holds %q, want %q", got, want)
		}
	})
}

// describeMix says which versions the pieces of got come from.
func describeMix(got []byte, versions [][]byte) string {
	var parts []string
	for off := 0; off < len(got); {
		best, bestLen := -1, 0
		for v, c := range versions {
			n := 0
			for off+n < len(got) && off+n < len(c) && got[off+n] == c[off+n] {
				n++
			}
			if n > bestLen {
				best, bestLen = v, n
			}
		}
		if best < 0 {
			parts = append(parts, fmt.Sprintf("byte %d from no version", off))
			off++
			continue
		}
		parts = append(parts, fmt.Sprintf("[%d,%d) of version %d", off, off+bestLen, best))
		off += bestLen
		if len(parts) > 10 {
			break
		}
	}
	return strings.Join(parts, " ")
}

// linkTimeout is the --remote-timeout of the mounts over a proxy.
const linkTimeout = 3 * time.Second

// checkLink works on a mount whose link to the store goes through proxy:
// slowed down (20 ms a chunk each way), cp, cat and ls work and read what
// was written; stalled (nothing arriving), reading fails within
// linkTimeout (and some slack for the retry), never hanging; cut, reading
// and writing fail at once; healed, the mount reads again (S3 makes new
// HTTP connections, SFTP dials again).
func checkLink(t *testing.T, mnt *remoteMount, proxy *remotetest.Proxy) {
	content := remotetest.RandomBytes(1<<20+77, 42)
	src := filepath.Join(t.TempDir(), "slow.bin")
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	proxy.SetDelay(20 * time.Millisecond)
	if err := runProgram("cp", src, mnt.at("slow.bin")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cat", mnt.at("slow.bin")).Output(); err != nil || !bytes.Equal(out, content) {
		t.Errorf("cat over a slow link: %d bytes, %v; want the %d written", len(out), err, len(content))
	}
	if out, err := exec.Command("ls", mnt.dir).Output(); err != nil || strings.TrimSpace(string(out)) != "slow.bin" {
		t.Errorf("ls over a slow link: %q, %v", out, err)
	}
	proxy.SetDelay(0)

	// within runs op, failing the test if it waits beyond the timeout.
	within := func(what string, op func() error) error {
		t.Helper()
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- op() }()
		select {
		case err := <-done:
			t.Logf("%s: %v after %v", what, err, time.Since(start).Round(time.Millisecond))
			return err
		case <-time.After(3*linkTimeout + 5*time.Second):
			t.Fatalf("%s still waits after %v (--remote-timeout %v)", what, time.Since(start), linkTimeout)
			return nil
		}
	}
	failsSoon := func(what string, op func() error) {
		t.Helper()
		if within(what, op) == nil {
			t.Errorf("%s succeeded", what)
		}
	}
	read := func() error {
		data, err := os.ReadFile(mnt.at("slow.bin"))
		if err == nil && !bytes.Equal(data, content) {
			return fmt.Errorf("read %d bytes that are not the file's", len(data))
		}
		return err
	}
	// Stalled: nothing arrives for three timeouts.
	proxy.SetDelay(3 * linkTimeout)
	failsSoon("reading over a stalled link", read)
	proxy.SetDelay(0)

	proxy.Cut()
	failsSoon("reading over a cut link", read)
	failsSoon("writing over a cut link", func() error { return os.WriteFile(mnt.at("new.txt"), []byte("new\n"), 0o644) })

	proxy.Heal()
	var err error
	for deadline := time.Now().Add(2*linkTimeout + 5*time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err = read(); err == nil {
			return
		}
	}
	t.Errorf("reading after the link is back: %v", err)
}

// TestRemoteMountLink mounts S3 (SeaweedFS) and SFTP (sshd) through a
// proxy that slows the link down and cuts it (checkLink); either works
// again once the link is back.
func TestRemoteMountLink(t *testing.T) {
	longtest.Skip(t, "starts SeaweedFS, sshd and b14fs mounts")
	if !fuseAvailable() {
		t.Skip("FUSE is not available (needs /dev/fuse and fusermount3)")
	}
	t.Run("s3", func(t *testing.T) {
		proxy, args := proxiedS3(t, "link")
		checkLink(t, mountRemote(t, args...), proxy)
	})
	t.Run("sftp", func(t *testing.T) {
		proxy, args := proxiedSFTP(t)
		checkLink(t, mountRemote(t, args...), proxy)
	})
}

// proxiedS3 starts SeaweedFS and a proxy in front of it, and returns the
// proxy and the arguments that give b14fs the location prefix there
// through it, with the --remote-timeout linkTimeout.
func proxiedS3(t *testing.T, prefix string) (*remotetest.Proxy, []string) {
	endpoint, _ := remotetest.Weed(t)
	// SeaweedFS's first write makes its volumes, which takes longer than
	// the timeout.
	client := s3Client(t, endpoint)
	if _, err := client.PutObject(context.Background(), remotetest.Bucket, "warm", strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	proxy := remotetest.NewProxy(t, endpoint)
	return proxy, []string{"--s3-endpoint", "http://" + proxy.Addr, "--remote-timeout", linkTimeout.String(), "s3://" + remotetest.Bucket + "/" + prefix}
}

// proxiedSFTP starts sshd and a proxy in front of it, and returns the
// proxy and the arguments that give b14fs the server's directory through
// it (its key known under the proxy's address), with the --remote-timeout
// linkTimeout.
func proxiedSFTP(t *testing.T) (*remotetest.Proxy, []string) {
	ssh := remotetest.SSHD(t)
	proxy := remotetest.NewProxy(t, ssh.Addr)
	known, err := os.ReadFile(ssh.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	knownHosts := filepath.Join(t.TempDir(), "known_hosts")
	known = bytes.Replace(known, []byte("["+strings.Replace(ssh.Addr, ":", "]:", 1)), []byte("["+strings.Replace(proxy.Addr, ":", "]:", 1)), 1)
	if err := os.WriteFile(knownHosts, known, 0o600); err != nil {
		t.Fatal(err)
	}
	return proxy, []string{"--sftp-key", ssh.KeyFile, "--sftp-known-hosts", knownHosts, "--remote-timeout", linkTimeout.String(),
		"sftp://" + ssh.User + "@" + proxy.Addr + ssh.Root}
}

// BenchmarkRemoteMountsRead measures the aggregate read speed of one, two
// and three b14fs mount processes of one S3 prefix (SeaweedFS on this
// machine), each reading a 32 MiB file of its own to the end through the
// kernel at once (mounts=N; the bytes are the decoded ones, of all the
// mounts), beside as many bare clients in one process reading the stored
// objects (raw-client=N; the stored bytes).
func BenchmarkRemoteMountsRead(b *testing.B) {
	if !fuseAvailable() {
		b.Skip("FUSE is not available (needs /dev/fuse and fusermount3)")
	}
	const size, most = 32 << 20, 3
	endpoint, _ := remotetest.Weed(b)
	mounts := make([]*remoteMount, most)
	contents := make([][]byte, most)
	for m := range mounts {
		mounts[m] = mountRemote(b, "--s3-endpoint", "http://"+endpoint, "s3://"+remotetest.Bucket+"/bench")
		contents[m] = remotetest.RandomBytes(size, uint64(m))
		if err := os.WriteFile(mounts[m].at(fmt.Sprintf("m%d.bin", m)), contents[m], 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for m, mnt := range mounts {
		if got, err := os.ReadFile(mnt.at(fmt.Sprintf("m%d.bin", m))); err != nil || !bytes.Equal(got, contents[m]) {
			b.Fatalf("mount %d reads its file: %d bytes, %v", m, len(got), err)
		}
	}
	client := s3Client(b, endpoint)
	for n := 1; n <= most; n++ {
		b.Run(fmt.Sprintf("raw-client=%d", n), func(b *testing.B) {
			var stored int64
			for m := range n {
				info, err := client.StatObject(context.Background(), remotetest.Bucket, fmt.Sprintf("bench/m%d.bin.b14", m), minio.StatObjectOptions{})
				if err != nil {
					b.Fatal(err)
				}
				stored += info.Size
			}
			b.SetBytes(stored)
			b.ReportAllocs()
			for b.Loop() {
				var wg sync.WaitGroup
				for m := range n {
					wg.Go(func() {
						o, err := client.GetObject(context.Background(), remotetest.Bucket, fmt.Sprintf("bench/m%d.bin.b14", m), minio.GetObjectOptions{})
						if err != nil {
							b.Error(err)
							return
						}
						defer o.Close()
						if _, err := io.CopyBuffer(io.Discard, o, make([]byte, 1<<20)); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
			}
		})
		b.Run(fmt.Sprintf("mounts=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n) * size)
			b.ReportAllocs()
			for b.Loop() {
				var wg sync.WaitGroup
				for m := range n {
					wg.Go(func() {
						f, err := os.Open(mounts[m].at(fmt.Sprintf("m%d.bin", m)))
						if err != nil {
							b.Error(err)
							return
						}
						defer f.Close()
						if got, err := io.CopyBuffer(io.Discard, f, make([]byte, 1<<20)); got != size || err != nil {
							b.Errorf("mount %d read %d bytes, %v", m, got, err)
						}
					})
				}
				wg.Wait()
			}
		})
	}
}
