package snapshots_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// daily builds a cumulative series of one grade from sales per day (day
// offsets from asOf, counted back: 0 is asOf) at cents each.
func daily(g snapshots.Grade, asOf snapshots.Day, cents int64, days ...int) snapshots.CumSeries {
	s := snapshots.CumSeries{Grade: g}
	var n int32
	var v int64
	for i := len(days) - 1; i >= 0; i-- { // oldest first
		n++
		v += cents
		d := asOf - snapshots.Day(days[i])
		if k := len(s.Points); k > 0 && s.Points[k-1].Day == d {
			s.Points[k-1].Count, s.Points[k-1].Cents = n, v
			continue
		}
		s.Points = append(s.Points, snapshots.CumPoint{Day: d, Count: n, Cents: v})
	}
	return s
}

func TestTrendingStats(t *testing.T) {
	const asOf snapshots.Day = 20000
	raw := snapshots.RawNearMint
	series := []snapshots.PriceSeries{{Grade: raw, Points: []snapshots.PricePoint{
		{Day: asOf - 40, FMVCents: 1000}, {Day: asOf, FMVCents: 1200},
	}}}
	t.Run("OneDay", func(t *testing.T) {
		// Today 2 sales; 6 in the 30 days before: one day's volume against
		// the average day of that month (VolumeBaseline), not yesterday.
		cum := []snapshots.CumSeries{daily(raw, asOf, 1000, 0, 0, 2, 5, 9, 14, 20, 29)}
		v := snapshots.TrendingStats(cum, series, asOf, 1, nil)
		base := float64(6*1000) * 1 / 30
		want := math.Round(10000*(2000-base)/base) / 100
		if v.SalesCount != 2 || v.Sample != 8 || v.PriceCents != 1200 || v.VolumePct != want || v.PricePct != 20 {
			t.Errorf("1d stats %+v, want 2 sales, sample 8 (30 days), price 1200, volume_pct %v, price_pct 20 (1000 yesterday)", v, want)
		}
		if got := estimate.Default.CompositeOf(v.PricePct, v.VolumePct, v.Sample); v.Composite != got {
			t.Errorf("composite %v, want %v", v.Composite, got)
		}
		if got := snapshots.TrendingValues(cum, series, asOf, 1, nil); !reflect.DeepEqual(got, v) {
			t.Errorf("a liquid row: TrendingValues %+v, TrendingStats %+v", got, v)
		}
	})
	t.Run("Thin", func(t *testing.T) {
		cum := []snapshots.CumSeries{daily(raw, asOf, 1000, 0, 3, 40)}
		v := snapshots.TrendingStats(cum, series, asOf, 30, nil)
		if v.SalesCount != 2 || v.Sample != 2 || math.IsNaN(v.PricePct) {
			t.Errorf("stats of a thin row %+v: want its values, sample 2", v)
		}
		got := snapshots.TrendingValues(cum, series, asOf, 30, nil)
		for _, m := range []float64{got.SalesCount, got.VolumeUSD, got.VolumePct, got.PricePct, got.Composite} {
			if !math.IsNaN(m) {
				t.Fatalf("TrendingValues of a row with 2 sales = %+v, want every metric NaN (liquidity rule)", got)
			}
		}
	})
	t.Run("Cheap", func(t *testing.T) {
		cheap := []snapshots.PriceSeries{{Grade: raw, Points: []snapshots.PricePoint{{Day: asOf - 40, FMVCents: 99}}}}
		cum := []snapshots.CumSeries{daily(raw, asOf, 99, 0, 1, 2, 3, 4, 5)}
		if got := snapshots.TrendingValues(cum, cheap, asOf, 7, nil); !math.IsNaN(got.SalesCount) {
			t.Errorf("a $0.99 card ranks: %+v", got)
		}
	})
	t.Run("GradedOnly", func(t *testing.T) {
		// Without a raw near-mint series, the grade with the most sales is
		// the reference.
		slab10 := snapshots.GradedGrade(0, 10)
		cum := []snapshots.CumSeries{daily(slab10, asOf, 5000, 0, 1, 2, 3, 4, 5)}
		s := []snapshots.PriceSeries{{Grade: slab10, Points: []snapshots.PricePoint{{Day: asOf - 10, FMVCents: 5000}}}}
		v := snapshots.TrendingValues(cum, s, asOf, 7, nil)
		if v.Ref != slab10 || v.PriceCents != 5000 || v.SalesCount != 6 {
			t.Errorf("graded-only row %+v, want reference slab:10 at 5000 and 6 sales", v)
		}
	})
}

