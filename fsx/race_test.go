//go:build race

package fsx_test

// raceEnabled reports a build with the race detector, under which
// sync.Pool drops a quarter of what it is given, so that buffers it would
// have handed back are made again.
const raceEnabled = true
