package pricing

import (
	"context"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

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

// ActivityScan bounds how many ranked matches SearchActive examines: beyond
// it, the total is a lower bound.
const ActivityScan = 2000

// ActiveHits are the matches of a search that an Activity keeps.
type ActiveHits struct {
	// Hits are the kept matches from the request's offset, at most its
	// limit, in rank order.
	Hits []index.SearchHit
	// Total counts the kept matches among those examined; LowerBound says
	// the scan stopped at ActivityScan matches before the last one.
	Total      int
	LowerBound bool
}

// SearchActive runs req over v's index and keeps the cards a finds active:
// it walks the ranked matches in pages of index.MaxLimit (req's offset and
// limit apply to the kept ones), up to ActivityScan matches.
func SearchActive(ctx context.Context, v *live.View, req index.SearchRequest, a *Activity) (ActiveHits, error) {
	var out ActiveHits
	offset, limit := req.Offset, req.Limit
	req.Offset, req.Limit = 0, index.MaxLimit
	for scanned := 0; scanned < ActivityScan; {
		res, err := v.Index.Search(ctx, req)
		if err != nil {
			return out, err
		}
		for _, h := range res.Hits {
			c, err := v.Reader.Card(req.Game, h.CardID)
			if err != nil {
				return out, err
			}
			ok, err := a.Active(v.Reader, c)
			if err != nil {
				return out, err
			}
			if ok {
				if out.Total >= offset && len(out.Hits) < limit {
					out.Hits = append(out.Hits, h)
				}
				out.Total++
			}
		}
		scanned += len(res.Hits)
		req.Offset += len(res.Hits)
		if len(res.Hits) == 0 || req.Offset >= res.Total {
			break
		}
		if scanned >= ActivityScan {
			out.LowerBound = true
		}
	}
	return out, nil
}
