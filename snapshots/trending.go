package snapshots

import (
	"math"

	"github.com/cardedge/cardedge/estimate"
)

// TrendValues are one card's (or printing's) trending metrics over one
// window. NaN means the row does not rank on that metric.
type TrendValues struct {
	SalesCount float64 // verified sales in the window
	VolumeUSD  float64 // their volume in dollars
	VolumePct  float64 // volume change against the window before (estimate.Methodology.VolumeBaseline), in percent
	PricePct   float64 // fmv change over the window, in percent
	Composite  float64 // estimate.Default.CompositeOf(price_pct, volume_pct, Sample)

	// What the liquidity rule (estimate.Default.Liquid) looks at: the
	// verified sales over estimate.Default.SalesDays(window) and the fmv at
	// as_of of the reference series Ref (raw near-mint, or the kept grade
	// with the most sales; without a raw near-mint series, the grade with
	// the most sales).
	Sample     int
	PriceCents int64
	Ref        Grade
}

// SumWindow sums the cumulative series whose grade passes keep (nil: every
// grade) over the days [from, to].
func SumWindow(cum []CumSeries, keep func(Grade) bool, from, to Day) (count int, cents int64) {
	var n int32
	for _, s := range cum {
		if keep != nil && !keep(s.Grade) {
			continue
		}
		dn, dv := s.Between(from, to)
		n += dn
		cents += dv
	}
	return int(n), cents
}

// TrendingStats computes a row's trending metrics over the days days ending
// at asOf, over the grades that pass keep (nil: every grade), whether or not
// the row meets the liquidity rule: a metric is NaN only where it is
// undefined (no sale in the window; no volume in the previous window for
// volume_pct; no fmv at both ends for price_pct). price_pct is defined
// without a sale when the reference series has a point in the window (a
// marketplace's daily price feed).
func TrendingStats(cum []CumSeries, series []PriceSeries, asOf Day, days int, keep func(Grade) bool) TrendValues {
	nan := math.NaN()
	v := TrendValues{SalesCount: nan, VolumeUSD: nan, VolumePct: nan, PricePct: nan, Composite: nan}
	from := asOf - Day(days) + 1
	v.Sample, _ = SumWindow(cum, keep, asOf-Day(estimate.Default.SalesDays(days))+1, asOf)
	v.Ref = RawNearMint
	if keep != nil || seriesFor(series, RawNearMint) == nil {
		best := int32(-1)
		for _, s := range cum {
			if (keep == nil || keep(s.Grade)) && len(s.Points) > 0 && s.Points[len(s.Points)-1].Count > best {
				best, v.Ref = s.Points[len(s.Points)-1].Count, s.Grade
			}
		}
		if best < 0 {
			// No sales at all: the first kept grade with a price series
			// (a feed's) is the reference.
			for _, s := range series {
				if (keep == nil || keep(s.Grade)) && len(s.Points) > 0 {
					v.Ref = s.Grade
					break
				}
			}
		}
	}
	ref := seriesFor(series, v.Ref)
	v.PriceCents, _ = FMVAt(ref, asOf)
	pricePct := func() {
		before, ok1 := FMVAt(ref, from-1)
		if ok1 && before > 0 && v.PriceCents > 0 {
			v.PricePct = math.Round(10000*float64(v.PriceCents-before)/float64(before)) / 100
		}
	}
	n, cents := SumWindow(cum, keep, from, asOf)
	if n == 0 {
		// No sale in the window: a series priced inside it without sales
		// (a marketplace's daily price feed) still moves price_pct.
		if hasPointIn(ref, from, asOf) {
			pricePct()
		}
		return v
	}
	v.SalesCount, v.VolumeUSD = float64(n), float64(cents)/100
	base := estimate.Default.VolumeBaseline(days)
	if _, prev := SumWindow(cum, keep, from-Day(base), from-1); prev > 0 {
		scaled := float64(prev) * float64(days) / float64(base)
		v.VolumePct = math.Round(10000*(float64(cents)-scaled)/scaled) / 100
	}
	pricePct()
	v.Composite = estimate.Default.CompositeOf(v.PricePct, v.VolumePct, v.Sample)
	return v
}

// TrendingValues is TrendingStats under the default liquidity rule: every
// metric of a row that fails estimate.Default.Liquid is NaN.
func TrendingValues(cum []CumSeries, series []PriceSeries, asOf Day, days int, keep func(Grade) bool) TrendValues {
	v := TrendingStats(cum, series, asOf, days, keep)
	if !estimate.Default.Liquid(v.Sample, v.PriceCents) {
		nan := math.NaN()
		v.SalesCount, v.VolumeUSD, v.VolumePct, v.PricePct, v.Composite = nan, nan, nan, nan, nan
	}
	return v
}

// hasPointIn reports whether s has a point on a day of [from, to].
func hasPointIn(s *PriceSeries, from, to Day) bool {
	if s == nil {
		return false
	}
	for i := len(s.Points) - 1; i >= 0; i-- {
		if d := s.Points[i].Day; d <= to {
			return d >= from
		}
	}
	return false
}

func seriesFor(series []PriceSeries, g Grade) *PriceSeries {
	for i := range series {
		if series[i].Grade == g {
			return &series[i]
		}
	}
	return nil
}

// FMVAt returns the fmv in force on day d: the last point on or before d.
func FMVAt(s *PriceSeries, d Day) (int64, bool) {
	p, ok := PointAt(s, d)
	return p.FMVCents, ok
}

// PointAt returns the point in force on day d: the last point on or before d.
func PointAt(s *PriceSeries, d Day) (PricePoint, bool) {
	if s == nil {
		return PricePoint{}, false
	}
	lo, hi := 0, len(s.Points)
	for lo < hi {
		mid := (lo + hi) / 2
		if s.Points[mid].Day <= d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return PricePoint{}, false
	}
	return s.Points[lo-1], true
}

// Metric returns the value of a base metric (volume_pct, price_pct,
// composite, volume_usd, sales_count; not the slab_ forms or new_listings);
// ok is false for another name.
func (v TrendValues) Metric(name string) (value float64, ok bool) {
	switch name {
	case "volume_pct":
		return v.VolumePct, true
	case "price_pct":
		return v.PricePct, true
	case "composite":
		return v.Composite, true
	case "volume_usd":
		return v.VolumeUSD, true
	case "sales_count":
		return v.SalesCount, true
	}
	return math.NaN(), false
}
