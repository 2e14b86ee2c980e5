package pricing_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

var (
	asOf   = mustDay("2026-11-20")
	slab10 = snapshots.GradedGrade(0, 10)
	rawNM  = snapshots.RawNearMint
)

func mustDay(s string) snapshots.Day {
	d, err := snapshots.ParseDay(s)
	if err != nil {
		panic(err)
	}
	return d
}

// TestMarket_Pick is the per-grade rule: Midprice when usable (status ok or
// thin and above 0), else Last, else Ask.
func TestMarket_Pick(t *testing.T) {
	cases := []struct {
		name      string
		m         pricing.Market
		label     string
		cents     int64
		basisHint string
	}{
		{"ok midprice", pricing.Market{MidStatus: "ok", MidCents: 1000, MidSales: 7, LastCents: 900, AskCents: 1200}, "Midprice", 1000, "status ok"},
		{"thin midprice", pricing.Market{MidStatus: "thin", MidCents: 1000, MidSales: 1, LastCents: 900, AskCents: 1200}, "Midprice", 1000, "status thin"},
		{"stale midprice falls to last", pricing.Market{MidStatus: "stale", MidCents: 1000, LastCents: 900, AskCents: 1200}, "Last", 900, "no usable midprice (status stale)"},
		{"none falls to last", pricing.Market{MidStatus: "none", LastCents: 900, AskCents: 1200}, "Last", 900, "last verified"},
		{"ok but zero midprice falls to last", pricing.Market{MidStatus: "ok", MidCents: 0, LastCents: 900}, "Last", 900, "last verified"},
		{"thin but zero midprice, no sale: ask", pricing.Market{MidStatus: "thin", AskCents: 1200, AskShippingCents: 499, AskPlatform: "ebay"}, "Ask", 1200, "shipping $4.99"},
		{"only an ask", pricing.Market{MidStatus: "none", AskCents: 1200, AskPlatform: "partner"}, "Ask", 1200, "not a sale"},
		{"printing fmv", pricing.Market{MidStatus: "ok", MidCents: 1500, MidSales: 6}, "Midprice", 1500, "6 accepted verified sales"},
		{"nothing", pricing.Market{MidStatus: "none"}, "", 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.m.Grade, tc.m.AsOf = slab10, asOf
			p, ok := tc.m.Pick()
			if got, want := ok, tc.label != ""; got != want {
				t.Fatalf("ok = %v, want %v", got, want)
			}
			if !ok {
				return
			}
			if p.Label != tc.label || p.Cents != tc.cents || p.Grade != slab10 {
				t.Errorf("got %s %d %s, want %s %d", p.Label, p.Cents, p.Grade, tc.label, tc.cents)
			}
			if !strings.Contains(p.Basis, tc.basisHint) {
				t.Errorf("basis %q does not say %q", p.Basis, tc.basisHint)
			}
		})
	}
}

