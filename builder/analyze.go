package builder

import (
	"math"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// cardResult is everything the builder derives from one card's market input.
type cardResult struct {
	card      *snapshots.Card
	sales     []snapshots.Sale // every printing; outliers flagged
	listings  []snapshots.Listing
	base      int              // the base printing
	printings []printingResult // by finish (index into the card's variants)
	summaries []snapshots.Printing
	daily     map[snapshots.Day][2]int64
	sources   *snapshots.CardSources
}

// printingResult is what the builder derives for one printing of a card.
type printingResult struct {
	series    []snapshots.PriceSeries
	cum       []snapshots.CumSeries
	analytics []snapshots.CardAnalytics // nil for a printing other than the base one without sales
	// rows[metric][window] is the printing's row of each ranking (Value
	// NaN: it does not rank).
	rows [][]snapshots.TrendingRow
	// feedLiquid[metric][window]: the row's reference series is a fresh
	// feed's with a price of at least the liquidity rule's (it ranks
	// without verified sales; see feedEstimate).
	feedLiquid [][]bool
}

// verified reports whether a sale counts in prices and aggregates: executed,
// not flagged by quality rules, trusted identity.
func verified(s *snapshots.Sale) bool { return !s.Hidden() }

// seriesKey names one series of a card: a printing and a grade.
type seriesKey struct {
	finish int
	grade  snapshots.Grade
}

// analyzeCard estimates the card's price series per printing and grade
// (package estimate; supplied series replace the estimate of their printing
// and grade), flags the sales the estimator set aside, and derives the
// cumulative sums, analytics, summaries and trending rows of each printing.
// It fills the market fields of c: its price is the base printing's, its
// counts total every printing.
func analyzeCard(c *snapshots.Card, m CardMarket, asOf snapshots.Day) *cardResult {
	np := c.Printings()
	r := &cardResult{card: c, sales: m.Sales, listings: m.Listings, base: snapshots.BasePrinting(c),
		printings: make([]printingResult, np), daily: map[snapshots.Day][2]int64{}}
	finishOf := func(f uint8) int {
		if int(f) >= np {
			return r.base
		}
		return int(f)
	}
	// Verified sales per series, as indices into m.Sales, oldest first.
	bySeries := map[seriesKey][]int{}
	mkSeen := map[snapshots.Marketplace]bool{}
	for i := len(m.Sales) - 1; i >= 0; i-- {
		s := &m.Sales[i]
		s.Flags &^= snapshots.SaleOutlier
		if !verified(s) || s.Day > asOf {
			continue
		}
		k := seriesKey{finishOf(s.Finish), s.Grade}
		bySeries[k] = append(bySeries[k], i)
		mkSeen[s.Marketplace] = true
		d := r.daily[s.Day]
		r.daily[s.Day] = [2]int64{d[0] + 1, d[1] + s.PriceCents}
	}
	supplied := map[seriesKey]*snapshots.PriceSeries{}
	suppliedBy := map[seriesKey]*SuppliedSeries{}
	for i := range m.Prices {
		p := &m.Prices[i]
		k := seriesKey{finishOf(p.Finish), p.Grade}
		supplied[k] = &p.PriceSeries
		suppliedBy[k] = p
	}
	r.sources = m.Sources
	keys := make([]seriesKey, 0, len(bySeries)+len(supplied))
	for k := range bySeries {
		keys = append(keys, k)
	}
	for k := range supplied {
		if _, ok := bySeries[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].finish != keys[j].finish {
			return keys[i].finish < keys[j].finish
		}
		return keys[i].grade < keys[j].grade
	})

	// Estimate every series.
	est := estimate.Default
	estimates := map[seriesKey]*snapshots.Estimate{}
	byGrade := make([]map[snapshots.Grade][]snapshots.Sale, np) // verified, oldest first
	var buf []estimate.Sale
	for _, k := range keys {
		idx := bySeries[k]
		buf = buf[:0]
		sales := make([]snapshots.Sale, len(idx))
		for j, i := range idx {
			s := m.Sales[i]
			sales[j] = s
			buf = append(buf, estimate.Sale{Day: int32(s.Day), Cents: s.PriceCents, Source: uint8(s.Marketplace)})
		}
		e := est.Estimate(buf, int32(asOf))
		for j, out := range e.Outlier {
			if out {
				m.Sales[idx[j]].Flags |= snapshots.SaleOutlier
			}
		}
		pr := &r.printings[k.finish]
		if byGrade[k.finish] == nil {
			byGrade[k.finish] = map[snapshots.Grade][]snapshots.Sale{}
		}
		if len(sales) > 0 {
			byGrade[k.finish][k.grade] = sales
			pr.cum = append(pr.cum, cumulate(k.grade, sales))
		}
		sum := e.Summary
		x := &snapshots.Estimate{Grade: k.grade, FMVCents: sum.FMV, TVWAPCents: sum.TVWAP, MedianCents: sum.Median,
			SampleSize: sum.SampleSize, LastSaleDay: snapshots.NoDay, Confidence: sum.Confidence, Flags: sum.Flags}
		if sum.LastSale != 0 { // 0: no accepted sale
			x.LastSaleDay = snapshots.Day(sum.LastSale)
		}
		if sp := supplied[k]; sp != nil {
			pr.series = append(pr.series, *sp)
			p, _ := snapshots.PointAt(sp, asOf)
			x.FMVCents, x.TVWAPCents, x.MedianCents = p.FMVCents, p.TVWAPCents, p.MedianCents
			if by := suppliedBy[k]; by.Source != "" {
				x.Confidence, x.Flags = feedEstimate(sp, asOf)
			}
		} else {
			ps := snapshots.PriceSeries{Grade: k.grade, Points: make([]snapshots.PricePoint, len(e.Points))}
			for j, p := range e.Points {
				ps.Points[j] = snapshots.PricePoint{Day: snapshots.Day(p.Day), FMVCents: p.FMV, TVWAPCents: p.TVWAP,
					MedianCents: p.Median, Sales: p.Recent, Sample: p.Sample, Confidence: p.Confidence, Flags: p.Flags}
			}
			if len(ps.Points) > 0 {
				pr.series = append(pr.series, ps)
			}
		}
		if len(pr.series) > 0 && pr.series[len(pr.series)-1].Grade == k.grade {
			estimates[k] = x
		}
	}
	soloFlags(r.printings, estimates, asOf)
	if r.sources != nil {
		r.sources.Series = r.sources.Series[:0]
		for _, k := range keys {
			if estimates[k] == nil {
				continue
			}
			ss := snapshots.SeriesSource{Finish: uint8(k.finish), Grade: k.grade, Source: snapshots.SourceObserved}
			if r.sources.Synthetic {
				ss.Source = snapshots.SourceSynthetic
			}
			if by := suppliedBy[k]; by != nil && by.Source != "" {
				ss.Source, ss.Field = by.Source, by.Field
			}
			r.sources.Series = append(r.sources.Series, ss)
		}
	}

	// Summaries: the card's (price of the base printing, counts of all) and
	// each printing's.
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
	c.PriceCents, c.PriceDay = 0, 0
	if raw := snapshots.SeriesOf(r.printings[r.base].series, snapshots.RawNearMint); raw != nil && len(raw.Points) > 0 {
		last := raw.Points[len(raw.Points)-1]
		c.PriceCents, c.PriceDay = last.FMVCents, last.Day
	}
	c.Sales30d, c.Volume30dCents, c.SalesAll = 0, 0, 0
	listingsOf := make([][]snapshots.Listing, np)
	for _, l := range m.Listings {
		f := r.base
		if i := indexOf(c.Variants, l.Finish); i >= 0 {
			f = i
		}
		listingsOf[f] = append(listingsOf[f], l)
	}
	r.summaries = make([]snapshots.Printing, np)
	for f := range r.printings {
		pr := &r.printings[f]
		ps := &r.summaries[f]
		ps.Finish, ps.Base = uint8(f), f == r.base
		if f < len(c.Variants) {
			ps.Name = c.Variants[f]
		}
		ps.Sales30d, ps.Volume30dCents = snapshots.SumWindow(pr.cum, nil, asOf-29, asOf)
		ps.SalesAll, _ = snapshots.SumWindow(pr.cum, nil, 1, asOf)
		ps.Listings = len(listingsOf[f])
		for _, l := range listingsOf[f] { // cheapest first
			ps.LowAskCents = l.AskCents
			break
		}
		for _, s := range pr.series {
			if x := estimates[seriesKey{f, s.Grade}]; x != nil {
				ps.Estimates = append(ps.Estimates, *x)
			}
		}
		c.Sales30d += ps.Sales30d
		c.Volume30dCents += ps.Volume30dCents
		c.SalesAll += ps.SalesAll
		if f == r.base || len(byGrade[f]) > 0 {
			for _, w := range snapshots.AnalyticsWindows {
				pr.analytics = append(pr.analytics, analytics(w, byGrade[f], pr.series, asOf))
			}
		}
		fresh := func(g snapshots.Grade) bool {
			by := suppliedBy[seriesKey{f, g}]
			return by != nil && by.Source != "" && feedFresh(&by.PriceSeries, asOf)
		}
		pr.rows, pr.feedLiquid = trendingRows(uint8(f), pr.cum, pr.series, listingsOf[f], estimates, asOf, fresh)
	}
	c.Listings = len(m.Listings)
	return r
}

