//go:build !race

package synth_test

const raceEnabled = false
