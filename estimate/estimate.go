package estimate

import (
	"math"
	"slices"
)

// Sale is one verified sale of a series.
type Sale struct {
	Day    int32 // days since 1970-01-01 UTC
	Cents  int64 // > 0
	Source uint8 // where it sold (a marketplace code, < 32): distinct sources count toward confidence
}

// Point is a series' estimate at the end of one day with verified sales.
type Point struct {
	Day    int32
	FMV    int64 // cents
	TVWAP  int64 // cents
	Median int64 // cents
	// Recent is the accepted sales of the trailing TrailDays (behind TVWAP
	// and Median).
	Recent int32
	// Sample is the accepted sales of the trailing SampleDays: the point's
	// sample_size.
	Sample     int32
	Confidence Confidence
	// Flags: FlagThin when the series is thin at the point (Sample below
	// Thin.Sales: Judge), FlagOutlierExcluded when a sale of its day was set
	// aside.
	Flags Flags
}

// Summary is a series' estimate as of one day (a snapshot's as_of).
type Summary struct {
	FMV, TVWAP, Median int64 // of the last point; 0 when none
	SampleSize         int32 // accepted sales of the trailing SampleDays
	LastSale           int32 // day of the last accepted sale; 0 when none
	Sources            uint8 // distinct marketplaces of the sample
	Confidence         Confidence
	// Flags: thin, outlier_excluded and stale as of the day (solo needs the
	// series' siblings: see SoloOf).
	Flags Flags
}

// Series is the estimate of one series.
type Series struct {
	Points []Point
	// Outlier reports, per input sale, whether it was set aside (never
	// confirmed by a second sale on its side).
	Outlier []bool
	Summary Summary
}

// accepted is a sale that counts in the estimate, on the day it was
// accepted (its own day, or the day a second sale confirmed it).
type accepted struct {
	day    int32
	cents  int64
	logP   float64
	source uint8
}

// window counts the accepted sales of a trailing window as the days advance.
type window struct {
	days    int32
	start   int // first accepted sale in the window
	n       int
	sources [32]int32
	nSrc    int
}

func (w *window) advance(acc []accepted, day int32) {
	for w.start < w.n && acc[w.start].day <= day-w.days {
		s := acc[w.start].source & 31
		if w.sources[s]--; w.sources[s] == 0 {
			w.nSrc--
		}
		w.start++
	}
}

func (w *window) add(acc []accepted, upto int) {
	for ; w.n < upto; w.n++ {
		s := acc[w.n].source & 31
		if w.sources[s]++; w.sources[s] == 1 {
			w.nSrc++
		}
	}
}

func (w *window) count() int { return w.n - w.start }

