package pricing_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

// mustCard reads a card of the tiny snapshot.
func mustCard(tb testing.TB, id string) *snapshots.Card {
	tb.Helper()
	c, err := src.Reader.Card("pokemon", id)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestNewPartnerHistory(t *testing.T) {
	c := &snapshots.Card{ID: "x", PartnerProductID: 42, Variants: []string{"holo", "reverse"}}
	feed, flagged := uint8(snapshots.SalePriceFeed), uint8(snapshots.SaleFlagged)
	sales := []snapshots.Sale{ // newest first
		{Day: 31, Marketplace: snapshots.MarketPartner, PriceCents: 999}, // after as_of
		{Day: 30, Marketplace: snapshots.MarketPartner, Flags: feed, PriceCents: 777, Finish: 1},
		{Day: 30, Marketplace: snapshots.MarketPartner, Flags: feed, PriceCents: 500},
		{Day: 30, Marketplace: snapshots.MarketPartner, PriceCents: 450},
		{Day: 30, Marketplace: snapshots.MarketPartner, PriceCents: 550},
		{Day: 30, Marketplace: snapshots.MarketEbay, PriceCents: 10000},
		{Day: 20, Marketplace: snapshots.MarketPartner, Flags: flagged, PriceCents: 1},
		{Day: 10, Marketplace: snapshots.MarketPartner, Flags: feed, PriceCents: 400, Finish: 1}, // the only row that day
	}
	synthetic := pricing.Provenance{Market: snapshots.MarketSynthetic}
	got := pricing.NewPartnerHistory(c, sales, synthetic, 30, 0, false, 365)
	want := []pricing.PartnerDay{{Date: snapshots.Day(10).String(), MarketPriceUSD: snapshots.USDOrNil(400)},
		{Date: snapshots.Day(20).String()}, {Date: snapshots.Day(30).String(), MarketPriceUSD: snapshots.USDOrNil(500), Sales: 2, VolumeUSD: 10}}
	if jsontexttest.MustMarshal(t, got.Items) != jsontexttest.MustMarshal(t, want) || got.TotalDays != 3 || got.Truncated || *got.PartnerProductID != 42 || got.WindowStart != nil {
		t.Fatalf("all days: %s", jsontexttest.MustMarshal(t, got))
	}
	if got.Source != "synthetic" || !got.Synthetic || len(got.Sources) != 0 || *got.Finish != "holo" {
		t.Errorf("synthetic market: source %s synthetic %v sources %v finish %v", got.Source, got.Synthetic, got.Sources, *got.Finish)
	}
	got = pricing.NewPartnerHistory(c, sales, synthetic, 30, 15, true, 1)
	if len(got.Items) != 1 || got.Items[0].Date != want[2].Date || got.TotalDays != 2 || !got.Truncated || *got.WindowStart != snapshots.Day(15).String() {
		t.Fatalf("from day 15, one day: %s", jsontexttest.MustMarshal(t, got))
	}

	// From real sources: every source's days of the base printing, in its
	// currency and in USD, within the window and limit.
	files := pricing.Provenance{Market: snapshots.MarketSources,
		Manifest: &snapshots.Manifest{Sources: []snapshots.MarketSourceStatus{{Name: "cardmarket", Stale: true}, {Name: "tcgplayer"}}},
		Sources: &snapshots.CardSources{History: []snapshots.SourceSeries{
			{Source: "tcgplayer", Field: "market", Finish: 0, Grade: snapshots.RawNearMint, Currency: "USD", Points: []snapshots.SourcePoint{
				{Day: 10, Cents: 400, Amount: 400}, {Day: 30, Cents: 500, Amount: 500}}},
			{Source: "cardmarket", Field: "trend", Finish: 0, Grade: snapshots.RawNearMint, Currency: "EUR", Points: []snapshots.SourcePoint{
				{Day: 10, Cents: 416, Amount: 400, RateDay: 9}, {Day: 29, Cents: 525, Amount: 500, RateDay: 29}, {Day: 31, Cents: 1, Amount: 1, RateDay: 31}}},
			{Source: "tcgplayer", Field: "market", Finish: 1, Grade: snapshots.RawNearMint, Currency: "USD", Points: []snapshots.SourcePoint{{Day: 30, Cents: 777, Amount: 777}}},
		}}}
	got = pricing.NewPartnerHistory(c, sales, files, 30, 15, true, 5)
	day := func(d snapshots.Day) *string { s := d.String(); return &s }
	holo := "holo"
	wantSources := []pricing.SourceHistory{
		{Source: "tcgplayer", Field: "market", Finish: &holo, Grade: "raw:near_mint", Currency: "USD", TotalDays: 1,
			Items: []pricing.SourceDayItem{{Date: snapshots.Day(30).String(), PriceUSD: 5, Amount: 5}}},
		{Source: "cardmarket", Field: "trend", Finish: &holo, Grade: "raw:near_mint", Currency: "EUR", Stale: true, TotalDays: 1,
			Items: []pricing.SourceDayItem{{Date: snapshots.Day(29).String(), PriceUSD: 5.25, Amount: 5, RateDate: day(29)}}},
	}
	if diff := cmp.Diff(wantSources, got.Sources); diff != "" || got.Source != "tcgplayer" || got.Synthetic {
		t.Errorf("sources (-want +got):\n%s\nsource %s synthetic %v", diff, got.Source, got.Synthetic)
	}
}

func TestNewMarketHistory(t *testing.T) {
	c := mustCard(t, "en:base1-4")
	sales, err := src.Reader.Sales(c.Game, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	f := pricing.SaleFilter{To: src.AsOf}
	all := pricing.Daily(f.Sales(sales))
	if len(all) < 3 {
		t.Fatalf("%d days of sales: the tiny snapshot is smaller than expected", len(all))
	}
	got := pricing.NewMarketHistory(c, sales, f, 2)
	if got.TotalDays != len(all) || !got.Truncated || !slices.Equal(got.Items, all[len(all)-2:]) || got.From != nil {
		t.Fatalf("the last two days: %s", jsontexttest.MustMarshal(t, got))
	}
	f.From, f.FromSet = src.AsOf-30, true
	if got := pricing.NewMarketHistory(c, sales, f, 365); got.Truncated || *got.From != f.From.String() || got.TotalDays != len(got.Items) {
		t.Fatalf("30 days: %s", jsontexttest.MustMarshal(t, got))
	}
}

func TestNewMarketplaceSales(t *testing.T) {
	c := mustCard(t, "en:base1-4")
	sales, err := src.Reader.Sales(c.Game, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := pricing.NewMarketplaceSales(c, sales, pricing.SaleFilter{To: src.AsOf}, 3)
	feed, n := 0, 0
	for _, s := range sales {
		if s.Flags&snapshots.SalePriceFeed != 0 {
			feed++
		} else if s.Day <= src.AsOf {
			n++
		}
	}
	sum := 0
	for _, v := range got.ByMarketplace {
		sum += v
	}
	if got.Total != n || sum != n || len(got.Items) != 3 || !got.Truncated || feed == 0 {
		t.Fatalf("%d sales (%d price-feed rows): %s", n, feed, jsontexttest.MustMarshal(t, got))
	}
}

func TestReadHistory(t *testing.T) {
	c := mustCard(t, "en:base1-4")
	base := snapshots.BasePrinting(c)
	h, err := pricing.ReadHistory(src.Reader, c, pricing.BaseRead, snapshots.RawNearMint)
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := pricing.PrintingEstimate(src.Reader, c, base, snapshots.RawNearMint)
	if err != nil {
		t.Fatal(err)
	}
	if h.Printing != base || h.Grade == nil || h.Grade.Grade != snapshots.RawNearMint || h.Estimate != e || len(h.Series) == 0 {
		t.Fatalf("base printing: %+v", h)
	}
	h2, err := pricing.ReadHistory(src.Reader, c, base, snapshots.RawNearMint)
	if err != nil || jsontexttest.MustMarshal(t, h2) != jsontexttest.MustMarshal(t, h) {
		t.Fatalf("the base printing by its index reads otherwise: %v", err)
	}
	if h, err := pricing.ReadHistory(src.Reader, c, base, snapshots.GradedGrade(2, 1)); err != nil || h.Grade != nil {
		t.Fatalf("a grade without sales: %+v, %v", h, err)
	}

	// A page of the history: the newest points after offset, oldest first.
	q := pricing.PriceHistoryRequest{Grade: snapshots.RawNearMint, Method: pricing.MethodMedian, Interval: pricing.IntervalDay, To: src.AsOf, Offset: 0, Limit: 100000}
	full := pricing.NewPriceHistory(c, c, h, q)
	q.Offset, q.Limit = 3, 5
	page := pricing.NewPriceHistory(c, c, h, q)
	n := len(full.Items)
	if n < 10 || page.Total != n || !slices.EqualFunc(page.Items, full.Items[n-8:n-3], func(a, b pricing.PointRow) bool {
		return jsontexttest.MustMarshal(t, a) == jsontexttest.MustMarshal(t, b)
	}) {
		t.Fatalf("page 3+5 of %d points: %s", n, jsontexttest.MustMarshal(t, page.Items))
	}
	if page.From != nil || !page.BaseFinish || page.PriceBasis == "" || page.AvailableGrades[0] != h.Series[0].Grade.String() {
		t.Fatalf("payload: %s", jsontexttest.MustMarshal(t, page))
	}
}

func TestNewVWAP(t *testing.T) {
	c := mustCard(t, "en:base1-4")
	cum, err := src.Reader.Cum(c.Game, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	num := 10.0
	for _, tc := range []struct {
		name string
		q    pricing.VWAPRequest
		keep func(snapshots.Grade) bool
	}{
		{"All", pricing.VWAPRequest{}, nil},
		{"Condition", pricing.VWAPRequest{Condition: "near_mint"}, func(g snapshots.Grade) bool { return g == snapshots.RawNearMint }},
		{"Grader", pricing.VWAPRequest{Grader: "slab"}, func(g snapshots.Grade) bool { return g.Grader() == 0 }},
		{"GradeNum", pricing.VWAPRequest{Grader: "slab", GradeNum: &num}, func(g snapshots.Grade) bool { return g == snapshots.GradedGrade(0, 10) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Finish, q.Days, q.From, q.To = pricing.BaseRead, 365, src.AsOf-364, src.AsOf
			got, err := pricing.NewVWAP(src.Reader, c, q)
			if err != nil {
				t.Fatal(err)
			}
			n, cents := snapshots.SumWindow(cum, tc.keep, q.From, q.To)
			if got.Sales != n || got.VolumeUSD != snapshots.USD(cents) || (n > 0) != (got.VWAPUSD != nil) || got.Note != nil {
				t.Fatalf("%d sales, %d cents: %s", n, cents, jsontexttest.MustMarshal(t, got))
			}
			if n > 0 && *got.VWAPUSD != snapshots.USD((cents+int64(n)/2)/int64(n)) {
				t.Fatalf("vwap %v of %d cents over %d sales", *got.VWAPUSD, cents, n)
			}
		})
	}
	got, err := pricing.NewVWAP(src.Reader, c, pricing.VWAPRequest{Finish: pricing.BaseRead, Language: "ja", To: src.AsOf})
	if err != nil || got.Note == nil || got.Sales != 0 {
		t.Fatalf("another language: %s, %v", jsontexttest.MustMarshal(t, got), err)
	}
}
