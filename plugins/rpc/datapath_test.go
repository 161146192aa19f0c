package rpc

import (
	"strings"
	"testing"
)

// TestDataAddress checks that the host takes a data socket only in the
// directory it gave the plugin.
func TestDataAddress(t *testing.T) {
	c := &client{}
	c.runner.Store(&cmdRunner{socketDir: "/tmp/x/plugin-dir1"})
	for _, tc := range []struct{ addr, want, err string }{
		{"", "", ""},
		{"/tmp/x/plugin-dir1/data-01", "/tmp/x/plugin-dir1/data-01", ""},
		{"/tmp/x/plugin-dir1/../data-01", "", "not a socket in the directory it was given"},
		{"/run/other.sock", "", "not a socket in the directory it was given"},
		{"plugin-dir1/data", "", "not a socket in the directory it was given"},
	} {
		got, err := c.dataAddress(tc.addr)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("dataAddress(%q) = %q, %v; want %q, %q", tc.addr, got, err, tc.want, tc.err)
		}
	}
}
