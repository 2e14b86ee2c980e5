package sweeptest

import (
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/sweep"
)

// MustRunner is a Runner over st for holder, chunk records at a time, with a
// lease of a minute on clock and a 5 ms poll; it fails tb if sweep refuses
// the options.
func MustRunner(tb testing.TB, st state.Store, holder string, clock *statetest.Clock, chunk int) *sweep.Runner {
	tb.Helper()
	r, err := sweep.New(sweep.Options{State: st, Holder: holder, Chunk: chunk, LeaseTTL: time.Minute, Poll: 5 * time.Millisecond, Now: clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
