//go:build linux

package mount

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/b14fs/b14fs/plugins/base16384"
)

// The tests in this file run the programs people point at a mount, each as
// a real process against a real mount.

// sourceTree is a small tree of files with various modes and times.
func sourceTree(t *testing.T) string {
	src := t.TempDir()
	writeTree(t, src, map[string]string{
		"a.txt":          "alpha\n",
		"empty":          "",
		"sub/b.bin":      strings.Repeat("0123456789", 1000),
		"sub/deep/c.md":  "# c\n",
		"odd name é.txt": "odd\n",
	})
	os.Chmod(filepath.Join(src, "a.txt"), 0o600)
	os.Chmod(filepath.Join(src, "sub/b.bin"), 0o755)
	os.Chmod(filepath.Join(src, "sub/deep"), 0o750)
	old := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	os.Chtimes(filepath.Join(src, "sub/deep/c.md"), old, old)
	return src
}

// sameTree fails unless the trees a and b hold the same files and
// directories with the same content, modes and modification times.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	if out, err := runErr("", "diff", "-r", a, b); err != nil {
		t.Fatalf("diff -r %s %s: %v\n%s", a, b, err, out)
	}
	list := func(dir string) string {
		return run(t, dir, "find", ".", "-printf", "%p %M %s %T@\n", "-not", "-name", ".")
	}
	la, lb := sortLines(list(a)), sortLines(list(b))
	if la != lb {
		t.Fatalf("find -printf differs:\n%s\n---\n%s", la, lb)
	}
}

func sortLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	// Directory times change as entries are added; compare them without.
	for i, l := range lines {
		if f := strings.Fields(l); len(f) >= 4 && strings.HasPrefix(f[len(f)-3], "d") {
			lines[i] = strings.Join(f[:len(f)-1], " ")
		}
	}
	return strings.Join(sorted(lines), "\n")
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestToolCpA copies a tree into the mount and out again with cp -a:
// contents, modes and times survive both ways, and a copy out of a
// read-only mount keeps the stored modes (it used to come out read-only).
func TestToolCpA(t *testing.T) {
	need(t, "cp", "diff", "find")
	src := sourceTree(t)
	tm := mountNew(t)
	run(t, "", "cp", "-a", src, tm.at("dst"))
	sameTree(t, src, tm.at("dst"))
	out := filepath.Join(t.TempDir(), "out")
	run(t, "", "cp", "-a", tm.at("dst"), out)
	sameTree(t, src, out)

	ro := mountBack(t, tm.back, base16384.NewCodec(), Options{})
	out2 := filepath.Join(t.TempDir(), "out")
	run(t, "", "cp", "-a", ro.at("dst"), out2)
	sameTree(t, src, out2)
	if err := os.WriteFile(filepath.Join(out2, "a.txt"), []byte("x"), 0); err != nil {
		t.Errorf("a copy out of the read-only mount is not writable: %v", err)
	}
}

// TestToolRsync syncs a tree into the mount and back with rsync -a
// --checksum; a second run finds nothing to do.
func TestToolRsync(t *testing.T) {
	need(t, "rsync", "diff", "find")
	src := sourceTree(t)
	tm := mountNew(t)
	run(t, "", "rsync", "-a", "--checksum", src+"/", tm.at("dst")+"/")
	sameTree(t, src, tm.at("dst"))
	if out := run(t, "", "rsync", "-a", "--checksum", "--itemize-changes", src+"/", tm.at("dst")+"/"); strings.TrimSpace(out) != "" {
		t.Errorf("a second rsync into the mount changed:\n%s", out)
	}
	// A change through the mount, synced back out.
	if err := os.WriteFile(tm.at("dst/a.txt"), []byte("changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	run(t, "", "rsync", "-a", "--checksum", tm.at("dst")+"/", out+"/")
	sameTree(t, tm.at("dst"), out)
	if b, _ := os.ReadFile(filepath.Join(out, "a.txt")); string(b) != "changed\n" {
		t.Errorf("synced out: %q", b)
	}
}

// tailProc runs tail with args on the file and returns what it printed so
// far, through the returned function.
func tailProc(t *testing.T, args ...string) func() string {
	cmd := exec.Command("tail", args...)
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	var buf bytes.Buffer
	done := make(chan struct{})
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			<-mu
			buf.WriteString(sc.Text() + "\n")
			mu <- struct{}{}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		pw.Close()
		<-done
	})
	return func() string {
		<-mu
		defer func() { mu <- struct{}{} }()
		return buf.String()
	}
}

