package snapshots

import (
	"math"
	"slices"
)

// Money and the small numeric rules every payload shares: amounts are integer
// cents inside and *_usd numbers with two decimals outside (see the package
// doc), 0 cents is "unknown" where a price may be missing.

// USD converts cents to dollars.
func USD(cents int64) float64 { return float64(cents) / 100 }

// USDOrNil is nil for 0 cents (unknown) and the dollars otherwise: the
// nullable *_usd fields.
func USDOrNil(cents int64) *float64 {
	if cents == 0 {
		return nil
	}
	v := USD(cents)
	return &v
}

// Round2 rounds f to two decimals (percentages, ratios, scores).
func Round2(f float64) float64 { return math.Round(f*100) / 100 }

// Median sorts v in place and returns its median: the middle amount, or the
// mean of the two middle ones rounded toward zero; 0 for none. Callers that
// keep v's order pass a copy.
func Median(v []int64) int64 {
	n := len(v)
	if n == 0 {
		return 0
	}
	slices.Sort(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// SeriesOf returns the price series of grade g among a card's series, or nil
// when the grade has none.
func SeriesOf(series []PriceSeries, g Grade) *PriceSeries {
	for i := range series {
		if series[i].Grade == g {
			return &series[i]
		}
	}
	return nil
}
