//go:build race

package index_test

// raceEnabled: the race detector slows everything 5-10 times; the tests then
// index a subset of the catalog and skip latency assertions.
const raceEnabled = true
