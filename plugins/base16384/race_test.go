//go:build race

package base16384_test

// raceEnabled reports a build with the race detector, under which
// sync.Pool drops what it is given and allocation counts mean little.
const raceEnabled = true
