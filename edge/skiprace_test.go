package edge

import "testing"

// skipUnderRace skips an exhaustive, single-goroutine equivalence check
// under the race detector, where it is ten times slower and finds nothing a
// race could cause; make test runs it without the detector as well.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("an exhaustive single-goroutine check: make test runs it without -race")
	}
}
