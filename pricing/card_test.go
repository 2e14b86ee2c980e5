package pricing_test

// The appenders of the card payloads (CardDetail, CardIncludes,
// CardAnalytics) against encoding/json on the types they encode.

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// stdlibJSON is v as encoding/json writes it (jsontext.Marshal): the
// reference of the appenders.
func stdlibJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := jsontext.Marshal(v)
	if err != nil {
		tb.Fatalf("encoding/json: %v", err)
	}
	return b
}

// plainAnalytics is CardAnalytics without its methods: encoding/json
// encodes its exported fields by reflection.
type plainAnalytics pricing.CardAnalytics

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
		GradeMedian: map[string]float64{}, PriceBasis: pricing.AnalyticsPriceBasis,
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

// setOf returns c's set in the tiny snapshot, or nil.
func setOf(c *snapshots.Card) *snapshots.Set {
	set, err := src.Reader.Set(c.Game, c.SetID)
	if err != nil {
		return nil
	}
	return set
}

// mustEncodeCards encodes the default object of every card of game.
func mustEncodeCards(tb testing.TB, game string) *pricing.CardObjects {
	tb.Helper()
	all, err := src.Reader.Cards(game)
	if err != nil {
		tb.Fatal(err)
	}
	objects, err := pricing.EncodeCards(all, setOf, func(c *snapshots.Card) (*pricing.MarketObject, error) {
		return pricing.DefaultMarketObject(src.Reader, c)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return objects
}

// includeOptions are the history windows of a caller without one (the
// default look-backs) and of one whose window starts 30 days before as_of.
func includeOptions(objects *pricing.CardObjects) []pricing.IncludeOptions {
	asOf := src.AsOf
	return []pricing.IncludeOptions{
		{AsOf: asOf, HistoryStart: asOf - 89, Objects: objects},
		{AsOf: asOf, HistoryStart: asOf - 29, SalesFrom: asOf - 29, SalesFromSet: true},
	}
}

// TestCardDetail_AppendJSON: card detail with every include, for every card
// of the tiny snapshot and a caller with and one without a history window,
// encodes to the bytes encoding/json writes for the CardGold, from the
// card's fields and from its encoded object; so does every analytics window
// for the payload filled from the map form.
func TestCardDetail_AppendJSON(t *testing.T) {
	cards, pages, windows, finishes := 0, 0, 0, 0
	for _, game := range src.Reader.Manifest().Games {
		all, err := src.Reader.Cards(game)
		if err != nil {
			t.Fatal(err)
		}
		objects := mustEncodeCards(t, game)
		for _, c := range all {
			cards++
			m, err := pricing.DefaultMarketObject(src.Reader, c)
			if err != nil {
				t.Fatal(err)
			}
			if priced, known := objects.Priced(c.Ordinal); !known || priced != (m.PriceUSD != nil) {
				t.Fatalf("%s: Priced says %t (known %t), the market's price is %v", c.ID, priced, known, m.PriceUSD)
			}
			fromFields := &pricing.CardDetail{Card: c, Set: setOf(c), Market: m}
			encoded := &pricing.CardDetail{Card: c, Object: objects.Object(c.Ordinal)}
			if encoded.Object == nil {
				t.Fatalf("%s: no encoded object", c.ID)
			}
			g := pricing.NewCardGold(c, setOf(c), m)
			for _, d := range []*pricing.CardDetail{fromFields, encoded} {
				if got, want := d.AppendJSON(nil), stdlibJSON(t, &g); !bytes.Equal(got, want) {
					t.Fatalf("%s without includes (encoded %t):\n got %s\nwant %s", c.ID, d.Object != nil, got, want)
				}
			}
			for i, o := range includeOptions(objects) {
				includes := &pricing.CardIncludes{}
				if err := includes.Read(src.Reader, c, pricing.BaseRead, pricing.IncludeNames, o); err != nil {
					t.Fatal(err)
				}
				g.Includes = includes
				for _, d := range []*pricing.CardDetail{fromFields, encoded} {
					d.Includes = includes
					if got, want := d.AppendJSON(nil), stdlibJSON(t, &g); !bytes.Equal(got, want) {
						t.Fatalf("%s (window %d, encoded %t):\n got %s\nwant %s", c.ID, i, d.Object != nil, got, want)
					}
				}
				pages++
				// Each printing asked for by finish.
				for f := range c.Printings() {
					m, err := pricing.ReadMarketObject(src.Reader, c, f, src.AsOf)
					if err != nil {
						t.Fatal(err)
					}
					includes := &pricing.CardIncludes{}
					if err := includes.Read(src.Reader, c, f, pricing.IncludeNames, o); err != nil {
						t.Fatal(err)
					}
					g := pricing.NewCardGold(c, setOf(c), m)
					g.Includes = includes
					d := &pricing.CardDetail{Card: c, Set: setOf(c), Market: m, Includes: includes}
					if got, want := d.AppendJSON(nil), stdlibJSON(t, &g); !bytes.Equal(got, want) {
						t.Fatalf("%s finish %d (window %d):\n got %s\nwant %s", c.ID, f, i, got, want)
					}
					finishes++
				}
			}
			maps, err := src.Reader.Analytics(game, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range maps {
				p, err := pricing.ReadCardAnalytics(src.Reader, c, pricing.BaseRead, a.Window, src.AsOf)
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

// TestEncodeCards_Ordinals: cards out of ordinal order are refused, naming
// the card; a nil CardObjects holds no card.
func TestEncodeCards_Ordinals(t *testing.T) {
	cards := []*snapshots.Card{{ID: "en:x-1", Ordinal: 1}}
	_, err := pricing.EncodeCards(cards, func(*snapshots.Card) *snapshots.Set { return nil }, func(*snapshots.Card) (*pricing.MarketObject, error) {
		return &pricing.MarketObject{}, nil
	})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("en:x-1 has ordinal 1 at position 0")) {
		t.Errorf("got %v, want the card out of order named", err)
	}
	var none *pricing.CardObjects
	if obj := none.Object(0); obj != nil {
		t.Errorf("nil objects: Object(0) = %s", obj)
	}
	if _, known := none.Priced(0); known {
		t.Error("nil objects: Priced(0) is known")
	}
}

// TestCardAnalytics_NoWindow: a card without stored analytics gets an
// empty window to as_of.
func TestCardAnalytics_NoWindow(t *testing.T) {
	c := &snapshots.Card{ID: "en:x-1", Name: "X"}
	asOf, _ := snapshots.ParseDay(snapshotstest.AsOf)
	p := pricing.NewCardAnalytics(c, snapshots.WindowAnalytics{Window: "1m", From: snapshots.NoDay, To: asOf})
	want := stdlibJSON(t, referenceAnalytics(c, snapshots.CardAnalytics{Window: "1m", To: snapshotstest.AsOf}))
	if got := p.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// Nested in a payload that goes through encoding/json (batch).
	if got := stdlibJSON(t, &pricing.CardIncludes{MarketSummary: p}); !bytes.Equal(got, append(append([]byte(`{"market_summary":`), want...), '}')) {
		t.Errorf("nested: %s", got)
	}
}

// FuzzCardDetail_AppendJSON: strings that need escaping (quotes, control
// characters, invalid UTF-8, U+2028, HTML characters that stay as they are)
// and any numbers encode as encoding/json encodes them inside a card with
// every include.
func FuzzCardDetail_AppendJSON(f *testing.F) {
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
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return // encoding/json refuses them; the appenders write null
		}
		c := &snapshots.Card{ID: s, Game: "pokemon", Name: s + s, NameLanguage: s, Language: "en", SetID: s, Number: s, Rarity: s,
			Subtypes: []string{s, ""}, NationalDex: []int{1, -2}, ENMatch: s, MarketSources: []string{s}, Venues: []string{s, "x"},
			PartnerProductID: cents, PriceCents: cents, PriceDay: snapshots.Day(cents % 3_000_000), Volume30dCents: -cents, Sales30d: int(cents % 1000),
			MarketIDs: []snapshots.MarketID{{Cardmarket: cents}, {Variant: s, TCGplayer: 3}}}
		includes := &pricing.CardIncludes{
			PriceHistory:       &pricing.HistorySeries{Grade: s, Finish: &s, Method: s, Points: []pricing.PointRow{{Date: s, PriceUSD: x, Confidence: s, Flags: []string{s}}}},
			TVWAPSlots:         &pricing.SlotsInclude{Basis: s, Slots: []pricing.GradeRow{{Grade: s, FMVUSD: &x, LastSale: &s, ChangePct: &x}}},
			GradeMomentum:      &pricing.MomentumInclude{},
			RecentSales:        &pricing.RecentSalesInclude{Items: []pricing.SaleRow{{SaleID: s, Finish: &s, PriceUSD: x, OnChain: true}}},
			GradeBreakdown:     &pricing.BreakdownInclude{Grades: []pricing.GradeRow{{PremiumRaw: &x}}},
			PopulationOverview: &pricing.PopulationInclude{Basis: s, Grades: []pricing.PopulationRow{{Grader: s, Grade: x, Share: x}}},
			GradingEconomics:   &pricing.GradingEconomicsInc{Grader: s, ExpectedGainUSD: &x, Basis: s},
			MarketSummary: pricing.NewCardAnalytics(&snapshots.Card{ID: s, Name: s}, snapshots.WindowAnalytics{Window: "1w", From: snapshots.NoDay,
				ByGrade: []snapshots.AnalyticsEntry{{Code: 0, Value: 1}}}),
		}
		m := &pricing.MarketObject{PriceUSD: &x, PriceBasis: s, Source: s, Synthetic: true, Finish: &s, Confidence: s, Flags: []string{s}, Note: s, Volume30dUSD: x,
			ByFinish: []pricing.FinishMarket{{Finish: &s, PriceUSD: &x, Source: s, LastSaleDate: &s, Flags: []string{}, Note: s, Volume30dUSD: x}, {}}}
		for _, set := range []*snapshots.Set{nil, {Name: s}} {
			for _, in := range []*pricing.CardIncludes{nil, includes} {
				g := pricing.NewCardGold(c, set, m)
				g.Includes = in
				d := &pricing.CardDetail{Card: c, Set: set, Includes: in, Market: m}
				if got, want := d.AppendJSON(nil), stdlibJSON(t, &g); !bytes.Equal(got, want) {
					t.Fatalf("card:\n got %s\nwant %s", got, want)
				}
			}
		}
	})
}

// TestAppendUSD: dollar amounts (the analytics' fast path) print as
// encoding/json prints them, near zero, around every power of ten and at
// random up to the path's 15-digit bound.
func TestAppendUSD(t *testing.T) {
	checkUSD := func(c int64) {
		t.Helper()
		w := snapshots.WindowAnalytics{Window: "1w", From: snapshots.NoDay, To: snapshots.NoDay, VolumeCents: c}
		p := pricing.NewCardAnalytics(&snapshots.Card{}, w)
		want := stdlibJSON(t, referenceAnalytics(&snapshots.Card{}, snapshots.CardAnalytics{Window: "1w", VolumeCents: c}))
		if got := p.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("volume %d cents:\n got %s\nwant %s", c, got, want)
		}
	}
	for c := int64(-20_000); c <= 20_000; c++ {
		checkUSD(c)
	}
	for p, i := int64(1), 0; i <= 18; p, i = p*10, i+1 {
		for _, c := range []int64{p - 1, p, p + 1, p*9 + 99, -p - 1} {
			checkUSD(c)
		}
	}
	checkUSD(math.MaxInt64)
	checkUSD(math.MinInt64)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20_000; i++ {
		checkUSD(rng.Int64N(2e15) - 1e15)
	}
}

// BenchmarkCardDetail_AppendJSON compares the appender with encoding/json on
// the card detail of the REST benchmark (market_summary).
func BenchmarkCardDetail_AppendJSON(b *testing.B) {
	objects := mustEncodeCards(b, "pokemon")
	c, err := src.Reader.Card("pokemon", "en:base1-4")
	if err != nil {
		b.Fatal(err)
	}
	m, err := pricing.DefaultMarketObject(src.Reader, c)
	if err != nil {
		b.Fatal(err)
	}
	o := includeOptions(objects)[0]
	summary := []string{"market_summary"}
	d := &pricing.CardDetail{Card: c, Set: setOf(c), Market: m, Includes: &pricing.CardIncludes{}}
	if err := d.Includes.Read(src.Reader, c, pricing.BaseRead, summary, o); err != nil {
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
		e := &pricing.CardDetail{Card: c, Object: objects.Object(c.Ordinal), Includes: d.Includes}
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			buf = e.AppendJSON(buf[:0])
		}
	})
	b.Run("read_and_append", func(b *testing.B) {
		// What the edge does for the route after parsing: look the card
		// up, read the window, encode (its includes pooled, as the edge's
		// request carries them).
		b.ReportAllocs()
		buf := make([]byte, 0, 4096)
		var in pricing.CardIncludes
		for b.Loop() {
			c, err := src.Reader.Card("pokemon", "en:base1-4")
			if err != nil {
				b.Fatal(err)
			}
			in = pricing.CardIncludes{}
			if err := in.Read(src.Reader, c, pricing.BaseRead, summary, o); err != nil {
				b.Fatal(err)
			}
			d := pricing.CardDetail{Card: c, Object: objects.Object(c.Ordinal), Includes: &in}
			buf = d.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		g := pricing.NewCardGold(c, setOf(c), m)
		g.Includes = d.Includes
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(&g)
		}
	})
}
