package pricing_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
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
		{"finish median", pricing.Market{MidStatus: "ok", MidCents: 1500, MidSales: 6, MidFinish: true}, "Midprice", 1500, "median of the 6 verified slab:10 sales"},
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

// TestCardMarket_Market computes statuses, last sale, finish medians and
// asks from hand-made data.
func TestCardMarket_Market(t *testing.T) {
	card := &snapshots.Card{Game: "pokemon", ID: "en:x-1", Variants: []string{"holo/unlimited", "holo/1st-edition", "reverse"}}
	sale := func(day string, cents int64, g snapshots.Grade, finish uint8, flags uint8) snapshots.Sale {
		return snapshots.Sale{Day: mustDay(day), PriceCents: cents, Grade: g, Finish: finish, Flags: flags, Marketplace: snapshots.MarketEbay}
	}
	cm := &pricing.CardMarket{
		Card: card, AsOf: asOf,
		Series: []snapshots.PriceSeries{
			{Grade: rawNM, Points: []snapshots.PricePoint{{Day: mustDay("2026-01-01"), FMVCents: 400}, {Day: mustDay("2026-11-10"), FMVCents: 500}}},
			{Grade: slab10, Points: []snapshots.PricePoint{{Day: mustDay("2025-06-01"), FMVCents: 70000}}},
		},
		Sales: []snapshots.Sale{ // newest first
			sale("2026-11-25", 9999, rawNM, 0, 0), // after as_of: ignored
			sale("2026-11-19", 100000, rawNM, 0, snapshots.SaleFlagged),
			sale("2026-11-18", 510, rawNM, 0, 0),
			sale("2026-11-15", 2000, rawNM, 1, 0),
			sale("2026-11-12", 490, rawNM, 0, 0),
			sale("2026-11-01", 2200, rawNM, 1, 0),
			sale("2026-10-20", 505, rawNM, 0, 0),
			sale("2026-10-02", 495, rawNM, 0, 0),
			sale("2026-09-30", 2400, rawNM, 1, 0),
			sale("2025-06-01", 70000, slab10, 0, 0),
		},
		Listings: []snapshots.Listing{
			{Grade: "slab:10", Finish: "holo/unlimited", AskCents: 88000, Platform: "ebay"},
			{Grade: "raw:near_mint", Finish: "reverse", AskCents: 300, Platform: "partner"},
			{Grade: "raw:near_mint", Finish: "holo/1st-edition", AskCents: 2500, Platform: "partner"},
		},
	}
	m := cm.Market(rawNM, pricing.Finish{})
	if m.MidStatus != "ok" || m.MidCents != 500 || m.MidSales != 7 || m.LastCents != 510 || m.AskCents != 300 {
		t.Errorf("raw any finish: %+v", m)
	}
	m = cm.Market(slab10, pricing.Finish{})
	if m.MidStatus != "stale" || m.MidCents != 70000 || m.LastCents != 70000 || m.AskCents != 88000 {
		t.Errorf("slab10: %+v", m)
	}
	if p, _ := m.Pick(); p.Label != "Last" {
		t.Errorf("stale slab10 picks %s", p.Label)
	}
	first, err := pricing.MatchFinish(card, "1st-edition")
	if err != nil || len(first.Variants) != 1 || first.Variants[0] != "holo/1st-edition" {
		t.Fatalf("MatchFinish 1st-edition: %v %v", first, err)
	}
	m = cm.Market(rawNM, first)
	if !m.MidFinish || m.MidStatus != "thin" || m.MidCents != 2200 || m.LastCents != 2000 || m.AskCents != 2500 {
		t.Errorf("raw 1st-edition: %+v", m)
	}
	holo, err := pricing.MatchFinish(card, "HOLO")
	if err != nil || len(holo.Variants) != 2 {
		t.Errorf("MatchFinish holo: %v %v", holo, err)
	}
	if _, err := pricing.MatchFinish(card, "gold"); err == nil || !strings.Contains(err.Error(), "reverse") {
		t.Errorf("MatchFinish gold: %v", err)
	}
	m = cm.Market(snapshots.GradedGrade(1, 9.5), pricing.Finish{})
	if m.MidStatus != "none" {
		t.Errorf("unsold grade: %+v", m)
	}
	if _, ok := m.Pick(); ok {
		t.Errorf("unsold grade priced")
	}
}
