package pricing_test

import (
	"testing"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

func TestNewMarketView(t *testing.T) {
	printings := []snapshots.Printing{
		{Finish: 0, Name: "holo", Base: true, Estimates: []snapshots.Estimate{{Grade: snapshots.RawNearMint, FMVCents: 1200, Confidence: estimate.ConfidenceHigh, LastSaleDay: 10}}},
		{Finish: 1, Name: "reverse", Estimates: []snapshots.Estimate{{Grade: snapshots.RawNearMint, FMVCents: 900, Confidence: estimate.ConfidenceNone, LastSaleDay: 3}}},
		{Finish: 2, Name: "1st", Estimates: []snapshots.Estimate{{Grade: slab10, FMVCents: 9000, Confidence: estimate.ConfidenceHigh}}},
	}
	v := pricing.NewMarketView(printings, 0, 10)
	if v.Finish != 0 || v.PriceDay != 10 || v.Priced.Cents != 1200 || v.Priced.Note != "" || v.Priced.Printing != &printings[0] || len(v.Printings) != 3 {
		t.Fatalf("holo: %+v", v)
	}
	if p := v.Printings[1]; p.Cents != 0 || p.Note == "" || p.Estimate.FMVCents != 900 {
		t.Fatalf("confidence none shows no value: %+v", p)
	}
	if p := v.Printings[2]; p.Cents != 0 || p.Note == "" || p.Estimate.Grade != snapshots.RawNearMint || p.Estimate.LastSaleDay != snapshots.NoDay {
		t.Fatalf("a printing without a raw near-mint series: %+v", p)
	}
	if v := pricing.NewMarketView(printings, 1, 3); v.Priced.Printing != &printings[1] || v.Priced.Cents != 0 {
		t.Fatalf("reverse: %+v", v.Priced)
	}
	if v := pricing.NewMarketView(nil, 4, 0); v.Priced.Printing.Finish != 4 || v.Priced.Cents != 0 || len(v.Printings) != 0 {
		t.Fatalf("no printings: %+v", v)
	}
}

func TestReadMarketView(t *testing.T) {
	others := 0 // printings read off their series
	for _, id := range []string{"en:base1-4", "en:base1-2"} {
		c := mustCard(t, id)
		base := snapshots.BasePrinting(c)
		for f := range c.Printings() {
			v, err := pricing.ReadMarketView(src.Reader, c, f, src.AsOf)
			if err != nil {
				t.Fatal(err)
			}
			want := c.PriceDay
			if f != base {
				series, err := src.Reader.PrintingSeries(c.Game, c.ID, f)
				if err != nil {
					t.Fatal(err)
				}
				p, _ := snapshots.PointAt(snapshots.SeriesOf(series, snapshots.RawNearMint), src.AsOf)
				want = p.Day
				others++
			}
			e, _, err := pricing.PrintingEstimate(src.Reader, c, f, snapshots.RawNearMint)
			if err != nil {
				t.Fatal(err)
			}
			if v.Finish != f || v.PriceDay != want || v.Priced.Estimate != e || len(v.Printings) != c.Printings() {
				t.Fatalf("%s printing %d: %+v", id, f, v)
			}
		}
	}
	if others == 0 {
		t.Fatal("no card with another printing than its base")
	}
}
