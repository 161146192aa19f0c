//go:build !race

package base16384_test

const raceEnabled = false
