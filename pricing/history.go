package pricing

import (
	"iter"
	"maps"
	"slices"

	"github.com/cardedge/cardedge/snapshots"
)

// The one reader of a card's history, shared by REST (sales, market-history,
// marketplace-sales, price-history, the recent_sales and history includes),
// the MCP tools (get_sales, get_prices) and the agent's tools: which sales a
// filter selects, and a price series' points over a range at an interval.
// Callers clamp the range to the caller's history window first.

// SaleFilter selects sales. The zero filter selects the verified sales
// (Sale.Hidden false) of every grade, marketplace, trade type and finish on
// or before To; To must be set (usually the snapshot's as_of).
type SaleFilter struct {
	// From and To bound the days (inclusive); From only when FromSet.
	From, To snapshots.Day
	FromSet  bool
	// Include rows verification leaves out: quality-flagged sales,
	// low-confidence identity matches, partner price-feed rows.
	IncludeFiltered, IncludeUntrusted, IncludePriceFeed bool
	Grade                                               snapshots.GradeFilter
	Marketplaces                                        snapshots.MarketplaceSet // empty: every marketplace
	TradeType                                           snapshots.TradeType
	HasTradeType                                        bool
	Finish                                              Finish // zero: every finish
}

// Keep reports whether f selects s.
func (f *SaleFilter) Keep(s *snapshots.Sale) bool {
	switch {
	case s.Day > f.To || (f.FromSet && s.Day < f.From):
		return false
	case s.Flags&snapshots.SaleFlagged != 0 && !f.IncludeFiltered,
		s.Confidence.Untrusted() && !f.IncludeUntrusted,
		s.Flags&snapshots.SalePriceFeed != 0 && !f.IncludePriceFeed:
		return false
	case f.HasTradeType && s.TradeType != f.TradeType:
		return false
	}
	return f.Grade.Match(s.Grade) && f.Marketplaces.Match(s.Marketplace) && f.Finish.Sale(s)
}

// Sales yields the sales f selects among a card's sales, which are newest
// first (as the Reader returns them): it stops at the first sale before From.
func (f *SaleFilter) Sales(sales []snapshots.Sale) iter.Seq[*snapshots.Sale] {
	return func(yield func(*snapshots.Sale) bool) {
		for i := range sales {
			s := &sales[i]
			if f.FromSet && s.Day < f.From {
				return // newest first: the rest is older
			}
			if f.Keep(s) && !yield(s) {
				return
			}
		}
	}
}

// Intervals of Points.
const (
	IntervalDay    = "day"    // one point per day, carried forward
	IntervalWeek   = "week"   // the point in force on each Sunday (weeks start Monday) and on the last day
	IntervalChange = "change" // only the days the price changed
)

// Point is a price series' point as of Day; Sales counts the verified sales
// of that day (0 on a day the point was carried forward to).
type Point struct {
	Day   snapshots.Day
	Price snapshots.PricePoint
	Sales int
}

// Points returns ps's points from From (or its first point, when From is
// not set or earlier) to To at the interval, oldest first; days before the
// first point are left out. nil for a nil or empty series.
func Points(ps *snapshots.PriceSeries, from, to snapshots.Day, fromSet bool, interval string) []Point {
	if ps == nil || len(ps.Points) == 0 {
		return nil
	}
	start := ps.Points[0].Day
	if fromSet && from > start {
		start = from
	}
	var out []Point
	if interval == IntervalChange {
		for _, p := range ps.Points {
			if p.Day >= start && p.Day <= to {
				out = append(out, Point{Day: p.Day, Price: p, Sales: int(p.Sales)})
			}
		}
		return out
	}
	for d := start; d <= to; d++ {
		if interval == IntervalWeek && d.Time().Weekday() != 0 && d != to {
			continue
		}
		p, ok := snapshots.PointAt(ps, d)
		if !ok {
			continue
		}
		pt := Point{Day: d, Price: p}
		if p.Day == d {
			pt.Sales = int(p.Sales)
		}
		out = append(out, pt)
	}
	return out
}

// Price methods of a point.
const (
	MethodFMV    = "fmv"
	MethodTVWAP  = "tvwap"
	MethodMedian = "median"
)

