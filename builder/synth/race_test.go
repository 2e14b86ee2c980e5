//go:build race

package synth_test

// raceEnabled reports whether the race detector is on: the slowest
// whole-catalog checks skip under it (they test no concurrency).
const raceEnabled = true
