//go:build linux

package mount

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCloseKeepsLaterSave is the reproducer of a close that brought back
// old content: a descriptor that wrote in place stays open while another
// rewrites the file; its close must not undo that, as on a local file
// system.
func TestCloseKeepsLaterSave(t *testing.T) {
	tm := mountNew(t)
	old := bytes.Repeat([]byte("0123456789"), 1000)
	rewrites := map[string]func(p string) error{
		"O_TRUNC": func(p string) error { return os.WriteFile(p, []byte("NEW"), 0o644) },
		"truncate": func(p string) error {
			if err := os.Truncate(p, 0); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			f.Write([]byte("NEW"))
			return f.Close()
		},
		"ftruncate": func(p string) error {
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				return err
			}
			f.Truncate(0)
			f.WriteAt([]byte("NEW"), 0)
			return f.Close()
		},
	}
	for name, rewrite := range rewrites {
		t.Run(name, func(t *testing.T) {
			p := tm.at(name)
			if err := os.WriteFile(p, old, 0o644); err != nil {
				t.Fatal(err)
			}
			a, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.WriteAt([]byte("XXXXXXXX"), 5000); err != nil {
				t.Fatal(err)
			}
			if err := rewrite(p); err != nil {
				t.Fatal(err)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(p); err != nil || string(got) != "NEW" {
				t.Errorf("after the first descriptor's close: %d bytes %.20q, %v; want \"NEW\"", len(got), got, err)
			}
		})
	}
}

// TestResizedByOther is the reproducer of closes and fsyncs that failed
// with EIO, and writes dropped, when another descriptor truncated or
// resized the file: descriptors of one file write, truncate and reopen it
// at once for a while; no close or fsync fails, and the file ends as the
// last operation left it.
func TestResizedByOther(t *testing.T) {
	tm := mountNew(t)
	p := tm.at("f")
	if err := os.WriteFile(p, bytes.Repeat([]byte("a"), 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("XY"), 0)
	if err := g.Truncate(100); err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("Z"), 200)
	if err := g.Truncate(50); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Errorf("fsync after another's ftruncate: %v", err)
	}
	for _, d := range []*os.File{f, g} {
		if err := d.Close(); err != nil {
			t.Errorf("close after another's ftruncate: %v", err)
		}
	}
	want := append([]byte("XY"), bytes.Repeat([]byte("a"), 48)...)
	if got, _ := os.ReadFile(p); !bytes.Equal(got, want) {
		t.Errorf("holds %q, want %q", got, want)
	}

	stop := time.Now().Add(raceDuration())
	var wg sync.WaitGroup
	var failed sync.Map
	for w := range 3 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; time.Now().Before(stop); i++ {
				d, err := os.OpenFile(p, os.O_RDWR, 0)
				if err != nil {
					failed.Store(fmt.Sprintf("open: %v", err), true)
					return
				}
				for range 1 + r.IntN(5) {
					if r.IntN(3) == 0 {
						err = d.Truncate(int64(r.IntN(5000)))
					} else {
						_, err = d.WriteAt(bytes.Repeat([]byte{byte('a' + w)}, 1+r.IntN(3000)), int64(r.IntN(5000)))
					}
					if err != nil {
						failed.Store(fmt.Sprintf("write or truncate: %v", err), true)
					}
				}
				if i%3 == 0 {
					if err := d.Sync(); err != nil {
						failed.Store(fmt.Sprintf("fsync: %v", err), true)
					}
				}
				if err := d.Close(); err != nil {
					failed.Store(fmt.Sprintf("close: %v", err), true)
				}
			}
		})
	}
	wg.Wait()
	failed.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
	if errs := tm.errors(); len(errs) > 0 {
		t.Errorf("the mount logged: %v", errs[0])
	}
}

// TestSqliteWriters runs three sqlite3 processes inserting rows into one
// database at once, in WAL mode and in rollback journal mode: every insert
// sqlite reports committed is in the table afterwards, and the database
// passes integrity_check.
func TestSqliteWriters(t *testing.T) {
	t.Parallel()
	need(t, "sqlite3")
	tm := mountNew(t)
	for _, mode := range []string{"wal", "delete"} {
		t.Run(mode, func(t *testing.T) {
			db := tm.at(mode + ".db")
			run(t, "", "sqlite3", db, "pragma journal_mode="+mode+"; create table t(w integer, i integer, v text);")
			const writers, rows = 3, 30
			var wg sync.WaitGroup
			counts := make([]int, writers)
			for w := range writers {
				wg.Go(func() {
					for i := range rows {
						sql := fmt.Sprintf(".timeout 20000\ninsert into t values(%d, %d, '%s');\n", w, i, strings.Repeat("x", 100+i*37))
						cmd := exec.Command("sqlite3", db)
						cmd.Stdin = strings.NewReader(sql)
						out, err := cmd.CombinedOutput()
						if err == nil && len(bytes.TrimSpace(out)) == 0 {
							counts[w]++
						} else {
							t.Logf("writer %d insert %d: %v %s", w, i, err, out)
						}
					}
				})
			}
			wg.Wait()
			out := run(t, "", "sqlite3", db, "pragma integrity_check; select count(*) from t;")
			fields := strings.Fields(out)
			sum := counts[0] + counts[1] + counts[2]
			if len(fields) != 2 || fields[0] != "ok" {
				t.Fatalf("integrity_check and count: %q", out)
			}
			if n, _ := strconv.Atoi(fields[1]); n != sum {
				t.Errorf("%d rows in the table, %d inserts committed", n, sum)
			}
			if sum != writers*rows {
				t.Errorf("%d of %d inserts failed", writers*rows-sum, writers*rows)
			}
		})
	}
	if errs := tm.errors(); len(errs) > 0 {
		t.Errorf("the mount logged: %v", errs[0])
	}
}
