//go:build unix

package rootfs

import (
	"io"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenFIFONoWait opens a FIFO for reading with no writer: the open
// waited for one for ever (a serve listing, which opens what it lists, or a
// GET of one hung); now it opens at once and reads as empty.
func TestOpenFIFONoWait(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o644); err != nil {
		t.Skip(err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan error, 1)
	go func() {
		p, err := f.Open("p")
		if err == nil {
			_, err = io.ReadAll(p)
			p.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("open and read of a FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the open of a FIFO with no writer still waits after 10 s")
	}
}
