package rpc

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataAddress checks that the host takes a data socket only in the
// directory it gave the plugin, and only a socket.
func TestDataAddress(t *testing.T) {
	base, err := os.MkdirTemp("", "d")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := filepath.Join(base, "plugin-dir1")
	other := filepath.Join(base, "other")
	for _, d := range []string{dir, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, sock := range []string{filepath.Join(dir, "data-01"), filepath.Join(other, "service")} {
		lis, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lis.Close() })
	}
	os.Symlink(filepath.Join(other, "service"), filepath.Join(dir, "data-link"))
	os.WriteFile(filepath.Join(dir, "data-file"), nil, 0o600)
	c := &client{}
	c.runner.Store(&cmdRunner{socketDir: dir})
	const outside, notSocket = "not a socket in the directory it was given", "which is no socket"
	for _, tc := range []struct{ addr, want, err string }{
		{"", "", ""},
		{dir + "/data-01", dir + "/data-01", ""},
		{dir + "/../other/service", "", outside},
		{other + "/service", "", outside},
		{"plugin-dir1/data-01", "", outside},
		{dir + "/data-link", "", notSocket},
		{dir + "/data-file", "", notSocket},
		{dir + "/data-none", "", notSocket},
	} {
		got, err := c.dataAddress(tc.addr)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("dataAddress(%q) = %q, %v; want %q, %q", tc.addr, got, err, tc.want, tc.err)
		}
	}
}
