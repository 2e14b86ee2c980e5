package pricing_test

import (
	"slices"
	"testing"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

func TestSaleFilter_Sales(t *testing.T) {
	sales, err := src.Reader.Sales("pokemon", "en:base1-4")
	if err != nil || len(sales) == 0 {
		t.Fatalf("sales: %d %v", len(sales), err)
	}
	from := src.AsOf - 60
	slab, _ := snapshots.ParseGradeFilter("slab")
	cases := []pricing.SaleFilter{
		{To: src.AsOf},
		{To: src.AsOf, From: from, FromSet: true},
		{To: src.AsOf, IncludeFiltered: true, IncludeUntrusted: true, IncludePriceFeed: true},
		{To: src.AsOf - 10, From: from, FromSet: true, Grade: slab, Marketplaces: 1 << snapshots.MarketEbay},
	}
	for i, f := range cases {
		var got []*snapshots.Sale
		for s := range f.Sales(sales) {
			got = append(got, s)
		}
		// The reference: every sale through Keep, in order.
		var want []*snapshots.Sale
		for j := range sales {
			s := &sales[j]
			if f.Keep(s) {
				want = append(want, s)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("case %d: %d sales, want %d", i, len(got), len(want))
		}
		for j := range got {
			if got[j] != want[j] {
				t.Errorf("case %d: sale %d differs", i, j)
			}
			s := got[j]
			if s.Day > f.To || (f.FromSet && s.Day < f.From) || (!f.IncludeFiltered && s.Hidden()) || !f.Grade.Match(s.Grade) || !f.Marketplaces.Match(s.Marketplace) {
				t.Errorf("case %d: sale %+v should not pass", i, s)
			}
		}
		if i == 0 && len(got) == 0 {
			t.Error("no verified sale of en:base1-4")
		}
	}
}

func TestPoints(t *testing.T) {
	series, err := src.Reader.PriceSeries("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	ps := snapshots.SeriesOf(series, snapshots.RawNearMint)
	if ps == nil || len(ps.Points) < 2 {
		t.Fatal("no raw near-mint series")
	}
	to := src.AsOf
	from := to - 40
	day := pricing.Points(ps, from, to, true, pricing.IntervalDay)
	week := pricing.Points(ps, from, to, true, pricing.IntervalWeek)
	change := pricing.Points(ps, from, to, true, pricing.IntervalChange)
	if len(day) == 0 || day[len(day)-1].Day != to {
		t.Fatalf("day: %d points", len(day))
	}
	for i, p := range day {
		if i > 0 && p.Day != day[i-1].Day+1 {
			t.Errorf("day points skip from %s to %s", day[i-1].Day, p.Day)
		}
		if want, _ := snapshots.PointAt(ps, p.Day); want != p.Price {
			t.Errorf("%s: %+v, want the point in force %+v", p.Day, p.Price, want)
		}
	}
	for _, p := range week {
		if p.Day.Time().Weekday() != 0 && p.Day != to {
			t.Errorf("week point on %s", p.Day)
		}
	}
	for _, p := range change {
		if p.Price.Day != p.Day || p.Day < from || p.Day > to {
			t.Errorf("change point %+v", p)
		}
	}
	if all := pricing.Points(ps, 0, to, false, pricing.IntervalChange); all[0].Day != ps.Points[0].Day {
		t.Errorf("without from the points start at the first: %s", all[0].Day)
	}
	if pricing.Points(nil, from, to, true, pricing.IntervalDay) != nil {
		t.Error("nil series")
	}
	rows := pricing.PointRows(change, pricing.MethodTVWAP)
	if len(rows) != len(change) || (len(rows) > 0 && rows[0].PriceUSD != snapshots.USD(change[0].Price.TVWAPCents)) {
		t.Errorf("rows %+v", rows)
	}
}

func TestDaily(t *testing.T) {
	sales := []snapshots.Sale{
		{Day: 20, PriceCents: 300}, {Day: 20, PriceCents: 100}, {Day: 20, PriceCents: 250},
		{Day: 18, PriceCents: 1000}, {Day: 18, PriceCents: 2001},
	}
	f := pricing.SaleFilter{To: 30}
	got := pricing.Daily(f.Sales(sales))
	want := []pricing.DayRow{
		{Date: snapshots.Day(18).String(), Sales: 2, VolumeUSD: 30.01, MedianUSD: 15, LowUSD: 10, HighUSD: 20.01},
		{Date: snapshots.Day(20).String(), Sales: 3, VolumeUSD: 6.5, MedianUSD: 2.5, LowUSD: 1, HighUSD: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("day %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if rows := pricing.Daily(f.Sales(nil)); rows == nil || len(rows) != 0 {
		t.Errorf("no sales: %#v, want an empty slice", rows)
	}
}

func TestPageSales(t *testing.T) {
	c := &snapshots.Card{ID: "x"}
	sales := []snapshots.Sale{{ID: 9, Day: 30}, {ID: 8, Day: 30}, {ID: 7, Day: 20, Flags: snapshots.SaleFlagged}, {ID: 6, Day: 20}, {ID: 5, Day: 10}, {ID: 4, Day: 5}}
	f := pricing.SaleFilter{To: 30, From: 6, FromSet: true}
	ids := func(p pricing.SalesPage) (out []string) {
		for _, r := range p.Rows {
			out = append(out, r.SaleID)
		}
		return out
	}
	first := pricing.PageSales(c, sales, f, nil, 2)
	if got, want := ids(first), []string{pricing.SaleID(9), pricing.SaleID(8)}; !slices.Equal(got, want) || first.InRange != 4 || !first.More || first.Last != (pricing.SalePosition{Day: 30, ID: 8}) {
		t.Fatalf("first page: %v %+v, want %v", got, first, want)
	}
	next := pricing.PageSales(c, sales, f, &first.Last, 2)
	if got, want := ids(next), []string{pricing.SaleID(6), pricing.SaleID(5)}; !slices.Equal(got, want) || next.InRange != 4 || next.More {
		t.Fatalf("next page: %v %+v, want %v", got, next, want)
	}
	if p := pricing.PageSales(c, sales, f, &next.Last, 2); p.Rows == nil || len(p.Rows) != 0 || p.More {
		t.Fatalf("past the end: %+v", p)
	}
}