func TestEncodePrintings_RoundTrip(t *testing.T) {
	variants := []string{"holo/unlimited", "holo/shadowless/1st-edition"}
	ps := []snapshots.Printing{
		{Finish: 0, Name: "holo/unlimited", Base: true, SalesAll: 7, Sales30d: 2, Volume30dCents: 90000, Listings: 3, LowAskCents: 44000,
			Estimates: []snapshots.Estimate{{Grade: snapshots.RawNearMint, FMVCents: 45000, TVWAPCents: 44000, MedianCents: 44500,
				SampleSize: 6, LastSaleDay: 20000, Confidence: estimate.ConfidenceHigh, Flags: estimate.FlagSolo}}},
		{Finish: 1, Name: "holo/shadowless/1st-edition", Estimates: []snapshots.Estimate{{Grade: snapshots.GradedGrade(0, 10),
			FMVCents: math.MaxInt64, LastSaleDay: snapshots.NoDay, Flags: estimate.FlagStale | estimate.FlagThin}}},
	}
	b, err := snapshots.EncodePrintings(nil, ps)
	if err != nil {
		t.Fatal(err)
	}
	got, err := snapshots.DecodePrintings(b, variants)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ps, got) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, ps)
	}
	for n := 0; n < len(b); n++ {
		if _, err := snapshots.DecodePrintings(b[:n], variants); err == nil {
			t.Fatalf("DecodePrintings of %d of %d bytes: no error", n, len(b))
		}
	}
	if _, err := snapshots.EncodePrintings(nil, make([]snapshots.Printing, 256)); err == nil {
		t.Error("EncodePrintings of 256 printings: no error")
	}
}

func TestPrintingPayload(t *testing.T) {
	v := snapshots.AppendPrinting(nil, 1, []byte("one"))
	v = snapshots.AppendPrinting(v, 3, nil)
	v = snapshots.AppendPrinting(v, 2, []byte("two"))
	for _, tt := range []struct {
		finish uint8
		want   string
		ok     bool
	}{{1, "one", true}, {2, "two", true}, {3, "", true}, {0, "", false}} {
		got, ok, err := snapshots.PrintingPayload(v, tt.finish)
		if err != nil || ok != tt.ok || string(got) != tt.want {
			t.Errorf("PrintingPayload(%d) = %q, %v, %v; want %q, %v", tt.finish, got, ok, err, tt.want, tt.ok)
		}
	}
	if _, _, err := snapshots.PrintingPayload(v[:len(v)-1], 2); err == nil {
		t.Error("a truncated record: no error")
	}
}

func TestEncodeTrendingRows_RoundTrip(t *testing.T) {
	rows := []snapshots.TrendingRow{
		{Ordinal: 7, Finish: 2, Value: -12.5, SampleSize: 9, PriceCents: 1200, Flags: estimate.FlagThin},
		{Ordinal: math.MaxUint32, Value: math.Inf(1), SampleSize: math.MaxInt32, PriceCents: math.MaxInt64},
		{Ordinal: 3, Finish: 1, Value: 4.36, PriceCents: 36525, Flags: estimate.FlagStale | estimate.FlagSolo, Feed: true}, // a fresh source's row
	}
	b := snapshots.EncodeTrendingRows(nil, rows)
	got, err := snapshots.DecodeTrendingRows(nil, b, nil)
	if err != nil || !reflect.DeepEqual(rows, got) {
		t.Errorf("round trip: %+v, %v", got, err)
	}
	got, err = snapshots.DecodeTrendingRows(nil, b, func(r *snapshots.TrendingRow) bool { return r.Finish == 2 })
	if err != nil || len(got) != 1 || got[0].Ordinal != 7 {
		t.Errorf("filtered: %+v, %v", got, err)
	}
	if _, err := snapshots.DecodeTrendingRows(nil, b[:len(b)-1], nil); err == nil {
		t.Error("a truncated ranking: no error")
	}
}
