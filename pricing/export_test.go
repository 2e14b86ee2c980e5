package pricing

import "github.com/cardedge/cardedge/snapshots"

// NewCardAnalytics is the payload of window w of c's base printing, as
// CardAnalytics.Read makes it from a stored window (for the tests of
// package pricing_test).
func NewCardAnalytics(c *snapshots.Card, w snapshots.WindowAnalytics) *CardAnalytics {
	return &CardAnalytics{card: c, w: w, finish: PrintingIndex(c, BaseRead)}
}