// TestToolTailF follows files with tail -f and tail -F: lines appended
// through the mount, appended to the stored file in place underneath, and
// the stored file replaced underneath (tail -F) all show up.
func TestToolTailF(t *testing.T) {
	t.Parallel()
	need(t, "tail", "sh")
	tm := mountNew(t)
	if err := os.WriteFile(tm.at("log"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tm.at("log2"), []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tailf := tailProc(t, "-f", "-s", "0.2", tm.at("log"))
	tailF := tailProc(t, "-F", "-s", "0.2", tm.at("log2"))
	wait := func(get func() string, want string) {
		t.Helper()
		eventually(t, 10*time.Second, func() string {
			if got := get(); got != want {
				return fmt.Sprintf("tail printed %q, want %q", got, want)
			}
			return ""
		})
	}
	wait(tailf, "one\n")
	run(t, "", "sh", "-c", "echo two >> "+tm.at("log"))
	wait(tailf, "one\ntwo\n")
	run(t, "", "sh", "-c", "echo three >> "+tm.at("log")+"; echo four >> "+tm.at("log"))
	wait(tailf, "one\ntwo\nthree\nfour\n")

	// Underneath: another fsx over the same directory appends in place.
	other := mustFsx(t, afero.NewBasePathFs(afero.NewOsFs(), tm.back), base16384.NewCodec())
	f, err := other.OpenFile("log", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("five\n"))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	wait(tailf, "one\ntwo\nthree\nfour\nfive\n")

	// Underneath: the stored file replaced (as b14fs encode -o does).
	wait(tailF, "first\n")
	if err := afero.WriteFile(other, "log2", []byte("first\nsecond\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() string {
		if got := tailF(); !strings.Contains(got, "second\n") {
			return fmt.Sprintf("tail -F printed %q", got)
		}
		return ""
	})
}

// TestToolEditorSave saves the way editors do, into a temporary file that
// is renamed over the original: a program that had the file open keeps
// reading the old content, a new open reads the new.
func TestToolEditorSave(t *testing.T) {
	need(t, "sh")
	tm := mountNew(t)
	old := strings.Repeat("old line\n", 5000)
	if err := os.WriteFile(tm.at("doc.txt"), []byte(old), 0o640); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(tm.at("doc.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head := make([]byte, 100)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	run(t, tm.mnt, "sh", "-c", `printf 'new text\n' > .doc.txt.swp && chmod 640 .doc.txt.swp && mv .doc.txt.swp doc.txt`)
	rest, err := io.ReadAll(r)
	if err != nil || string(head)+string(rest) != old {
		t.Errorf("the open reader read %d bytes after the save, %v; want the old content", len(rest), err)
	}
	if b, err := os.ReadFile(tm.at("doc.txt")); err != nil || string(b) != "new text\n" {
		t.Errorf("after the save: %q, %v", b, err)
	}
	if fi, err := os.Stat(tm.at("doc.txt")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("after the save: %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(tm.back, ".doc.txt.swp.b14")); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still stored: %v", err)
	}
}

// TestToolFindDuDfStat checks what find, du, df and stat see.
func TestToolFindDuDfStat(t *testing.T) {
	need(t, "find", "du", "df", "stat", "cp")
	src := sourceTree(t)
	tm := mountNew(t)
	run(t, "", "cp", "-a", src, tm.at("t"))
	if a, b := sortLines(run(t, src, "find", ".")), sortLines(run(t, tm.at("t"), "find", ".")); a != b {
		t.Errorf("find in the mount:\n%s\nwant\n%s", b, a)
	}
	if a, b := run(t, src, "find", ".", "-type", "f", "-size", "+5k"), run(t, tm.at("t"), "find", ".", "-type", "f", "-size", "+5k"); a != b {
		t.Errorf("find -size in the mount: %q, want %q", b, a)
	}
	// du counts the disk the stored files take.
	du := strings.Fields(run(t, "", "du", "-s", "-B1", tm.at("t")))[0]
	duBack := strings.Fields(run(t, "", "du", "-s", "-B1", filepath.Join(tm.back, "t")))[0]
	if du != duBack {
		t.Errorf("du -s in the mount: %s bytes, stored: %s", du, duBack)
	}
	apparent := strings.Fields(run(t, "", "du", "-s", "-b", tm.at("t/sub/b.bin")))[0]
	if apparent != "10000" {
		t.Errorf("du -b of a 10000-byte file: %s", apparent)
	}
	dfField := func(dir string) string {
		lines := strings.Split(strings.TrimSpace(run(t, "", "df", "-B1", "--output=size,itotal", dir)), "\n")
		return lines[len(lines)-1]
	}
	if a, b := dfField(tm.back), dfField(tm.mnt); a != b || strings.HasPrefix(strings.TrimSpace(b), "0 ") {
		t.Errorf("df of the mount: %q, of DIR: %q", b, a)
	}
	got := run(t, "", "stat", "-c", "%s %a %F %h", tm.at("t/sub/b.bin"), tm.at("t/sub"), tm.at("t/empty"))
	want := "10000 755 regular file 1\n"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "0 644 regular empty file 1") {
		t.Errorf("stat: %q", got)
	}
	if out := run(t, "", "stat", "-f", "-c", "%b %f %c %l", tm.mnt); strings.HasPrefix(out, "0 0 0") {
		t.Errorf("stat -f: %q", out)
	}
}

// TestToolSymlinks makes and reads links with ln -s and readlink, and
// checks that the mount shows a link in DIR as a link, never as what it
// points to, and writes nothing outside DIR through one.
func TestToolSymlinks(t *testing.T) {
	need(t, "ln", "readlink", "sh", "ls", "touch")
	t.Run("local", func(t *testing.T) { toolSymlinks(t, mountNew(t), true) })
	t.Run("sftp", func(t *testing.T) { toolSymlinks(t, mountSFTP(t, Options{Writable: true}), false) })
}

// toolSymlinks is TestToolSymlinks on tm, whose base changes a link's
// own times (linkTimes) or fails with ENOSYS rather than change its
// target's.
func toolSymlinks(t *testing.T, tm *testMount, linkTimes bool) {
	copyLinks(t, tm, linkTimes)
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret": "outside\n"})
	if err := os.WriteFile(tm.at("notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(tm.at("sub"), 0o755)
	run(t, tm.mnt, "ln", "-s", "notes.txt", "sub/../ln1")
	run(t, tm.mnt, "ln", "-s", "../notes.txt", "sub/ln2")
	run(t, tm.mnt, "ln", "-s", "sub", "dirlink")
	if got := run(t, tm.mnt, "readlink", "ln1", "sub/ln2", "dirlink"); got != "notes.txt\n../notes.txt\nsub\n" {
		t.Errorf("readlink: %q", got)
	}
	if got, _ := os.Readlink(filepath.Join(tm.back, "sub/ln2.b14")); got != "../notes.txt.b14" {
		t.Errorf("stored link: %q", got)
	}
	if b, err := os.ReadFile(tm.at("sub/ln2")); err != nil || string(b) != "notes\n" {
		t.Errorf("through a link: %q, %v", b, err)
	}
	if out := run(t, tm.mnt, "ls", "-l"); !strings.Contains(out, "dirlink -> sub") || !strings.Contains(out, "ln1 -> notes.txt") {
		t.Errorf("ls -l:\n%s", out)
	}

	// Links made in DIR: one named like a file is shown, as a link, even
	// to a directory outside; one not named like a file is not shown.
	if err := os.Symlink(outside, filepath.Join(tm.back, "out.b14")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tm.back, "hidden")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(tm.at("out"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("Lstat(out) = %v, %v; want a link", fi, err)
	}
	if got, _ := os.Readlink(tm.at("out")); got != outside {
		t.Errorf("readlink out = %q", got)
	}
	if _, err := os.Lstat(tm.at("hidden")); !os.IsNotExist(err) {
		t.Errorf("a link not named like a file: %v, want not shown", err)
	}
	names := run(t, tm.mnt, "ls", "-a")
	if strings.Contains(names, "hidden") || !strings.Contains(names, "out\n") {
		t.Errorf("ls -a:\n%s", names)
	}
	// Following it is the kernel's business, out of the mount: nothing is
	// stored encoded out there.
	run(t, tm.mnt, "sh", "-c", "echo x > out/new.txt")
	if _, err := os.Stat(filepath.Join(outside, "new.txt.b14")); !os.IsNotExist(err) {
		t.Errorf("the mount wrote an encoded file outside DIR: %v", err)
	}

	// touch -h sets the link's own times, or fails; never its target's.
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(tm.at("notes.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	out, err := runErr(tm.mnt, "touch", "-h", "-d", "2001-02-03 04:05:06Z", "ln1")
	if linkTimes != (err == nil) || !linkTimes && !strings.Contains(out, "Function not implemented") {
		t.Errorf("touch -h: %v\n%s", err, out)
	}
	if fi, err := os.Stat(tm.at("notes.txt")); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("touch -h of a link changed its target: %v, %v", fi.ModTime(), err)
	}
	if fi, err := os.Lstat(tm.at("ln1")); err != nil || linkTimes && fi.ModTime().Year() != 2001 {
		t.Errorf("the link's times after touch -h: %v, %v", fi.ModTime(), err)
	}

	// Removing and renaming links, dangling ones too.
	run(t, tm.mnt, "ln", "-s", "nothing-there", "dangling")
	run(t, tm.mnt, "mv", "dangling", "dangling2")
	if got, _ := os.Readlink(tm.at("dangling2")); got != "nothing-there" {
		t.Errorf("renamed dangling link: %q", got)
	}
	for _, name := range []string{"dangling2", "out", "ln1", "dirlink"} {
		if err := os.Remove(tm.at(name)); err != nil {
			t.Errorf("rm %s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "secret")); err != nil {
		t.Errorf("removing the link removed what it pointed to: %v", err)
	}
	if _, err := os.Stat(tm.at("sub")); err != nil {
		t.Errorf("removing dirlink: %v", err)
	}
}

// copyLinks copies a tree holding links into tm with rsync -a, twice, and
// with cp -a: the links arrive whole. Where the base cannot set a link's
// times (not linkTimes), rsync -a skips them with no error (it takes
// ENOSYS so), and cp -a says so for each link.
func copyLinks(t *testing.T, tm *testMount, linkTimes bool) {
	if _, err := exec.LookPath("rsync"); err != nil {
		t.Log("rsync is not installed: links are not copied in with it")
		return
	}
	src := sourceTree(t)
	for target, name := range map[string]string{"a.txt": "la", "sub": "lsub", "/etc/hostname": "labs", "nothing": "ldangling"} {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
		os.Lchown(filepath.Join(src, name), os.Getuid(), os.Getgid())
	}
	run(t, "", "rsync", "-a", src+"/", tm.at("rsynced")+"/")
	if out := run(t, "", "rsync", "-a", "--itemize-changes", src+"/", tm.at("rsynced")+"/"); out != "" {
		t.Errorf("a second rsync -a changed:\n%s", out)
	}
	out, err := runErr("", "cp", "-a", src, tm.at("copied"))
	for line := range strings.Lines(out) {
		if linkTimes || !strings.Contains(line, "preserving times for") || !strings.Contains(line, "Function not implemented") {
			t.Errorf("cp -a: %v: %s", err, line)
		}
	}
	for _, dst := range []string{"rsynced", "copied"} {
		if out, err := runErr("", "diff", "-r", "--no-dereference", src, tm.at(dst)); err != nil {
			t.Errorf("diff -r --no-dereference %s: %v\n%s", dst, err, out)
		}
	}
}

// TestToolTruncate truncates through the mount by name and through an open
// file, down and up.
func TestToolTruncate(t *testing.T) {
	need(t, "truncate")
	tm := mountNew(t)
	data := bytes.Repeat([]byte("abcdefg"), 3000)
	if err := os.WriteFile(tm.at("f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "", "truncate", "-s", "100", tm.at("f"))
	run(t, "", "truncate", "-s", "+50", tm.at("f"))
	want := append(append([]byte(nil), data[:100]...), make([]byte, 50)...)
	if b, err := os.ReadFile(tm.at("f")); err != nil || !bytes.Equal(b, want) {
		t.Errorf("after truncate: %d bytes, %v", len(b), err)
	}
	f, err := os.OpenFile(tm.at("f"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("XY"), 1)
	if err := f.Truncate(3); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(tm.at("f")); fi.Size() != 3 {
		t.Errorf("size while open: %d", fi.Size())
	}
	f.Close()
	if b, _ := os.ReadFile(tm.at("f")); string(b) != "aXY" {
		t.Errorf("after ftruncate: %q", b)
	}
	run(t, "", "truncate", "-s", "0", tm.at("f"))
	if fi, _ := os.Stat(tm.stored("f")); fi.Size() != 0 {
		t.Errorf("stored size after truncate -s 0: %d", fi.Size())
	}
}

// TestToolSqlite creates a database on the mount with sqlite3, fills it
// with 10,000 rows in transactions and checks its integrity: random writes
// in place, with the stored file (and so the file sqlite has open) kept.
func TestToolSqlite(t *testing.T) {
	t.Parallel()
	need(t, "sqlite3")
	tm := mountNew(t)
	db := tm.at("test.db")
	run(t, "", "sqlite3", db, "create table t(id integer primary key, v text, n real); create index tv on t(v);")
	before, err := os.Stat(tm.stored("test.db"))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	for tx := range 50 {
		script.WriteString("begin;\n")
		for i := range 200 {
			fmt.Fprintf(&script, "insert into t(v, n) values('row %d-%d %s', %d.5);\n", tx, i, strings.Repeat("x", i%50), i)
		}
		if tx%10 == 9 {
			fmt.Fprintf(&script, "update t set n = n + 1 where id %% 7 = %d;\ndelete from t where id %% 997 = %d;\n", tx%7, tx)
		}
		script.WriteString("commit;\n")
	}
	cmd := exec.Command("sqlite3", db)
	cmd.Stdin = strings.NewReader(script.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	out := run(t, "", "sqlite3", db, "pragma integrity_check; select count(*) from t; select count(distinct v) from t;")
	lines := strings.Fields(out)
	if len(lines) != 3 || lines[0] != "ok" {
		t.Fatalf("integrity_check and counts: %q", out)
	}
	if n, _ := strconv.Atoi(lines[1]); n < 9900 || n > 10000 || lines[1] != lines[2] {
		t.Errorf("counts: %q", out)
	}
	after, err := os.Stat(tm.stored("test.db"))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Errorf("the stored database was replaced: writes into it are not in place")
	}
	// The stored file decodes on its own to the same database.
	plain := filepath.Join(t.TempDir(), "plain.db")
	other := mustFsx(t, afero.NewBasePathFs(afero.NewOsFs(), tm.back), base16384.NewCodec())
	b, err := afero.ReadFile(other, "test.db")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(plain, b, 0o644)
	if out := run(t, "", "sqlite3", plain, "pragma integrity_check; select count(*) from t;"); strings.Fields(out)[1] != lines[1] {
		t.Errorf("decoded copy: %q", out)
	}
	if errs := tm.errors(); len(errs) > 0 {
		t.Errorf("the mount logged: %v", errs)
	}
}

func errorsIs(err error, target error) bool {
	for err != nil {
		if err == target {
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}
