package edge

// Internal test: the appenders of card_encode.go against encoding/json on the
// unexported payload types they encode.

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// stdlibJSON is what render did before payloads encoded themselves.
func stdlibJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatalf("encoding/json: %v", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// plainAnalytics is analyticsPayload without its methods: encoding/json
// encodes its exported fields by reflection.
type plainAnalytics analyticsPayload

// referenceAnalytics fills the exported fields of the payload from the map
// form of a window, as the payload was built before it encoded itself.
func referenceAnalytics(c *snapshots.Card, a snapshots.CardAnalytics) plainAnalytics {
	nonNil := func(m map[string]int) map[string]int {
		if m == nil {
			return map[string]int{}
		}
		return m
	}
	out := plainAnalytics{
		CardID: c.ID, Name: c.Name, Window: a.Window, From: a.From, To: a.To, Sales: a.Sales, VolumeUSD: snapshots.USD(a.VolumeCents),
		AvgUSD: snapshots.USDOrNil(a.AvgCents), MedianUSD: snapshots.USDOrNil(a.MedianCents), LowUSD: snapshots.USDOrNil(a.LowCents), HighUSD: snapshots.USDOrNil(a.HighCents),
		FirstFMVUSD: snapshots.USDOrNil(a.FirstFMVCents), LastFMVUSD: snapshots.USDOrNil(a.LastFMVCents),
		ByMarketplace: nonNil(a.ByMarketplace), ByGrade: nonNil(a.ByGrade), TradeTypes: nonNil(a.TradeTypes),
		GradeMedian: map[string]float64{}, PriceBasis: analyticsPriceBasis,
		Finish: jsontext.StrOrNil(pricing.PrintingName(c, snapshots.BasePrinting(c))),
	}
	for g, v := range a.GradeMedianCts {
		out.GradeMedian[g] = snapshots.USD(v)
	}
	if a.FirstFMVCents > 0 {
		out.ChangePct, out.VolatilityPct = &a.ChangePct, &a.VolatilityPct
	}
	return out
}

// mustTinySnapshot opens the shared tiny snapshot (tinyRoot).
func mustTinySnapshot(tb testing.TB) *snapshot {
	tb.Helper()
	s := mustLive(tb, tinyRoot(tb)).Acquire().Derived(derivationName).(*snapshot)
	tb.Cleanup(s.release)
	return s
}

// TestCardDetail_AppendJSON: card detail with every include, for every card
// of the tiny snapshot and a tier with and one without a history window,
// encodes to the bytes encoding/json writes for the cardGold; so does every
// analytics window for the payload filled from the map form.
func TestCardDetail_AppendJSON(t *testing.T) {
	skipUnderRace(t)
	snap := mustTinySnapshot(t)
	cards, pages, windows, finishes := 0, 0, 0, 0
	for _, game := range snap.Manifest().Games {
		all, err := snap.Cards(game)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range all {
			cards++
			for _, tier := range []access.Tier{access.Elite, access.Playground} {
				r := &request{snap: snap, caller: access.Caller{Tier: tier}, game: game}
				// From the card's fields, and from the object encoded
				// when the snapshot opened.
				m, err := pricing.DefaultMarketObject(snap.Reader, c)
				if err != nil {
					t.Fatal(err)
				}
				fromFields, encoded := &cardDetail{card: c, set: r.setOf(c), market: m}, snap.cardDetail(c)
				if encoded.object == nil {
					t.Fatalf("%s: no encoded object", c.ID)
				}
				g := newCardGold(c, r.setOf(c), m)
				for _, d := range []*cardDetail{fromFields, &encoded} {
					if got, want := d.AppendJSON(nil), stdlibJSON(t, &g); !bytes.Equal(got, want) {
						t.Fatalf("%s without includes (encoded %t):\n got %s\nwant %s", c.ID, d.object != nil, got, want)
					}
				}
				includes, err := r.cardIncludes(c, -1, includeNames)
				if err != nil {
					t.Fatal(err)
				}
				g.Includes = includes
				for _, d := range []*cardDetail{fromFields, &encoded} {
					d.includes = includes
					if got, want := d.AppendJSON(nil), stdlibJSON(t, &g); !bytes.Equal(got, want) {
						t.Fatalf("%s (tier %v, encoded %t):\n got %s\nwant %s", c.ID, tier, d.object != nil, got, want)
					}
				}
				pages++
				// Each printing asked for by finish.
				for f := range c.Printings() {
					m, err := pricing.ReadMarketObject(snap.Reader, c, f, snap.AsOf)
					if err != nil {
						t.Fatal(err)
					}
					includes, err := r.cardIncludes(c, f, includeNames)
					if err != nil {
						t.Fatal(err)
					}
					g := newCardGold(c, r.setOf(c), m)
					g.Includes = includes
					d := &cardDetail{card: c, set: r.setOf(c), market: m, includes: includes}
					if got, want := d.AppendJSON(nil), stdlibJSON(t, &g); !bytes.Equal(got, want) {
						t.Fatalf("%s finish %d (tier %v):\n got %s\nwant %s", c.ID, f, tier, got, want)
					}
					finishes++
				}
			}
			maps, err := snap.Analytics(game, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			r := &request{snap: snap, game: game}
			for _, a := range maps {
				p, err := r.cardWindow(c, -1, a.Window)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := p.AppendJSON(nil), stdlibJSON(t, referenceAnalytics(c, a)); !bytes.Equal(got, want) {
					t.Fatalf("%s window %s:\n got %s\nwant %s", c.ID, a.Window, got, want)
				}
				windows++
			}
		}
	}
	if cards < 100 || windows < 6*cards {
		t.Fatalf("compared %d cards, %d analytics windows: the tiny snapshot is smaller than expected", cards, windows)
	}
	t.Logf("%d cards, %d card pages, %d printings, %d analytics windows", cards, pages, finishes, windows)
}

// TestAnalyticsPayload_NoWindow: a card without stored analytics gets an
// empty window to as_of.
func TestAnalyticsPayload_NoWindow(t *testing.T) {
	c := &snapshots.Card{ID: "en:x-1", Name: "X"}
	asOf, _ := snapshots.ParseDay(snapshotstest.AsOf)
	p := newAnalyticsPayload(c, snapshots.WindowAnalytics{Window: "1m", From: snapshots.NoDay, To: asOf})
	want := stdlibJSON(t, referenceAnalytics(c, snapshots.CardAnalytics{Window: "1m", To: snapshotstest.AsOf}))
	if got := p.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// Nested in a payload that goes through encoding/json (batch).
	if got := stdlibJSON(t, &cardIncludes{MarketSummary: p}); !bytes.Equal(got, append(append([]byte(`{"market_summary":`), want...), '}')) {
		t.Errorf("nested: %s", got)
	}
}

// FuzzAppendJSONStr: strings that need escaping (quotes, control characters,
// invalid UTF-8, U+2028, HTML characters that stay as they are) encode as
// encoding/json encodes them, alone and inside a card.
func FuzzAppendJSONStr(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \back\slash/`, "\x00\x01\b\f\n\r\t\x1f\x7f", "<a href='x'>&amp;</a>",
		"\u2028\u2029", "\xff\xfe", "caf\xc3", "Pokémon ♀ 日本語 🐉", "\xed\xa0\x80", "a\u00a0b"} {
		f.Add(s, 0.0, int64(0))
	}
	for _, x := range []float64{1e-7, 1e-6, 1e21, 1e20, math.Copysign(0, -1), 5e-324, math.MaxFloat64, 123.45, -0.01, 1.0 / 3,
		1152.4, 0.05, -0.5, 1e13 + 0.01, 99999999999999.99} {
		f.Add("x", x, int64(50588))
	}
	f.Add("", 1.5, int64(-7))
	f.Add("", 1.5, int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, s string, x float64, cents int64) {
		if got, want := appendJSONStr(nil, s), stdlibJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("string %q:\n got %s\nwant %s", s, got, want)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if got := appendJSONNum(nil, x); string(got) != "null" {
				t.Fatalf("%v: %s, want null", x, got)
			}
			return
		}
		if got, want := appendJSONNum(nil, x), stdlibJSON(t, x); !bytes.Equal(got, want) {
			t.Fatalf("float %v:\n got %s\nwant %s", x, got, want)
		}
		c := &snapshots.Card{ID: s, Game: "pokemon", Name: s + s, NameLanguage: s, Language: "en", SetID: s, Number: s, Rarity: s,
			Subtypes: []string{s, ""}, NationalDex: []int{1, -2}, ENMatch: s, MarketSources: []string{s}, Venues: []string{s, "x"},
			PartnerProductID: cents, PriceCents: cents, PriceDay: snapshots.Day(cents % 3_000_000), Volume30dCents: -cents, Sales30d: int(cents % 1000),
			MarketIDs: []snapshots.MarketID{{Cardmarket: cents}, {Variant: s, TCGplayer: 3}}}
		includes := &cardIncludes{
			PriceHistory:       &pricing.HistorySeries{Grade: s, Finish: &s, Method: s, Points: []pricing.PointRow{{Date: s, PriceUSD: x, Confidence: s, Flags: []string{s}}}},
			TVWAPSlots:         &pricing.SlotsInclude{Basis: s, Slots: []pricing.GradeRow{{Grade: s, FMVUSD: &x, LastSale: &s, ChangePct: &x}}},
			GradeMomentum:      &pricing.MomentumInclude{},
			RecentSales:        &pricing.RecentSalesInclude{Items: []pricing.SaleRow{{SaleID: s, Finish: &s, PriceUSD: x, OnChain: true}}},
			GradeBreakdown:     &pricing.BreakdownInclude{Grades: []pricing.GradeRow{{PremiumRaw: &x}}},
			PopulationOverview: &pricing.PopulationInclude{Basis: s, Grades: []pricing.PopulationRow{{Grader: s, Grade: x, Share: x}}},
			GradingEconomics:   &pricing.GradingEconomicsInc{Grader: s, ExpectedGainUSD: &x, Basis: s},
			MarketSummary: newAnalyticsPayload(&snapshots.Card{ID: s, Name: s}, snapshots.WindowAnalytics{Window: "1w", From: snapshots.NoDay,
				ByGrade: []snapshots.AnalyticsEntry{{Code: 0, Value: 1}}}),
		}
		m := &pricing.MarketObject{PriceUSD: &x, PriceBasis: s, Source: s, Synthetic: true, Finish: &s, Confidence: s, Flags: []string{s}, Note: s, Volume30dUSD: x,
			ByFinish: []pricing.FinishMarket{{Finish: &s, PriceUSD: &x, Source: s, LastSaleDate: &s, Flags: []string{}, Note: s, Volume30dUSD: x}, {}}}
		for _, set := range []*snapshots.Set{nil, {Name: s}} {
			for _, in := range []*cardIncludes{nil, includes} {
				g := newCardGold(c, set, m)
				g.Includes = in
				d := &cardDetail{card: c, set: set, includes: in, market: m}
				if got, want := d.AppendJSON(nil), stdlibJSON(t, &g); !bytes.Equal(got, want) {
					t.Fatalf("card:\n got %s\nwant %s", got, want)
				}
			}
		}
	})
}

// TestAppendJSONNum_Cents: dollar amounts and rounded percentages (the fast
// path) print as encoding/json prints them, near zero, around every power of
// ten and at random up to the path's 15-digit bound.
func TestAppendJSONNum_Cents(t *testing.T) {
	check := func(f float64) {
		t.Helper()
		if got, want := appendJSONNum(nil, f), stdlibJSON(t, f); !bytes.Equal(got, want) {
			t.Fatalf("%v: got %s, want %s", f, got, want)
		}
	}
	checkUSD := func(c int64) {
		t.Helper()
		check(snapshots.USD(c))
		if got, want := appendUSD(nil, c), stdlibJSON(t, snapshots.USD(c)); !bytes.Equal(got, want) {
			t.Fatalf("appendUSD(%d): got %s, want %s", c, got, want)
		}
	}
	for c := int64(-100_000); c <= 100_000; c++ {
		checkUSD(c)
		check(snapshots.Round2(float64(c) / 1000))
	}
	for p, i := int64(1), 0; i <= 18; p, i = p*10, i+1 {
		for _, c := range []int64{p - 1, p, p + 1, p*9 + 99, -p - 1} {
			checkUSD(c)
		}
	}
	checkUSD(math.MaxInt64)
	checkUSD(math.MinInt64)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200_000; i++ {
		c := rng.Int64N(2e15) - 1e15
		checkUSD(c)
		check(snapshots.Round2(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(14)))))
	}
	check(math.Copysign(0, -1))
	check(0)
}

// BenchmarkCardDetail_AppendJSON compares the appender with encoding/json on
// the card detail of the REST benchmark (market_summary).
func BenchmarkCardDetail_AppendJSON(b *testing.B) {
	snap := mustTinySnapshot(b)
	r := &request{snap: snap, caller: access.Caller{Tier: access.Elite}, game: "pokemon"}
	c, err := snap.Card("pokemon", "en:base1-4")
	if err != nil {
		b.Fatal(err)
	}
	m, err := pricing.DefaultMarketObject(snap.Reader, c)
	if err != nil {
		b.Fatal(err)
	}
	d := &cardDetail{card: c, set: r.setOf(c), market: m}
	if d.includes, err = r.cardIncludes(c, -1, []string{"market_summary"}); err != nil {
		b.Fatal(err)
	}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			buf = d.AppendJSON(buf[:0])
		}
	})
	b.Run("append_encoded", func(b *testing.B) {
		// The card's object as encoded when the snapshot opened.
		b.ReportAllocs()
		e := snap.cardDetail(c)
		e.includes = d.includes
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			buf = e.AppendJSON(buf[:0])
		}
	})
	b.Run("read_and_append", func(b *testing.B) {
		// What render does for the route after parsing: look the card
		// up, read the window, encode.
		b.ReportAllocs()
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			c, err := snap.Card("pokemon", "en:base1-4")
			if err != nil {
				b.Fatal(err)
			}
			d := snap.cardDetail(c)
			if d.includes, err = r.cardIncludes(c, -1, []string{"market_summary"}); err != nil {
				b.Fatal(err)
			}
			buf = d.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		g := newCardGold(c, r.setOf(c), m)
		g.Includes = d.includes
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(&g)
		}
	})
}

func newAnalyticsPayload(c *snapshots.Card, w snapshots.WindowAnalytics) *analyticsPayload {
	return &analyticsPayload{card: c, w: w}
}
