// Package sweeptest builds sweep Runners for tests: short leases and polls
// on a test clock, so that tests of the jobs a snapshot starts (alerts,
// collections' values) and of sweep itself set them up one way.
//
// It imports the standard library, sweep, state and state/statetest.
package sweeptest
