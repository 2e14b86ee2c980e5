//go:build !race

package edge

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