// TestChoose is the ungraded rule: slab:10 first, then raw:near_mint; the
// first grade with any price wins (its own fallback included).
func TestChoose(t *testing.T) {
	mid := func(g snapshots.Grade, c int64) pricing.Market {
		return pricing.Market{Grade: g, AsOf: asOf, MidStatus: "ok", MidCents: c, MidSales: 9}
	}
	last := func(g snapshots.Grade, c int64) pricing.Market {
		return pricing.Market{Grade: g, AsOf: asOf, MidStatus: "stale", LastCents: c}
	}
	ask := func(g snapshots.Grade, c int64) pricing.Market {
		return pricing.Market{Grade: g, AsOf: asOf, MidStatus: "none", AskCents: c}
	}
	none := func(g snapshots.Grade) pricing.Market { return pricing.Market{Grade: g, AsOf: asOf, MidStatus: "none"} }
	cases := []struct {
		name    string
		markets []pricing.Market
		grade   snapshots.Grade
		label   string
		cents   int64
	}{
		{"slab10 midprice", []pricing.Market{mid(slab10, 90000), mid(rawNM, 500)}, slab10, "Midprice", 90000},
		{"slab10 last beats raw midprice", []pricing.Market{last(slab10, 80000), mid(rawNM, 500)}, slab10, "Last", 80000},
		{"slab10 ask beats raw midprice", []pricing.Market{ask(slab10, 99000), mid(rawNM, 500)}, slab10, "Ask", 99000},
		{"no slab10: raw midprice", []pricing.Market{none(slab10), mid(rawNM, 500)}, rawNM, "Midprice", 500},
		{"no slab10: raw last", []pricing.Market{none(slab10), last(rawNM, 450)}, rawNM, "Last", 450},
		{"no slab10: raw ask", []pricing.Market{none(slab10), ask(rawNM, 600)}, rawNM, "Ask", 600},
		{"nothing at all", []pricing.Market{none(slab10), none(rawNM)}, 0, "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := pricing.Choose(tc.markets)
			if ok != (tc.label != "") {
				t.Fatalf("ok = %v", ok)
			}
			if ok && (p.Grade != tc.grade || p.Label != tc.label || p.Cents != tc.cents) {
				t.Errorf("got %s %s %d, want %s %s %d", p.Grade, p.Label, p.Cents, tc.grade, tc.label, tc.cents)
			}
		})
	}
	if got := pricing.UngradedOrder; len(got) != 2 || got[0].String() != "slab:10" || got[1].String() != "raw:near_mint" {
		t.Errorf("UngradedOrder = %v", got)
	}
}

