package pricing_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// fromFiles is a card's provenance in a snapshot built from sources:
// TCGplayer made the holo printing's raw series (day 20 and 21),
// Cardmarket has the holo's trend (EUR) and PriceCharting a PSA 10 price;
// the reverse's raw series is observed.
var fromFiles = pricing.Provenance{Market: snapshots.MarketSources,
	Manifest: &snapshots.Manifest{Sources: []snapshots.MarketSourceStatus{{Name: "tcgplayer"}, {Name: "cardmarket", Stale: true}}},
	Sources: &snapshots.CardSources{
		Quotes: []snapshots.Quote{
			{Source: "tcgplayer", Finish: 0, Grade: snapshots.RawNearMint, Field: "market", Day: 21, Cents: 1050, Amount: 1050, Currency: "USD", Rate: 1, Product: "42382", Match: "id"},
			{Source: "tcgplayer", Finish: 0, Grade: snapshots.RawNearMint, Field: "low", Day: 21, Cents: 900, Amount: 900, Currency: "USD", Rate: 1, Product: "42382", Match: "id"},
			{Source: "pricecharting", Finish: 0, Grade: snapshots.GradedGrade(0, 10), Field: "manual-only-price", Day: 21, Cents: 50000, Amount: 50000, Currency: "USD", Rate: 1},
		},
		History: []snapshots.SourceSeries{
			{Source: "cardmarket", Field: "trend", Finish: 0, Grade: snapshots.RawNearMint, Currency: "EUR", Points: []snapshots.SourcePoint{
				{Day: 15, Cents: 1040, Amount: 1000, RateDay: 15}, {Day: 19, Cents: 1050, Amount: 1000, RateDay: 18}}},
		},
		Series: []snapshots.SeriesSource{
			{Finish: 0, Grade: snapshots.RawNearMint, Source: "tcgplayer", Field: "market"},
			{Finish: 0, Grade: snapshots.GradedGrade(0, 10), Source: "pricecharting", Field: "manual-only-price"},
			{Finish: 1, Grade: snapshots.RawNearMint, Source: "observed"},
		},
	}}

func TestProvenance_Origins(t *testing.T) {
	synthetic := pricing.Provenance{Market: snapshots.MarketSynthetic}
	feed := pricing.Provenance{Market: snapshots.MarketFeed}
	filled := pricing.Provenance{Market: snapshots.MarketSources, Sources: &snapshots.CardSources{Synthetic: true}}
	tcg := pricing.Origin{Source: "tcgplayer", Field: "market"}
	obs, syn := pricing.Origin{Source: "observed"}, pricing.Origin{Source: "synthetic", Synthetic: true}
	for _, tt := range []struct {
		name string
		got  pricing.Origin
		want pricing.Origin
	}{
		{"feed series", fromFiles.SeriesOrigin(0, snapshots.RawNearMint), tcg},
		{"observed series", fromFiles.SeriesOrigin(1, snapshots.RawNearMint), obs},
		{"no series recorded", fromFiles.SeriesOrigin(2, snapshots.RawNearMint), obs},
		{"synthetic default", synthetic.SeriesOrigin(0, snapshots.RawNearMint), syn},
		{"own feeds", feed.SeriesOrigin(0, snapshots.RawNearMint), obs},
		{"synthetic fill", filled.SeriesOrigin(0, snapshots.RawNearMint), syn},
		{"slab row", fromFiles.RowOrigin(0, true), pricing.Origin{Source: "pricecharting", Field: "manual-only-price"}},
		{"raw row", fromFiles.RowOrigin(0, false), tcg},
		{"slab row without a graded series", fromFiles.RowOrigin(1, true), obs},
		{"feed row", fromFiles.SaleOrigin(&snapshots.Sale{Flags: snapshots.SalePriceFeed}), tcg},
		{"filled sale", fromFiles.SaleOrigin(&snapshots.Sale{Flags: snapshots.SaleSynthetic}), syn},
		{"sold listing", fromFiles.SaleOrigin(&snapshots.Sale{}), obs},
		{"synthetic default's feed row", synthetic.SaleOrigin(&snapshots.Sale{Flags: snapshots.SalePriceFeed}), syn},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, tt.got, tt.want)
		}
	}
	if !fromFiles.SourceStale("cardmarket") || fromFiles.SourceStale("tcgplayer") || synthetic.SourceStale("cardmarket") {
		t.Error("stale sources are the manifest's")
	}
}

