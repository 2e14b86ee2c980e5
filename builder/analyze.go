package builder

import (
	"math"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// cardResult is everything the builder derives from one card's market input.
type cardResult struct {
	card      *snapshots.Card
	sales     []snapshots.Sale
	series    []snapshots.PriceSeries
	cum       []snapshots.CumSeries
	analytics []snapshots.CardAnalytics
	listings  []snapshots.Listing
	trending  [][]float64 // [metric][window]; NaN when the card does not rank
	daily     map[snapshots.Day][2]int64
}

// verified reports whether a sale counts in prices and aggregates: executed,
// not flagged by quality rules, trusted identity.
func verified(s *snapshots.Sale) bool { return !s.Hidden() }

// analyzeCard estimates the card's price series (unless supplied), its
// cumulative sums, analytics for every window, summary fields and trending
// metrics. It fills the market fields of c.
func analyzeCard(c *snapshots.Card, m CardMarket, asOf snapshots.Day) *cardResult {
	r := &cardResult{card: c, sales: m.Sales, listings: m.Listings, daily: map[snapshots.Day][2]int64{}}
	byGrade := map[snapshots.Grade][]snapshots.Sale{} // verified, oldest first
	mkSeen := map[snapshots.Marketplace]bool{}
	for i := len(m.Sales) - 1; i >= 0; i-- {
		s := m.Sales[i]
		if !verified(&s) || s.Day > asOf {
			continue
		}
		byGrade[s.Grade] = append(byGrade[s.Grade], s)
		mkSeen[s.Marketplace] = true
		d := r.daily[s.Day]
		r.daily[s.Day] = [2]int64{d[0] + 1, d[1] + s.PriceCents}
	}
	grades := make([]snapshots.Grade, 0, len(byGrade))
	for g := range byGrade {
		grades = append(grades, g)
	}
	sort.Slice(grades, func(i, j int) bool { return grades[i] < grades[j] })
	for _, g := range grades {
		r.cum = append(r.cum, cumulate(g, byGrade[g]))
	}
	if m.Prices != nil {
		r.series = m.Prices
	} else {
		for _, g := range grades {
			r.series = append(r.series, estimateSeries(g, byGrade[g]))
		}
	}
	sort.Slice(r.series, func(i, j int) bool { return r.series[i].Grade < r.series[j].Grade })

	c.MarketSources, c.Venues = []string{}, []string{}
	for _, mk := range snapshots.AllMarketplaces() {
		if mkSeen[mk] {
			if mk.OnChain() {
				c.Venues = append(c.Venues, mk.String())
			} else {
				c.MarketSources = append(c.MarketSources, mk.String())
			}
		}
	}
	if raw := seriesOf(r.series, snapshots.RawNearMint); raw != nil && len(raw.Points) > 0 {
		last := raw.Points[len(raw.Points)-1]
		c.PriceCents, c.PriceDay = last.FMVCents, last.Day
	}
	c.Sales30d, c.Volume30dCents = snapshots.SumWindow(r.cum, nil, asOf-29, asOf)
	c.SalesAll, _ = snapshots.SumWindow(r.cum, nil, 1, asOf)
	c.Listings = len(m.Listings)
	for _, w := range snapshots.AnalyticsWindows {
		r.analytics = append(r.analytics, analytics(w, byGrade, r.series, asOf))
	}
	r.trending = trendingMetrics(r.cum, r.series, m.Listings, asOf)
	return r
}

// cumulate builds the running totals of one grade's verified sales.
func cumulate(g snapshots.Grade, sales []snapshots.Sale) snapshots.CumSeries {
	s := snapshots.CumSeries{Grade: g}
	var count int32
	var cents int64
	for _, sale := range sales {
		count++
		cents += sale.PriceCents
		if n := len(s.Points); n > 0 && s.Points[n-1].Day == sale.Day {
			s.Points[n-1].Count, s.Points[n-1].Cents = count, cents
			continue
		}
		s.Points = append(s.Points, snapshots.CumPoint{Day: sale.Day, Count: count, Cents: cents})
	}
	return s
}

// estimateSeries derives the oracle price series of one grade from its verified
// sales (oldest first): one point per day with sales.
//
//	median  median of the trailing 7 days' sales
//	tvwap   trailing 7 days, each sale weighted by recency (1 - age/7)
//	fmv     exponentially smoothed day medians: fmv += α (median_day - fmv),
//	        α = 1 - 0.6^n for n sales that day (a busy day moves it more)
func estimateSeries(g snapshots.Grade, sales []snapshots.Sale) snapshots.PriceSeries {
	s := snapshots.PriceSeries{Grade: g}
	var fmv float64
	start := 0 // first sale of the trailing window
	for i := 0; i < len(sales); {
		day := sales[i].Day
		j := i
		for j < len(sales) && sales[j].Day == day {
			j++
		}
		dayMedian := float64(medianCents(sales[i:j]))
		if len(s.Points) == 0 {
			fmv = dayMedian
		} else {
			alpha := 1 - math.Pow(0.6, float64(j-i))
			fmv += alpha * (dayMedian - fmv)
		}
		for sales[start].Day <= day-7 {
			start++
		}
		window := sales[start:j]
		var wsum, vsum float64
		for _, w := range window {
			weight := 1 - float64(day-w.Day)/7
			wsum += weight
			vsum += weight * float64(w.PriceCents)
		}
		s.Points = append(s.Points, snapshots.PricePoint{
			Day:         day,
			FMVCents:    int64(math.Round(fmv)),
			TVWAPCents:  int64(math.Round(vsum / wsum)),
			MedianCents: medianCents(window),
			Sales:       int32(len(window)),
		})
		i = j
	}
	return s
}

func medianCents(sales []snapshots.Sale) int64 {
	p := make([]int64, len(sales))
	for i, s := range sales {
		p[i] = s.PriceCents
	}
	return median(p)
}

func median(p []int64) int64 {
	if len(p) == 0 {
		return 0
	}
	sort.Slice(p, func(i, j int) bool { return p[i] < p[j] })
	if len(p)%2 == 1 {
		return p[len(p)/2]
	}
	return (p[len(p)/2-1] + p[len(p)/2]) / 2
}

func seriesOf(series []snapshots.PriceSeries, g snapshots.Grade) *snapshots.PriceSeries {
	for i := range series {
		if series[i].Grade == g {
			return &series[i]
		}
	}
	return nil
}

func analytics(w snapshots.Window, byGrade map[snapshots.Grade][]snapshots.Sale, series []snapshots.PriceSeries, asOf snapshots.Day) snapshots.CardAnalytics {
	from := snapshots.Day(1)
	if w.Days > 0 {
		from = asOf - snapshots.Day(w.Days) + 1
	}
	a := snapshots.CardAnalytics{
		Window: w.Name, To: asOf.String(),
		ByMarketplace: map[string]int{}, ByGrade: map[string]int{}, GradeMedianCts: map[string]int64{}, TradeTypes: map[string]int{},
	}
	var prices []int64
	earliest := asOf
	for g, sales := range byGrade {
		var gp []int64
		for _, s := range sales {
			if s.Day < from || s.Day > asOf {
				continue
			}
			gp = append(gp, s.PriceCents)
			a.ByMarketplace[s.Marketplace.String()]++
			a.TradeTypes[s.TradeType.String()]++
			a.VolumeCents += s.PriceCents
			if s.Day < earliest {
				earliest = s.Day
			}
		}
		if len(gp) > 0 {
			a.ByGrade[g.String()] = len(gp)
			prices = append(prices, gp...)
			a.GradeMedianCts[g.String()] = median(gp)
		}
	}
	if w.Days > 0 {
		a.From = from.String()
	} else {
		a.From = earliest.String()
	}
	a.Sales = len(prices)
	if a.Sales > 0 {
		a.AvgCents = a.VolumeCents / int64(a.Sales)
		a.MedianCents = median(prices)
		a.LowCents, a.HighCents = prices[0], prices[len(prices)-1]
	}
	raw := seriesOf(series, snapshots.RawNearMint)
	start := from
	if w.Days == 0 && raw != nil && len(raw.Points) > 0 {
		start = raw.Points[0].Day
	}
	first, okFirst := snapshots.FMVAt(raw, start)
	if !okFirst && raw != nil {
		// The series starts inside the window: use its first point.
		for _, p := range raw.Points {
			if p.Day >= start {
				first, okFirst = p.FMVCents, true
				break
			}
		}
	}
	last, okLast := snapshots.FMVAt(raw, asOf)
	if okFirst && okLast {
		a.FirstFMVCents, a.LastFMVCents = first, last
		if first > 0 {
			a.ChangePct = round2(100 * float64(last-first) / float64(first))
		}
		a.VolatilityPct = round2(volatility(raw, start, asOf))
	}
	return a
}

// volatility is the standard deviation of daily log changes of the fmv over
// [from, to], in percent, with days without a point carrying the last value.
func volatility(s *snapshots.PriceSeries, from, to snapshots.Day) float64 {
	var rets []float64
	prev, ok := snapshots.FMVAt(s, from)
	for _, p := range s.Points {
		if p.Day <= from || p.Day > to {
			continue
		}
		if ok && prev > 0 && p.FMVCents > 0 {
			rets = append(rets, math.Log(float64(p.FMVCents)/float64(prev)))
		}
		prev, ok = p.FMVCents, true
	}
	days := float64(to - from)
	if len(rets) == 0 || days <= 0 {
		return 0
	}
	var sum, sq float64
	for _, r := range rets {
		sum += r
		sq += r * r
	}
	// Days without a change contribute a zero return.
	mean := sum / days
	variance := sq/days - mean*mean
	if variance < 0 {
		variance = 0
	}
	return 100 * math.Sqrt(variance)
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// slabGrade reports whether g is graded by the first (top) grader.
func slabGrade(g snapshots.Grade) bool { return g.Grader() == 0 }

// trendingMetrics computes every metric of snapshots.TrendingMetrics for every
// window of snapshots.TrendingWindows. NaN means the card does not rank.
func trendingMetrics(cum []snapshots.CumSeries, series []snapshots.PriceSeries, listings []snapshots.Listing, asOf snapshots.Day) [][]float64 {
	out := make([][]float64, len(snapshots.TrendingMetrics))
	for i := range out {
		out[i] = make([]float64, len(snapshots.TrendingWindows))
	}
	for wi, w := range snapshots.TrendingWindows {
		values := snapshots.TrendingValues(cum, series, asOf, w.Days, nil)
		slab := snapshots.TrendingValues(cum, series, asOf, w.Days, slabGrade)
		newListings := 0
		for _, l := range listings {
			if l.ListedDay > asOf-snapshots.Day(w.Days) && l.ListedDay <= asOf {
				newListings++
			}
		}
		for mi, metric := range snapshots.TrendingMetrics {
			var v float64
			switch {
			case metric == "new_listings":
				v = math.NaN()
				if newListings > 0 {
					v = float64(newListings)
				}
			case strings.HasPrefix(metric, "slab_"):
				v, _ = slab.Metric(strings.TrimPrefix(metric, "slab_"))
			default:
				v, _ = values.Metric(metric)
			}
			out[mi][wi] = v
		}
	}
	return out
}
