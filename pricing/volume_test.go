package pricing_test

import (
	"math"
	"testing"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

func TestPeriods(t *testing.T) {
	mon := mustDay("2026-11-16") // a Monday
	days := []snapshots.DailyStat{
		{Day: mon - 1, Sales: 9, VolumeCents: 900}, // before the range
		{Day: mon, Sales: 1, VolumeCents: 101},
		{Day: mon + 6, Sales: 2, VolumeCents: 202},
		{Day: mon + 7, Sales: 3, VolumeCents: 303},
		{Day: mon + 20, Sales: 4, VolumeCents: 404}, // after the range
	}
	for _, tc := range []struct {
		granularity string
		from, to    snapshots.Day
		want        string
	}{
		{pricing.GranularityDaily, mon, mon + 2, `[{"period_start":"2026-11-16","sales":1,"volume_usd":1.01},{"period_start":"2026-11-17","sales":0,"volume_usd":0},{"period_start":"2026-11-18","sales":0,"volume_usd":0}]`},
		{pricing.GranularityWeekly, mon + 2, mon + 8, `[{"period_start":"2026-11-16","sales":2,"volume_usd":2.02},{"period_start":"2026-11-23","sales":3,"volume_usd":3.03}]`},
		{pricing.GranularityMonthly, mon - 1, mon + 15, `[{"period_start":"2026-11-01","sales":15,"volume_usd":15.06},{"period_start":"2026-12-01","sales":0,"volume_usd":0}]`},
		{pricing.GranularityDaily, mon + 1, mon, `[]`},
	} {
		if got := jsontexttest.MustMarshal(t, pricing.Periods(days, tc.from, tc.to, tc.granularity)); got != tc.want {
			t.Errorf("%s %s to %s:\n got %s\nwant %s", tc.granularity, tc.from, tc.to, got, tc.want)
		}
	}
}

func TestNewMarketVolume(t *testing.T) {
	const days = 90
	for _, l := range []pricing.Liquidity{pricing.DefaultLiquidity(), {}} {
		got, err := pricing.NewMarketVolume(src.Reader, src.AsOf, "pokemon", days, "all", pricing.GranularityWeekly, l)
		if err != nil {
			t.Fatal(err)
		}
		sets, err := src.Reader.Sets("pokemon")
		if err != nil {
			t.Fatal(err)
		}
		var cents int64
		sales := 0
		for _, s := range sets {
			daily, err := src.Reader.SetDaily("pokemon", s.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range daily {
				if d.Day > src.AsOf-days && d.Day <= src.AsOf {
					cents += d.VolumeCents
					sales += d.Sales
				}
			}
		}
		seriesSales, share := 0, 0.0
		for _, p := range got.Series {
			seriesSales += p.Sales
		}
		for i, s := range got.Sets {
			share += s.SharePct
			if i > 0 && s.VolumeUSD > got.Sets[i-1].VolumeUSD {
				t.Fatalf("sets not by volume: %s", jsontexttest.MustMarshal(t, got.Sets))
			}
		}
		if sales == 0 || got.TotalSales != sales || got.TotalVolumeUSD != snapshots.USD(cents) || seriesSales != sales || share > 100.05 {
			t.Fatalf("%+v: %d sales, %d cents; got %d sales, $%v, series %d, shares %v", l, sales, cents, got.TotalSales, got.TotalVolumeUSD, seriesSales, share)
		}
		if l == (pricing.Liquidity{}) && math.Abs(share-100) > 0.05*float64(len(got.Sets)) {
			t.Fatalf("every set with sales ranks without a liquidity rule: shares sum to %v", share)
		}
	}
}
