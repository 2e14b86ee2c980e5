//go:build !race

package index_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