// soloFlags flags the estimates of series that moved while their siblings
// (the other printings of their grade, the other grades of their printing)
// stayed flat (estimate.Methodology.SoloOf).
func soloFlags(printings []printingResult, estimates map[seriesKey]*snapshots.Estimate, asOf snapshots.Day) {
	est := estimate.Default
	moves := map[seriesKey]float64{}
	for f := range printings {
		for i := range printings[f].series {
			s := &printings[f].series[i]
			moves[seriesKey{f, s.Grade}] = movePct(s, asOf, est.Solo.Days)
		}
	}
	if len(moves) < 2 {
		return
	}
	var siblings []float64
	for k, mv := range moves {
		x := estimates[k]
		if x == nil || math.IsNaN(mv) {
			continue
		}
		siblings = siblings[:0]
		for o, omv := range moves {
			if o != k && (o.finish == k.finish || o.grade == k.grade) {
				siblings = append(siblings, omv)
			}
		}
		if est.SoloOf(mv, siblings) {
			x.Flags |= estimate.FlagSolo
		}
	}
}

// movePct is the percent change of a series' fmv over the days days to asOf
// (NaN without a price at both ends).
func movePct(s *snapshots.PriceSeries, asOf snapshots.Day, days int) float64 {
	before, ok1 := snapshots.FMVAt(s, asOf-snapshots.Day(days))
	now, ok2 := snapshots.FMVAt(s, asOf)
	if !ok1 || !ok2 || before <= 0 {
		return math.NaN()
	}
	return 100 * float64(now-before) / float64(before)
}