// PointCents is a point's price by method (fmv for an unknown method).
func PointCents(p snapshots.PricePoint, method string) int64 {
	switch method {
	case MethodTVWAP:
		return p.TVWAPCents
	case MethodMedian:
		return p.MedianCents
	}
	return p.FMVCents
}

// PointRow is a price point as REST's history payloads and the agent's
// get_prices show it: the day, the price of one method, the day's sales,
// and the estimate behind the price: its sample size (accepted sales of the
// trailing estimate.Default.SampleDays), confidence and flags (thin,
// outlier_excluded) as of the point's day.
type PointRow struct {
	Date       string   `json:"date"`
	PriceUSD   float64  `json:"price_usd"`
	Sales      int      `json:"sales"`
	SampleSize int      `json:"sample_size"`
	Confidence string   `json:"confidence"`
	Flags      []string `json:"flags"`
}

// PointRows are points with the price of method (never nil).
func PointRows(pts []Point, method string) []PointRow {
	out := make([]PointRow, len(pts))
	for i, p := range pts {
		out[i] = PointRow{Date: p.Day.String(), PriceUSD: snapshots.USD(PointCents(p.Price, method)), Sales: p.Sales,
			SampleSize: int(p.Price.Sample), Confidence: p.Price.Confidence.String(), Flags: FlagNames(p.Price.Flags)}
	}
	return out
}

// DayRow is one day of a card's sales: how many, their volume, median, low
// and high (REST's market-history, MCP get_sales in daily mode).
type DayRow struct {
	Date      string  `json:"date"`
	Sales     int     `json:"sales"`
	VolumeUSD float64 `json:"volume_usd"`
	MedianUSD float64 `json:"median_usd"`
	LowUSD    float64 `json:"low_usd"`
	HighUSD   float64 `json:"high_usd"`
}

// Daily sums sales per day, oldest day first (never nil); days without a
// sale are left out.
func Daily(sales iter.Seq[*snapshots.Sale]) []DayRow {
	byDay := map[snapshots.Day][]int64{}
	for s := range sales {
		byDay[s.Day] = append(byDay[s.Day], s.PriceCents)
	}
	days := slices.Sorted(maps.Keys(byDay))
	out := make([]DayRow, 0, len(days))
	for _, d := range days {
		p := byDay[d]
		var vol int64
		for _, x := range p {
			vol += x
		}
		m := snapshots.Median(p) // sorts p
		out = append(out, DayRow{Date: d.String(), Sales: len(p), VolumeUSD: snapshots.USD(vol), MedianUSD: snapshots.USD(m),
			LowUSD: snapshots.USD(p[0]), HighUSD: snapshots.USD(p[len(p)-1])})
	}
	return out
}

// SalePosition is a sale's place in a card's sales, which are newest first:
// by day, then by id, both descending.
type SalePosition struct {
	Day snapshots.Day
	ID  uint64
}

// Before reports whether sale s comes after position p.
func (p SalePosition) Before(s *snapshots.Sale) bool {
	return s.Day < p.Day || (s.Day == p.Day && s.ID < p.ID)
}

// SalesPage is a page of the sales a filter selects: its rows, how many
// sales the filter selects in all, whether more follow the page and the
// position of its last row.
type SalesPage struct {
	Rows    []SaleRow // never nil
	InRange int
	More    bool
	Last    SalePosition
}

// PageSales is the page of the first limit sales f selects among card c's
// sales (newest first) that come after position after (nil: from the
// first): REST's sales route (paged by cursor) and MCP get_sales' records.
func PageSales(c *snapshots.Card, sales []snapshots.Sale, f SaleFilter, after *SalePosition, limit int) SalesPage {
	p := SalesPage{Rows: []SaleRow{}}
	for s := range f.Sales(sales) {
		p.InRange++
		if after != nil && !after.Before(s) {
			continue
		}
		if len(p.Rows) == limit {
			p.More = true
			continue
		}
		p.Rows = append(p.Rows, NewSaleRow(c, *s))
		p.Last = SalePosition{Day: s.Day, ID: s.ID}
	}
	return p
}
