package gold_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/gold"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// synthCard is one card of a synthetic market, shaped like the default preset
// per card: ~30 sales, ~30 price-feed rows, ~6 price points, ~4 listings and
// 6 analytics windows.
type synthCard struct {
	card      *snapshots.Card
	sales     []snapshots.Sale
	series    []snapshots.PriceSeries
	listings  []snapshots.Listing
	analytics []snapshots.CardAnalytics
}

func (c *synthCard) rows() int {
	n := 1 + len(c.sales) + len(c.listings) + len(c.analytics)
	for _, s := range c.series {
		n += len(s.Points)
	}
	return n
}

// synthMarket makes a market of cards cards in sets of setSize cards.
func synthMarket(cards, setSize int, seed uint64) []synthCard {
	r := rand.New(rand.NewPCG(seed, 1))
	asOf := snapshotstest.Day("2026-10-31")
	out := make([]synthCard, cards)
	var saleID uint64
	for i := range out {
		id := fmt.Sprintf("en:sv%d-%d", i/setSize, i%setSize)
		c := &snapshots.Card{Game: "pokemon", ID: id, Language: "en", SourceID: id[3:], SetID: fmt.Sprintf("en:sv%d", i/setSize),
			Name: "Card " + strconv.Itoa(i), NameLanguage: "en", Number: strconv.Itoa(i % setSize), Rarity: "Rare",
			Supertype: "Pokémon", Subtypes: []string{"Basic"}, Colors: []string{"Fire"}, NationalDex: []int{i % 1000},
			Variants: []string{"normal", "reverse-holofoil"}, Source: "synth", Ordinal: uint32(i),
			MarketSources: []string{"partner", "ebay"}, PriceCents: int64(100 + r.IntN(100000)), PriceDay: asOf - 3,
			Volume30dCents: int64(r.IntN(1000000)), Sales30d: r.IntN(30), SalesAll: 30, Listings: 4}
		sc := synthCard{card: c}
		for range 60 {
			saleID++
			s := snapshots.Sale{ID: saleID, Day: asOf - snapshots.Day(r.IntN(730)), PriceCents: int64(100 + r.IntN(100000)),
				Marketplace: snapshots.Marketplace(r.IntN(7)), TradeType: snapshots.TradeType(r.IntN(4)),
				Grade: snapshots.Grade(r.IntN(30)), Confidence: snapshots.Confidence(r.IntN(5)), Finish: uint8(r.IntN(2))}
			if r.IntN(2) == 0 {
				s.Flags = snapshots.SalePriceFeed
				s.Marketplace = snapshots.MarketPartner
			}
			sc.sales = append(sc.sales, s)
		}
		for g := range 2 {
			ps := snapshots.PriceSeries{Grade: snapshots.Grade(g * 10)}
			for k := range 3 {
				ps.Points = append(ps.Points, snapshots.PricePoint{Day: asOf - snapshots.Day(100*k), FMVCents: 5000, TVWAPCents: 5100, MedianCents: 4900, Sales: 7})
			}
			sc.series = append(sc.series, ps)
		}
		for k := range 4 {
			sc.listings = append(sc.listings, snapshots.Listing{ID: fmt.Sprintf("%s-l%d", id, k), CardID: id, Platform: "ebay",
				Grade: "raw:near_mint", AskCents: 5500, ShippingCents: 300, ListedDay: asOf - 2, Quantity: 1, DealScore: -10, PlatformFreshnessH: 2})
		}
		for _, w := range snapshots.AnalyticsWindows {
			sc.analytics = append(sc.analytics, snapshots.CardAnalytics{Window: w.Name, From: "2026-10-01", To: "2026-10-31", Sales: 10,
				VolumeCents: 50000, AvgCents: 5000, MedianCents: 5000, LowCents: 100, HighCents: 9000, ChangePct: 1.5,
				ByMarketplace: map[string]int{"ebay": 6, "partner": 4}, ByGrade: map[string]int{"raw:near_mint": 10},
				GradeMedianCts: map[string]int64{"raw:near_mint": 5000}, TradeTypes: map[string]int{"auction": 10}})
		}
		out[i] = sc
	}
	return out
}

func writeMarket(tb testing.TB, path string, market []synthCard) {
	tb.Helper()
	w, err := gold.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range market {
		c := &market[i]
		if err := w.AddCard(c.card, c.sales, c.series, c.listings, c.analytics); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkWriter measures the Writer on a synthetic market of 500 cards
// (38,500 rows), indexes and ANALYZE included. GOLD_BENCH_CARDS=51000 runs
// the size of the default preset (3.93M rows).
func BenchmarkWriter(b *testing.B) {
	cards := 500
	if s := os.Getenv("GOLD_BENCH_CARDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		cards = n
	}
	market := synthMarket(cards, 200, 1) // sets of the real catalog's size
	rows := 0
	for i := range market {
		rows += market[i].rows()
	}
	dir := b.TempDir()
	b.ReportAllocs()
	var wall, cpu time.Duration
	for i := 0; b.Loop(); i++ {
		path := filepath.Join(dir, fmt.Sprintf("gold-%d.sqlite", i))
		start, cpu0 := time.Now(), cpuTime()
		writeMarket(b, path, market)
		wall += time.Since(start)
		cpu += cpuTime() - cpu0
		b.StopTimer()
		if fi, err := os.Stat(path); err == nil {
			b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
		}
		os.Remove(path)
		b.StartTimer()
	}
	b.ReportMetric(float64(rows), "rows/op")
	b.ReportMetric(float64(rows)*float64(b.N)/wall.Seconds(), "rows/s")
	if cpu > 0 {
		// CPU time of the whole process (GC included): on a shared,
		// loaded machine a fairer rate than the wall-clock one.
		b.ReportMetric(float64(rows)*float64(b.N)/cpu.Seconds(), "rows/cpu-s")
	}
}

func TestWriter_Synthetic(t *testing.T) {
	market := synthMarket(50, 10, 7)
	path := filepath.Join(t.TempDir(), "gold.sqlite")
	writeMarket(t, path, market)
	db, err := gold.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res := MustQuery(t, db, `SELECT (SELECT count(*) FROM cards), (SELECT count(*) FROM sales),
		(SELECT count(*) FROM sales WHERE price_feed = 1), (SELECT count(*) FROM price_points),
		(SELECT count(*) FROM listings), (SELECT count(*) FROM card_analytics)`)
	var feed int64
	for _, c := range market {
		for _, s := range c.sales {
			if s.Flags&snapshots.SalePriceFeed != 0 {
				feed++
			}
		}
	}
	want := []any{int64(50), int64(50 * 60), feed, int64(50 * 6), int64(50 * 4), int64(50 * 6)}
	for i := range want {
		if res.Rows[0][i] != want[i] {
			t.Errorf("column %d = %v, want %v", i, res.Rows[0][i], want[i])
		}
	}
	// The planner uses the card_id index for a card's sales.
	res = MustQuery(t, db, "SELECT count(*), sum(price_cents) FROM sales WHERE card_id = 'en:sv0-7'")
	var n, sum int64
	for _, s := range market[7].sales {
		n++
		sum += s.PriceCents
	}
	if res.Rows[0][0] != n || res.Rows[0][1] != sum {
		t.Errorf("card en:sv0-7: count, sum = %v, want %d %d", res.Rows[0], n, sum)
	}
}