// cumulate builds the running totals of one series' verified sales.
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
			a.GradeMedianCts[g.String()] = snapshots.Median(gp)
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
		a.MedianCents = snapshots.Median(prices)
		a.LowCents, a.HighCents = prices[0], prices[len(prices)-1]
	}
	raw := snapshots.SeriesOf(series, snapshots.RawNearMint)
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
			a.ChangePct = snapshots.Round2(100 * float64(last-first) / float64(first))
		}
		a.VolatilityPct = snapshots.Round2(volatility(raw, start, asOf))
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

// slabGrade reports whether g is graded by the first (top) grader.
func slabGrade(g snapshots.Grade) bool { return g.Grader() == 0 }

// trendingRows computes one printing's row of every ranking (every metric of
// snapshots.TrendingMetrics, every window of snapshots.TrendingWindows); a
// row's Value is NaN when the printing does not rank (no activity). Rows
// carry their sample size, price and the flags of their reference series.
func trendingRows(finish uint8, cum []snapshots.CumSeries, series []snapshots.PriceSeries, listings []snapshots.Listing,
	estimates map[seriesKey]*snapshots.Estimate, asOf snapshots.Day, fresh func(snapshots.Grade) bool) ([][]snapshots.TrendingRow, [][]bool) {
	out := make([][]snapshots.TrendingRow, len(snapshots.TrendingMetrics))
	liquid := make([][]bool, len(snapshots.TrendingMetrics))
	for i := range out {
		out[i] = make([]snapshots.TrendingRow, len(snapshots.TrendingWindows))
		liquid[i] = make([]bool, len(snapshots.TrendingWindows))
	}
	minPrice := estimate.Default.MinPriceCents()
	flags := func(g snapshots.Grade) estimate.Flags {
		if x := estimates[seriesKey{int(finish), g}]; x != nil {
			return x.Flags
		}
		return 0
	}
	for wi, w := range snapshots.TrendingWindows {
		values := snapshots.TrendingStats(cum, series, asOf, w.Days, nil)
		slab := snapshots.TrendingStats(cum, series, asOf, w.Days, slabGrade)
		newListings := 0
		for _, l := range listings {
			if l.ListedDay > asOf-snapshots.Day(w.Days) && l.ListedDay <= asOf {
				newListings++
			}
		}
		for mi, metric := range snapshots.TrendingMetrics {
			v := values
			var x float64
			switch {
			case metric == "new_listings":
				x = math.NaN()
				if newListings > 0 {
					x = float64(newListings)
				}
			case strings.HasPrefix(metric, "slab_"):
				v = slab
				x, _ = slab.Metric(strings.TrimPrefix(metric, "slab_"))
			default:
				x, _ = values.Metric(metric)
			}
			feed := fresh(v.Ref)
			out[mi][wi] = snapshots.TrendingRow{Finish: finish, Value: x, SampleSize: int32(v.Sample), PriceCents: v.PriceCents, Flags: flags(v.Ref), Feed: feed}
			liquid[mi][wi] = feed && estimate.Default.LiquidFeed(estimate.Default.Liquidity.MinSales, v.PriceCents, minPrice)
		}
	}
	return out, liquid
}

// feedEstimate is the confidence and flags of a real source's series as of
// asOf, from the age of its last point (estimate.Default.SourceConfidence:
// medium while the source is fresh, its last day at most
// snapshots.StaleAfterDays before asOf; low and stale after that, none and
// stale beyond estimate.Default.StaleDays).
func feedEstimate(s *snapshots.PriceSeries, asOf snapshots.Day) (estimate.Confidence, estimate.Flags) {
	p, ok := snapshots.PointAt(s, asOf)
	if !ok {
		return estimate.ConfidenceNone, estimate.FlagStale
	}
	return estimate.Default.SourceConfidence(int(asOf - p.Day))
}

// feedFresh reports whether a real source's series has a point at most
// snapshots.StaleAfterDays before asOf.
func feedFresh(s *snapshots.PriceSeries, asOf snapshots.Day) bool {
	p, ok := snapshots.PointAt(s, asOf)
	return ok && estimate.Default.SourceFresh(int(asOf-p.Day))
}
