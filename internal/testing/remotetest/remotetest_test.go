//go:build unix

package remotetest

import "testing"

// TestFreePortsDistinct checks that one call never hands out a port twice:
// a server given two equal ports fails to bind the second.
func TestFreePortsDistinct(t *testing.T) {
	ports, err := freePorts(500)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[int]bool, len(ports))
	for _, p := range ports {
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
}
