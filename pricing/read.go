package pricing

import "github.com/cardedge/cardedge/snapshots"

// Reading one printing's stored market data. A finish argument of -1
// (BaseRead) names the card's base printing read through the reader's
// base-printing methods, as before printings existed (the routes read a card
// without a finish parameter so); a finish of 0 or more is that printing.

// BaseRead is the finish argument that reads a card's base printing through
// the base-printing methods.
const BaseRead = -1

// PrintingIndex returns the index of the printing finish stands for: the
// card's base printing for BaseRead.
func PrintingIndex(c *snapshots.Card, finish int) int {
	if finish < 0 {
		return snapshots.BasePrinting(c)
	}
	return finish
}

// ReadSeries returns the price series (every grade) of printing finish of c.
func ReadSeries(r snapshots.Reader, c *snapshots.Card, finish int) ([]snapshots.PriceSeries, error) {
	if finish < 0 {
		return r.PriceSeries(c.Game, c.ID)
	}
	return r.PrintingSeries(c.Game, c.ID, finish)
}

// ReadCum returns the cumulative sales series (every grade) of printing
// finish of c.
func ReadCum(r snapshots.Reader, c *snapshots.Card, finish int) ([]snapshots.CumSeries, error) {
	if finish < 0 {
		return r.Cum(c.Game, c.ID)
	}
	return r.PrintingCum(c.Game, c.ID, finish)
}

// ReadWindow returns the stored analytics window of printing finish of c,
// its breakdowns in buf when they fit (ok false when the card has none).
func ReadWindow(r snapshots.Reader, c *snapshots.Card, finish int, window string, buf []snapshots.AnalyticsEntry) (snapshots.WindowAnalytics, bool, error) {
	if finish < 0 {
		return r.AnalyticsWindow(c.Game, c.ID, window, buf)
	}
	return r.PrintingAnalyticsWindow(c.Game, c.ID, finish, window, buf)
}
