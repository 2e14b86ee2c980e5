package web

import (
	"net/http"
	"strconv"

	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/snapshots"
)

// The collection page's recorded history (issue #33): the value recorded
// at each snapshot (package collection's History, one point a day), one
// chart per source, each day's bar split by the confidence of the prices
// behind it; and set completion (Completion): the printings held of each
// set against the set's, and what the rest costs at today's fmv.

// confidenceSeries are the parts of a recorded value, in stacking order.
var confidenceSeries = []struct{ key, name, class string }{
	{"high", "high confidence", "bar-conf-high"},
	{"medium", "medium confidence", "bar-conf-medium"},
	{"low", "low confidence", "bar-conf-low"},
	{collection.Unrated, "unrated", "bar-conf-unrated"},
}

// recordedChart is one source's recorded values.
type recordedChart struct {
	Source string
	Chart  BarChart
	Last   string // the last point's value
	Date   string // and its day
}

// completionRow is one set of the completion table.
type completionRow struct {
	collection.SetCompletion
	Cost string
	Pct  string
}

// recordedHistory returns the charts of o's recorded values from from on
// (snapshots.NoDay: every point kept) and o's set completion at v.
func (h *Handler) recordedHistory(r *http.Request, m *market, o collection.Owner, from snapshots.Day) ([]recordedChart, []completionRow, error) {
	pts, err := h.opts.Collections.History(r.Context(), o, from)
	if err != nil {
		return nil, nil, err
	}
	var charts []recordedChart
	bySource := map[string]int{}
	var labels []string
	for _, p := range pts {
		labels = append(labels, p.Date)
		for _, sv := range p.Sources {
			j, ok := bySource[sv.Source]
			if !ok {
				j = len(charts)
				bySource[sv.Source] = j
				charts = append(charts, recordedChart{Source: sv.Source})
			}
			c := &charts[j]
			c.Last, c.Date = money(cents(sv.ValueUSD)), p.Date
		}
	}
	for j := range charts {
		c := &charts[j]
		var series []Series
		for _, cs := range confidenceSeries {
			s := Series{Name: cs.name, Class: cs.class, Values: make([]int64, len(pts))}
			for i, p := range pts {
				for _, sv := range p.Sources {
					if sv.Source == c.Source {
						s.Values[i] = cents(sv.ByConfidenceUSD[cs.key])
					}
				}
			}
			series = append(series, s)
		}
		c.Chart = newBars("recorded-"+c.Source, "The collection's value by "+c.Source+" prices, recorded at each snapshot", labels, series, money)
		c.Chart.EmptyNote = "No value recorded yet."
		if n := len(labels); n > 0 {
			c.Chart.Desc = "The value recorded on " + strconv.Itoa(n) + " days, " + labels[0] + " to " + labels[n-1] + "; on " + c.Date + " " + c.Last + "."
		}
	}
	sets, err := h.opts.Collections.Completion(r.Context(), m.View, o, "", snapshots.RawNearMint)
	if err != nil {
		return nil, nil, err
	}
	var rows []completionRow
	for _, s := range sets {
		rows = append(rows, completionRow{SetCompletion: s, Cost: money(cents(s.CostUSD)), Pct: strconv.FormatFloat(s.Pct, 'f', 1, 64) + "%"})
	}
	return charts, rows, nil
}
