package rpc

import (
	"testing"
	"time"
)

// TestParseTimeout reads the values of B14FS_PLUGIN_TIMEOUT: a duration, or
// a number of seconds, fractions too (1.5 was refused).
func TestParseTimeout(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"10s", 10 * time.Second, true},
		{"2m", 2 * time.Minute, true},
		{"0", 0, true},
		{"30", 30 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"soon", 0, false},
		{"-1", 0, false},
		{"-1s", 0, false},
		{"NaN", 0, false},
		{"1e300", 0, false},
	} {
		d, err := parseTimeout(c.in)
		if (err == nil) != c.ok || c.ok && d != c.want {
			t.Errorf("parseTimeout(%q) = %v, %v; want %v, ok %v", c.in, d, err, c.want, c.ok)
		}
	}
}
