package pricing

import "github.com/cardedge/cardedge/snapshots"

// Activity selects cards by their verified sales (of any printing) in a
// window: those of one grader, slabbed ones (the first grader), raw ones;
// each filter set must find at least one sale (the search route's grader,
// slab_only and raw_only).
type Activity struct {
	grader    int // snapshots.GraderIndex; -1: any
	slab, raw bool
	from, to  snapshots.Day
}

// NewActivity is the filter of a grader name ("" for none), slab and raw
// over the analytics window named window (snapshots.AnalyticsWindows; any
// other name: all history) ending at asOf; nil when it filters nothing.
func NewActivity(asOf snapshots.Day, window, grader string, slab, raw bool) *Activity {
	if grader == "" && !slab && !raw {
		return nil
	}
	a := &Activity{grader: snapshots.GraderIndex(grader), slab: slab, raw: raw, from: 1, to: asOf}
	for _, w := range snapshots.AnalyticsWindows {
		if w.Name == window && w.Days > 0 {
			a.from = asOf - snapshots.Day(w.Days) + 1
		}
	}
	return a
}

// Active reports whether card c passes the filter.
func (a *Activity) Active(r snapshots.Reader, c *snapshots.Card) (bool, error) {
	// Every printing's sales: a card has sales when any printing has.
	var cum []snapshots.CumSeries
	for f := range c.Printings() {
		x, err := r.PrintingCum(c.Game, c.ID, f)
		if err != nil {
			return false, err
		}
		cum = append(cum, x...)
	}
	has := func(keep func(snapshots.Grade) bool) bool {
		n, _ := snapshots.SumWindow(cum, keep, a.from, a.to)
		return n > 0
	}
	switch {
	case a.grader >= 0 && !has(func(g snapshots.Grade) bool { return g.Grader() == a.grader }),
		a.slab && !has(func(g snapshots.Grade) bool { return g.Grader() == 0 }),
		a.raw && !has(func(g snapshots.Grade) bool { return g.Raw() }):
		return false, nil
	}
	return true, nil
}