// Estimate prices one series from its verified sales, oldest first (days
// non-decreasing), up to and including asOf (later sales are ignored), and
// summarizes it as of asOf. See the package doc for the rules.
func (m *Methodology) Estimate(sales []Sale, asOf int32) Series {
	out := Series{Outlier: make([]bool, len(sales))}
	o := m.Outlier
	maxStep := math.Log1p(m.FMV.MaxMovePerSalePct / 100)
	keep := 1 - m.FMV.SaleWeight

	var acc []accepted
	type pending struct {
		i    int
		day  int32
		sign int
	}
	var pend []pending
	trail := window{days: int32(m.TrailDays)}
	sample := window{days: int32(m.SampleDays)}
	var fmvLog float64
	var prev Point
	hasFMV := false
	lastAcc := int32(math.MinInt32)
	var ref, dev []float64 // scratch
	var dayLogs []float64

	for i := 0; i < len(sales) && sales[i].Day <= asOf; {
		day := sales[i].Day
		j := i
		for j < len(sales) && sales[j].Day == day {
			j++
		}
		// The recent level: the last WindowSales accepted sales of the
		// WindowDays days before today.
		ref = ref[:0]
		for k := len(acc) - 1; k >= 0 && len(ref) < o.WindowSales; k-- {
			if acc[k].day <= day-int32(o.WindowDays) {
				break
			}
			ref = append(ref, acc[k].logP)
		}
		judge := len(ref) >= o.MinHistory
		var level, spread float64
		if judge {
			level = medianOf(ref)
			dev = dev[:0]
			for _, x := range ref {
				dev = append(dev, math.Abs(x-level))
			}
			spread = math.Max(o.MinSpread, 1.4826*medianOf(dev))
		}
		// Pending candidates too old to be confirmed stay outliers.
		pend = slices.DeleteFunc(pend, func(p pending) bool { return p.day <= day-int32(o.ConfirmDays) })
		first := len(acc)
		excluded := false
		own := 0 // today's sales accepted today (not earlier candidates confirmed today)
		for k := i; k < j; k++ {
			lp := math.Log(float64(sales[k].Cents))
			d := lp - level
			if !judge || math.Abs(d) <= o.MADs*spread {
				acc = append(acc, accepted{day, sales[k].Cents, lp, sales[k].Source})
				continue
			}
			sign := 1
			if d < 0 {
				sign = -1
			}
			pend = append(pend, pending{k, day, sign})
			same := 0
			for _, p := range pend {
				if p.sign == sign {
					same++
				}
			}
			if same < o.ConfirmSales {
				out.Outlier[k] = true
				continue
			}
			// Confirmed: every pending candidate of this side is accepted today.
			pend = slices.DeleteFunc(pend, func(p pending) bool {
				if p.sign != sign {
					return false
				}
				out.Outlier[p.i] = false
				acc = append(acc, accepted{day, sales[p.i].Cents, math.Log(float64(sales[p.i].Cents)), sales[p.i].Source})
				return true
			})
		}
		for k := i; k < j; k++ {
			if out.Outlier[k] {
				excluded = true
			} else {
				own++
			}
		}
		for _, w := range []*window{&trail, &sample} {
			w.add(acc, len(acc))
			w.advance(acc, day)
		}
		p := prev
		p.Day = day
		if n := len(acc) - first; n > 0 {
			lastAcc = day
			dayLogs = dayLogs[:0]
			for _, a := range acc[first:] {
				dayLogs = append(dayLogs, a.logP)
			}
			med := medianOf(dayLogs)
			if !hasFMV {
				fmvLog, hasFMV = med, true
			} else {
				// Weight and bound count today's own sales: a candidate of
				// an earlier day confirmed today adds to the median, not to
				// how far the day may move fmv.
				step := (1 - math.Pow(keep, float64(own))) * (med - fmvLog)
				bound := float64(own) * maxStep
				fmvLog += math.Max(-bound, math.Min(bound, step))
			}
			p.FMV = int64(math.Round(math.Exp(fmvLog)))
			var wsum, vsum float64
			cents := make([]int64, 0, trail.count())
			for _, a := range acc[trail.start:trail.n] {
				w := 1 - float64(day-a.day)/float64(m.TrailDays)
				wsum += w
				vsum += w * float64(a.cents)
				cents = append(cents, a.cents)
			}
			p.TVWAP = int64(math.Round(vsum / wsum))
			p.Median = medianCents(cents)
		}
		if !hasFMV {
			// Only possible when every sale so far was set aside, which
			// needs history: no point before the first accepted sale.
			i = j
			continue
		}
		p.Recent = int32(trail.count())
		p.Sample = int32(sample.count())
		conf, judged := m.Judge(sample.count(), sample.nSrc, int(day-lastAcc))
		p.Confidence, p.Flags = conf, judged&FlagThin
		if excluded {
			p.Flags |= FlagOutlierExcluded
		}
		out.Points = append(out.Points, p)
		prev = p
		i = j
	}
	out.Summary = m.summarize(sales, out, acc, lastAcc, asOf)
	return out
}

// summarize is the series as of asOf.
func (m *Methodology) summarize(sales []Sale, s Series, acc []accepted, lastAcc int32, asOf int32) Summary {
	var sum Summary
	if len(s.Points) > 0 {
		p := s.Points[len(s.Points)-1]
		sum.FMV, sum.TVWAP, sum.Median = p.FMV, p.TVWAP, p.Median
	}
	sample := window{days: int32(m.SampleDays)}
	sample.add(acc, len(acc))
	sample.advance(acc, asOf)
	sum.SampleSize = int32(sample.count())
	sum.Sources = uint8(sample.nSrc)
	age := -1
	if lastAcc != math.MinInt32 {
		sum.LastSale = lastAcc
		age = int(asOf - lastAcc)
	}
	sum.Confidence, sum.Flags = m.Judge(sample.count(), sample.nSrc, age)
	for k := len(sales) - 1; k >= 0; k-- {
		if sales[k].Day > asOf {
			continue
		}
		if sales[k].Day <= asOf-int32(m.OutlierDays) {
			break
		}
		if s.Outlier[k] {
			sum.Flags |= FlagOutlierExcluded
			break
		}
	}
	return sum
}

// MovePct is the percent change of a series' fmv over the days days ending
// at asOf (NaN when the series has no fmv at either end), as SoloOf takes it.
func MovePct(points []Point, asOf int32, days int) float64 {
	before, ok1 := FMVAt(points, asOf-int32(days))
	now, ok2 := FMVAt(points, asOf)
	if !ok1 || !ok2 || before <= 0 {
		return math.NaN()
	}
	return 100 * (float64(now) - float64(before)) / float64(before)
}

// FMVAt returns the fmv in force on day d: the last point on or before d.
func FMVAt(points []Point, d int32) (int64, bool) {
	i, _ := slices.BinarySearchFunc(points, d+1, func(p Point, d int32) int { return int(p.Day) - int(d) })
	if i == 0 {
		return 0, false
	}
	return points[i-1].FMV, true
}

// medianOf returns the median of x, reordering it.
func medianOf(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

func medianCents(x []int64) int64 {
	slices.Sort(x)
	n := len(x)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}