// TestCardMarket_Market computes statuses from the printing's estimate, and
// the last sale and cheapest ask of one printing, from hand-made data.
func TestCardMarket_Market(t *testing.T) {
	card := &snapshots.Card{Game: "pokemon", ID: "en:x-1", Variants: []string{"holo/unlimited", "holo/1st-edition", "reverse"}}
	sale := func(day string, cents int64, g snapshots.Grade, finish uint8, flags uint8) snapshots.Sale {
		return snapshots.Sale{Day: mustDay(day), PriceCents: cents, Grade: g, Finish: finish, Flags: flags, Marketplace: snapshots.MarketEbay}
	}
	est := func(g snapshots.Grade, fmv int64, n int32, last string, c estimate.Confidence) snapshots.Estimate {
		return snapshots.Estimate{Grade: g, FMVCents: fmv, SampleSize: n, LastSaleDay: mustDay(last), Confidence: c}
	}
	cm := &pricing.CardMarket{
		Card: card, AsOf: asOf,
		Printings: []snapshots.Printing{
			{Finish: 0, Name: "holo/unlimited", Base: true, Estimates: []snapshots.Estimate{
				est(rawNM, 500, 7, "2026-11-18", estimate.ConfidenceHigh), est(slab10, 70000, 0, "2025-06-01", estimate.ConfidenceNone)}},
			{Finish: 1, Name: "holo/1st-edition", Estimates: []snapshots.Estimate{est(rawNM, 2200, 3, "2026-11-15", estimate.ConfidenceLow)}},
			{Finish: 2, Name: "reverse"},
		},
		Series: map[int][]snapshots.PriceSeries{
			0: {{Grade: rawNM, Points: []snapshots.PricePoint{{Day: mustDay("2026-01-01"), FMVCents: 400}, {Day: mustDay("2026-11-10"), FMVCents: 500}}},
				{Grade: slab10, Points: []snapshots.PricePoint{{Day: mustDay("2025-06-01"), FMVCents: 70000}}}},
			1: {{Grade: rawNM, Points: []snapshots.PricePoint{{Day: mustDay("2026-11-15"), FMVCents: 2200}}}},
		},
		Sales: []snapshots.Sale{ // newest first
			sale("2026-11-25", 9999, rawNM, 0, 0), // after as_of: ignored
			sale("2026-11-19", 100000, rawNM, 0, snapshots.SaleFlagged),
			sale("2026-11-18", 510, rawNM, 0, 0),
			sale("2026-11-15", 2000, rawNM, 1, 0),
			sale("2026-11-12", 490, rawNM, 0, 0),
			sale("2025-06-01", 70000, slab10, 0, 0),
		},
		Listings: []snapshots.Listing{
			{Grade: "slab:10", Finish: "holo/unlimited", AskCents: 88000, Platform: "ebay"},
			{Grade: "raw:near_mint", Finish: "reverse", AskCents: 300, Platform: "partner"},
			{Grade: "raw:near_mint", Finish: "holo/1st-edition", AskCents: 2500, Platform: "partner"},
			{Grade: "raw:near_mint", Finish: "", AskCents: 600, Platform: "ebay"}, // no finish: the base printing's
		},
	}
	m := cm.Market(rawNM, 0)
	if m.MidStatus != "ok" || m.MidCents != 500 || m.MidDay != mustDay("2026-11-10") || m.MidSales != 7 || m.LastCents != 510 || m.AskCents != 600 {
		t.Errorf("raw base printing: %+v", m)
	}
	m = cm.Market(slab10, 0)
	if m.MidStatus != "stale" || m.MidCents != 0 || m.LastCents != 70000 || m.AskCents != 88000 {
		t.Errorf("slab10 at confidence none: %+v", m)
	}
	if p, _ := m.Pick(); p.Label != "Last" {
		t.Errorf("stale slab10 picks %s", p.Label)
	}
	first, err := pricing.PrintingOf(card, "1st edition")
	if err != nil || first != 1 {
		t.Fatalf("PrintingOf 1st edition: %v %v", first, err)
	}
	m = cm.Market(rawNM, first)
	if m.MidStatus != "thin" || m.MidCents != 2200 || m.LastCents != 2000 || m.AskCents != 2500 {
		t.Errorf("raw 1st-edition: %+v", m)
	}
	if p, _ := m.Pick(); p.Label != "Midprice" || p.Cents != 2200 {
		t.Errorf("thin 1st edition picks %+v", p)
	}
	m = cm.Market(rawNM, 2)
	if m.MidStatus != "none" || m.LastCents != 0 || m.AskCents != 300 {
		t.Errorf("reverse: %+v", m)
	}
	m = cm.Market(snapshots.GradedGrade(1, 9.5), 0)
	if m.MidStatus != "none" {
		t.Errorf("unsold grade: %+v", m)
	}
	if _, ok := m.Pick(); ok {
		t.Errorf("unsold grade priced")
	}
}

// TestPrintingOf: a whole variant, parts of one, the words people write;
// the fewest other parts win, the base printing on a tie.
func TestPrintingOf(t *testing.T) {
	charizard := &snapshots.Card{ID: "en:base1-4", Variants: []string{"holo/unlimited", "holo/shadowless/1st-edition", "holo/shadowless", "holo/1999-2000-copyright"}}
	spaced := &snapshots.Card{ID: "en:x-2", Variants: []string{"normal", "normal/1st Edition", "reverse"}}
	none := &snapshots.Card{ID: "en:x-3"}
	cases := []struct {
		card   *snapshots.Card
		finish string
		want   int
		err    string
	}{
		{charizard, "", 0, ""},
		{charizard, "holo/unlimited", 0, ""},
		{charizard, "HOLO/Shadowless", 2, ""},
		{charizard, "shadowless", 2, ""},
		{charizard, "1st-edition", 1, ""},
		{charizard, "1st edition", 1, ""},
		{charizard, "first edition", 1, ""},
		{charizard, "shadowless/1st-edition", 1, ""},
		{charizard, "holo", 0, ""},
		{charizard, "1999-2000-copyright", 3, ""},
		{charizard, "reverse", 0, "its printings"},
		{spaced, "1st-edition", 1, ""},
		{spaced, "normal/1st edition", 1, ""},
		{spaced, "reverse holo", 2, ""},
		{none, "", 0, ""},
		{none, "holo", 0, "no known variants"},
	}
	for _, tc := range cases {
		got, err := pricing.PrintingOf(tc.card, tc.finish)
		if tc.err != "" {
			if apperr.ErrorCode(err) != apperr.EINVALID || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: %v, want EINVALID saying %q", tc.card.ID, tc.finish, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %q: %d %v, want %d", tc.card.ID, tc.finish, got, err, tc.want)
		}
	}
}

