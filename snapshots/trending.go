package snapshots

import "math"

// TrendValues are one card's trending metrics over one window. NaN means the
// card does not rank on that metric (not enough activity to say).
type TrendValues struct {
	SalesCount float64 // verified sales in the window
	VolumeUSD  float64 // their volume in dollars
	VolumePct  float64 // volume change against the previous window of the same length, in percent
	PricePct   float64 // fmv change over the window, in percent
	Composite  float64 // 0.6 × price_pct + 0.4 × volume_pct, each clamped to [-100, 300]
}

// Eligibility thresholds of the trending metrics.
const (
	// TrendMinSalesPct is the least number of sales in the window for the
	// percentage metrics and the composite.
	TrendMinSalesPct = 2
	// TrendMinSalesComposite is the least number of sales for the composite.
	TrendMinSalesComposite = 3
)

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

// TrendingValues computes a card's trending metrics over the days days ending
// at asOf, over the grades that pass keep (nil: every grade; the price change
// then follows raw:near_mint, otherwise the kept grade with the most sales).
func TrendingValues(cum []CumSeries, series []PriceSeries, asOf Day, days int, keep func(Grade) bool) TrendValues {
	nan := math.NaN()
	v := TrendValues{SalesCount: nan, VolumeUSD: nan, VolumePct: nan, PricePct: nan, Composite: nan}
	from := asOf - Day(days) + 1
	n, cents := SumWindow(cum, keep, from, asOf)
	if n == 0 {
		return v
	}
	v.SalesCount, v.VolumeUSD = float64(n), float64(cents)/100
	_, prev := SumWindow(cum, keep, from-Day(days), from-1)
	if n >= TrendMinSalesPct && prev > 0 {
		v.VolumePct = math.Round(10000*float64(cents-prev)/float64(prev)) / 100
	}
	ref := RawNearMint
	if keep != nil {
		best := int32(-1)
		for _, s := range cum {
			if keep(s.Grade) && len(s.Points) > 0 && s.Points[len(s.Points)-1].Count > best {
				best, ref = s.Points[len(s.Points)-1].Count, s.Grade
			}
		}
	}
	for i := range series {
		if series[i].Grade != ref {
			continue
		}
		before, ok1 := FMVAt(&series[i], from-1)
		now, ok2 := FMVAt(&series[i], asOf)
		if ok1 && ok2 && before > 0 && n >= TrendMinSalesPct {
			v.PricePct = math.Round(10000*float64(now-before)/float64(before)) / 100
		}
	}
	if n >= TrendMinSalesComposite && !math.IsNaN(v.PricePct) && !math.IsNaN(v.VolumePct) {
		v.Composite = math.Round(100*(0.6*clamp(v.PricePct, -100, 300)+0.4*clamp(v.VolumePct, -100, 300))) / 100
	}
	return v
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

func clamp(f, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, f)) }

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
