package pricing_test

import (
	"math"
	"testing"

	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

func TestSetValue(t *testing.T) {
	sets, err := src.Reader.Sets("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	valued := 0
	for _, s := range sets {
		agg, err := src.Reader.SetAggregates("pokemon", s.ID)
		if err != nil {
			t.Fatal(err)
		}
		b := pricing.NewSetBreakdown(s, agg, src.AsOf)
		d := pricing.NewSetPriceDistribution(s, agg, src.AsOf)
		share, cards, priced := 0.0, 0, 0
		for _, r := range b.Rarities {
			share += r.ValueSharePct
			cards += r.Cards
		}
		pct := 0.0
		for _, x := range d.Buckets {
			priced += x.Cards
			pct += x.Pct
		}
		if cards != b.Totals.Cards || priced != d.PricedCards || d.PricedCards+d.UnpricedCards != d.Cards || b.Totals.Cards != d.Cards {
			t.Fatalf("%s: %d cards by rarity, %d in buckets: %s %s", s.ID, cards, priced, jsontexttest.MustMarshal(t, b), jsontexttest.MustMarshal(t, d))
		}
		if b.Totals.ValueUSD > 0 {
			valued++
			if math.Abs(share-100) > 0.01*float64(len(b.Rarities)) || math.Abs(pct-100) > 0.01*float64(len(d.Buckets)) {
				t.Fatalf("%s: value shares sum to %v, bucket shares to %v", s.ID, share, pct)
			}
		}
	}
	if valued == 0 {
		t.Fatal("no set with a value")
	}
}

func TestNewSetTrendingCards(t *testing.T) {
	s, err := src.Reader.Set("pokemon", "en:base1")
	if err != nil {
		t.Fatal(err)
	}
	cards, err := src.Reader.Cards("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	q := pricing.TrendingRequest{Game: "pokemon", Metric: "composite", Window: "30d", Liquidity: pricing.Liquidity{MinSales: 1}, Asc: true, Limit: 2}
	lb, err := pricing.Trending(src.Reader, q.Game, q.Metric, q.Window, "all", q.Liquidity)
	if err != nil {
		t.Fatal(err)
	}
	rows := catalog.SetRows(lb.Rows, cards, s.ID)
	got, err := pricing.NewSetTrendingCards(src.Reader, src.AsOf, s, rows, q)
	if err != nil {
		t.Fatal(err)
	}
	items, err := pricing.Ranked(src.Reader, q.Game, q.Metric, pricing.Leaderboard{Rows: rows}, true, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 || got.Total != len(rows) || got.Direction != "asc" || got.MinSales != 1 || jsontexttest.MustMarshal(t, got.Items) != jsontexttest.MustMarshal(t, items) {
		t.Fatalf("%d rows: %s", len(rows), jsontexttest.MustMarshal(t, got))
	}
}

func TestNewSetVolumeHistory(t *testing.T) {
	s, err := src.Reader.Set("pokemon", "en:base1")
	if err != nil {
		t.Fatal(err)
	}
	daily, err := src.Reader.SetDaily("pokemon", s.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := pricing.NewSetVolumeHistory(s, daily, src.AsOf, 28, pricing.GranularityWeekly)
	want := pricing.Periods(daily, src.AsOf-27, src.AsOf, pricing.GranularityWeekly)
	if got.From != (src.AsOf-27).String() || got.To != src.AsOf.String() || got.Days != 28 || jsontexttest.MustMarshal(t, got.Items) != jsontexttest.MustMarshal(t, want) || len(want) < 4 {
		t.Fatalf("%s", jsontexttest.MustMarshal(t, got))
	}
}