// TestRankTrending: a page is the precomputed ranking (or a custom one)
// ranked, and its total the rows that passed.
func TestRankTrending(t *testing.T) {
	liq := pricing.DefaultLiquidity()
	for _, q := range []pricing.TrendingRequest{
		{Game: "pokemon", Metric: "composite", Window: "30d", Language: "all", Liquidity: liq, Limit: 5},
		{Game: "pokemon", Metric: "price_pct", Window: "7d", Language: "en", Liquidity: pricing.Liquidity{MinSales: 1}, Asc: true, Offset: 2, Limit: 3},
		{Game: "pokemon", Metric: "volume_usd", Language: "all", Custom: true, Days: 45, Liquidity: liq, Limit: 50},
		{Game: "pokemon", Metric: "sales_count", Language: "all", Custom: true, Days: 30, Keep: func(g snapshots.Grade) bool { return g.Grader() == 0 }, Limit: 10},
	} {
		got, err := pricing.RankTrending(src.Reader, src.AsOf, q)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := pricing.Trending(src.Reader, q.Game, q.Metric, q.Window, q.Language, q.Liquidity)
		if q.Custom {
			lb, err = pricing.CustomTrending(src.Reader, src.AsOf, q.Game, q.Metric, q.Days, q.Language, q.Keep, q.Liquidity)
		}
		if err != nil {
			t.Fatal(err)
		}
		items, err := pricing.Ranked(src.Reader, q.Game, q.Metric, lb, q.Asc, q.Offset, q.Limit)
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != len(lb.Rows) || len(got.Items) == 0 || jsontexttest.MustMarshal(t, got.Items) != jsontexttest.MustMarshal(t, items) {
			t.Fatalf("%+v: %d of %d, want %d of %d", q, len(got.Items), got.Total, len(items), len(lb.Rows))
		}
	}
}

// TestNewTrendingBoard: the board says what its page was ranked by.
func TestNewTrendingBoard(t *testing.T) {
	liq := pricing.Liquidity{MinSales: 3, MinPriceCents: 1050}
	pg := pricing.TrendingPage{Total: 7, Items: []pricing.TrendingItem{}}
	ten := 10.0
	for _, c := range []struct {
		name     string
		q        pricing.TrendingRequest
		gi       int
		gradeNum *float64
		want     string
	}{
		{"Window", pricing.TrendingRequest{Metric: "composite", Window: "30d", Days: 30, Language: "all", Liquidity: liq, Limit: 5}, -1, nil,
			`{"metric":"composite","window":"30d","window_days":30,"language":"all","direction":"desc","grader":null,"grade_num":null,"as_of":"1970-01-11",` +
				`"min_sales":3,"min_price_usd":10.5,"total":7,"offset":0,"limit":5,"items":[],"basis":` + jsontexttest.MustMarshal(t, liq.Basis()) + `}`},
		{"CustomGrade", pricing.TrendingRequest{Metric: "volume_usd", Days: 45, Language: "en", Liquidity: liq, Asc: true, Offset: 2, Limit: 3}, 1, &ten,
			`{"metric":"volume_usd","window":null,"window_days":45,"language":"en","direction":"asc","grader":"bgs","grade_num":10,"as_of":"1970-01-11",` +
				`"min_sales":3,"min_price_usd":10.5,"total":7,"offset":2,"limit":3,"items":[],"basis":` + jsontexttest.MustMarshal(t, liq.Basis()) + `}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := jsontexttest.MustMarshal(t, pricing.NewTrendingBoard(c.q, pg, 10, c.gi, c.gradeNum)); got != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}
