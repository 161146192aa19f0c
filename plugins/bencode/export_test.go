package bencode

import "testing"

// TinyLimitNames names the sets of tiny limits (see tinyLimits), for the
// external tests.
var TinyLimitNames = func() []string {
	var names []string
	for _, set := range tinyLimits {
		names = append(names, set.name)
	}
	return names
}()

// RaceEnabled reports a build with the race detector.
const RaceEnabled = raceEnabled

// WithTinyLimits gives the streams made until the test ends the set of tiny
// limits named name.
func WithTinyLimits(tb testing.TB, name string) {
	for _, set := range tinyLimits {
		if set.name == name {
			withLimits(tb, set.lim)
			return
		}
	}
	tb.Fatalf("no tiny limits %q", name)
}