func TestFeedPrice(t *testing.T) {
	// The newest day's headline with the row's other fields.
	sp := pricing.FeedPrice(fromFiles, "tcgplayer", 0, snapshots.RawNearMint, 21)
	if sp.Cents != 1050 || sp.Day != 21 || sp.Quote.Field != "market" || len(sp.Fields) != 2 || sp.Note != "" || sp.Origin.Source != "tcgplayer" {
		t.Errorf("tcgplayer: %+v", sp)
	}
	// No quote of the newest day: the history's last day on or before
	// as_of, stale (the source is).
	sp = pricing.FeedPrice(fromFiles, "cardmarket", 0, snapshots.RawNearMint, 21)
	want := snapshots.Quote{Source: "cardmarket", Finish: 0, Grade: snapshots.RawNearMint, Field: "trend", Day: 19, Cents: 1050, Amount: 1000,
		Currency: "EUR", RateDay: 18, Stale: true}
	if diff := cmp.Diff(&want, sp.Quote); diff != "" || sp.Cents != 1050 || !sp.Stale {
		t.Errorf("cardmarket from history (-want +got):\n%s", diff)
	}
	if sp := pricing.FeedPrice(fromFiles, "cardmarket", 0, snapshots.RawNearMint, 16); sp.Cents != 1040 || sp.Day != 15 {
		t.Errorf("as of day 16: %+v", sp)
	}
	// Any field of PriceCharting's grade is its headline.
	if sp := pricing.FeedPrice(fromFiles, "pricecharting", 0, snapshots.GradedGrade(0, 10), 21); sp.Cents != 50000 || sp.Origin.Field != "manual-only-price" {
		t.Errorf("pricecharting: %+v", sp)
	}
	// None, with a note saying why.
	for _, p := range []pricing.Provenance{fromFiles, {Market: snapshots.MarketSynthetic}} {
		if sp := pricing.FeedPrice(p, "tcgplayer", 1, snapshots.RawNearMint, 21); sp.Cents != 0 || sp.Quote != nil || sp.Note == "" {
			t.Errorf("no number: %+v", sp)
		}
	}
}

func TestLiquidity_KeepRow(t *testing.T) {
	def := pricing.DefaultLiquidity()
	strict := pricing.Liquidity{MinSales: estimate.Default.Liquidity.MinSales + 1, MinPriceCents: def.MinPriceCents}
	for _, tt := range []struct {
		row  snapshots.TrendingRow
		l    pricing.Liquidity
		want bool
	}{
		{snapshots.TrendingRow{SampleSize: 5, PriceCents: 100}, def, true},
		{snapshots.TrendingRow{SampleSize: 0, PriceCents: 36525}, def, false},
		{snapshots.TrendingRow{SampleSize: 0, PriceCents: 36525, Feed: true}, def, true},
		{snapshots.TrendingRow{SampleSize: 0, PriceCents: 99, Feed: true}, def, false},
		{snapshots.TrendingRow{SampleSize: 0, PriceCents: 36525, Feed: true}, strict, false},
		{snapshots.TrendingRow{SampleSize: 6, PriceCents: 36525, Feed: true}, strict, true},
	} {
		if got := tt.l.KeepRow(&tt.row); got != tt.want {
			t.Errorf("KeepRow(%+v) under %+v = %v, want %v", tt.row, tt.l, got, tt.want)
		}
	}
}
