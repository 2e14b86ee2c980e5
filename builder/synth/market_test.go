package synth_test

import (
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/snapshots"
)

// market is the output of CardMarket for every card of a catalog.
type market struct {
	cards    []*snapshots.Card
	sets     map[string]*snapshots.Set
	sales    [][]snapshots.Sale
	listings [][]snapshots.Listing
}

// generateMarket runs CardMarket over cards with workers goroutines, taking
// the cards in the given order.
func generateMarket(g *synth.Generator, cards []*snapshots.Card, sets map[string]*snapshots.Set, order []int, workers int) market {
	m := market{cards: cards, sets: sets, sales: make([][]snapshots.Sale, len(cards)), listings: make([][]snapshots.Listing, len(cards))}
	work := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				c := cards[i]
				m.sales[i], m.listings[i] = g.CardMarket(synth.GameIndex(c.Game), c, setOf(sets, c))
			}
		}()
	}
	for _, i := range order {
		work <- i
	}
	close(work)
	wg.Wait()
	return m
}

func seqOrder(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

var (
	tinyOnce   sync.Once
	tinyMarket market
)

// MustTinyMarket generates the tiny preset's market for seed 1 (once).
func MustTinyMarket(tb testing.TB) market {
	tb.Helper()
	cards, sets := catalogFor(tb, "tiny", 1)
	tinyOnce.Do(func() {
		g := synth.New(MustPreset(tb, "tiny"), 1, testAsOf)
		tinyMarket = generateMarket(g, cards, sets, seqOrder(len(cards)), 1)
	})
	return tinyMarket
}

func TestGenerator_CardMarket_Deterministic(t *testing.T) {
	want := MustTinyMarket(t)
	cards, sets := want.cards, want.sets
	order := seqOrder(len(cards))
	slices.Reverse(order)
	g := synth.New(MustPreset(t, "tiny"), 1, testAsOf)
	got := generateMarket(g, cards, sets, order, 4)
	for i, c := range cards {
		if !reflect.DeepEqual(want.sales[i], got.sales[i]) {
			t.Errorf("%s: sales differ with another call order and goroutines:\n%.2000s", c.ID, cmp.Diff(want.sales[i], got.sales[i]))
		}
		if !reflect.DeepEqual(want.listings[i], got.listings[i]) {
			t.Errorf("%s: listings differ with another call order and goroutines:\n%.2000s", c.ID, cmp.Diff(want.listings[i], got.listings[i]))
		}
	}

	// Another seed gives another market.
	other := synth.New(MustPreset(t, "tiny"), 2, testAsOf)
	c := cards[3]
	s1, _ := g.CardMarket(0, c, setOf(sets, c))
	s2, _ := other.CardMarket(0, c, setOf(sets, c))
	if cmp.Equal(s1, s2) {
		t.Errorf("seeds 1 and 2 give the same sales for %s", c.ID)
	}
}

func TestGenerator_CardMarket_Invariants(t *testing.T) {
	m := MustTinyMarket(t)
	start := testAsOf - 729
	ids := map[uint64]bool{}
	listingIDs := map[string]bool{}
	for i, c := range m.cards {
		gi := synth.GameIndex(c.Game)
		set := setOf(m.sets, c)
		first := start
		if rd, ok := synth.ReleaseDay(set); ok && rd > first {
			first = rd
		}
		sales := m.sales[i]
		for j, s := range sales {
			if ids[s.ID] {
				t.Fatalf("%s: duplicate sale id %#x", c.ID, s.ID)
			}
			ids[s.ID] = true
			if got, want := s.ID>>24, uint64(gi)<<32|uint64(c.Ordinal); got != want {
				t.Fatalf("%s: sale id %#x: game/ordinal part %#x, want %#x", c.ID, s.ID, got, want)
			}
			if j > 0 {
				p := sales[j-1]
				if p.Day < s.Day || p.Day == s.Day && p.ID < s.ID {
					t.Fatalf("%s: sales not newest first at %d: %v then %v", c.ID, j, p, s)
				}
			}
			if s.Day > testAsOf || s.Day < first {
				t.Fatalf("%s: sale on %v outside [%v, %v]", c.ID, s.Day, first, testAsOf)
			}
			if s.PriceCents <= 0 || !s.Grade.Valid() || s.Marketplace.String() == "unknown" ||
				s.TradeType.String() == "unknown" || s.Confidence.String() == "unknown" {
				t.Fatalf("%s: bad sale %+v", c.ID, s)
			}
			if s.Finish != 0 && int(s.Finish) >= len(c.Variants) {
				t.Fatalf("%s: finish %d of %d variants", c.ID, s.Finish, len(c.Variants))
			}
			if s.Marketplace.OnChain() != (s.TradeType == snapshots.TradeOnChainTransfer) {
				t.Fatalf("%s: %v sale with trade type %v", c.ID, s.Marketplace, s.TradeType)
			}
			if s.Flags&snapshots.SalePriceFeed != 0 {
				want := snapshots.Sale{ID: s.ID, Day: s.Day, PriceCents: s.PriceCents, Marketplace: snapshots.MarketPartner,
					TradeType: snapshots.TradeFixedPrice, Grade: snapshots.RawNearMint, Confidence: snapshots.ConfExact, Flags: snapshots.SalePriceFeed}
				if s != want {
					t.Fatalf("%s: feed row %+v", c.ID, s)
				}
				if c.Game != "pokemon" || s.Day <= testAsOf-365 {
					t.Fatalf("%s: feed row %+v: want pokemon cards over the last 365 days", c.ID, s)
				}
			}
		}
		ls := m.listings[i]
		for j, l := range ls {
			if listingIDs[l.ID] {
				t.Fatalf("%s: duplicate listing id %s", c.ID, l.ID)
			}
			listingIDs[l.ID] = true
			if j > 0 && ls[j-1].AskCents > l.AskCents {
				t.Fatalf("%s: listings not cheapest first", c.ID)
			}
			mk, ok := snapshots.ParseMarketplace(l.Platform)
			if !ok || mk.OnChain() {
				t.Fatalf("%s: listing platform %q", c.ID, l.Platform)
			}
			if _, err := snapshots.ParseGrade(l.Grade); err != nil {
				t.Fatalf("%s: listing grade: %v", c.ID, err)
			}
			if l.CardID != c.ID || l.AskCents <= 0 || l.ShippingCents < 0 || l.Quantity < 1 ||
				l.DealScore < -100 || l.DealScore > 100 || l.PlatformFreshnessH < 0 || l.PlatformFreshnessH > 72 ||
				l.ListedDay > testAsOf || l.ListedDay <= testAsOf-60 || l.ListedDay < first {
				t.Fatalf("%s: bad listing %+v", c.ID, l)
			}
			if len(c.Variants) > 0 && !slices.Contains(c.Variants, l.Finish) {
				t.Fatalf("%s: listing finish %q not among %v", c.ID, l.Finish, c.Variants)
			}
		}
	}
}

func TestGenerator_CardMarket_Shares(t *testing.T) {
	m := MustTinyMarket(t)
	var executed, feed, flagged, untrusted, onChain, onChainGraded int
	markets := map[snapshots.Marketplace]int{}
	trades := map[snapshots.TradeType]int{}
	confs := map[snapshots.Confidence]int{}
	// Per market class: sales at yahoo_auctions+mercari, at cardmarket, all.
	type mix struct{ jpShops, cardmarket, all int }
	byLang := map[string]*mix{}
	noListings := 0
	for i, c := range m.cards {
		mx := byLang[c.Language]
		if mx == nil {
			mx = &mix{}
			byLang[c.Language] = mx
		}
		for _, s := range m.sales[i] {
			if s.Flags&snapshots.SalePriceFeed != 0 {
				feed++
				continue
			}
			executed++
			markets[s.Marketplace]++
			trades[s.TradeType]++
			confs[s.Confidence]++
			if s.Flags&snapshots.SaleFlagged != 0 {
				flagged++
			}
			if s.Confidence.Untrusted() {
				untrusted++
			}
			if s.Marketplace.OnChain() {
				onChain++
				if !s.Grade.Raw() {
					onChainGraded++
				}
			}
			mx.all++
			switch s.Marketplace {
			case snapshots.MarketYahooAuctions, snapshots.MarketMercari:
				mx.jpShops++
			case snapshots.MarketCardmarket:
				mx.cardmarket++
			}
		}
		if len(m.listings[i]) == 0 {
			noListings++
		}
	}
	perCard := float64(executed) / float64(len(m.cards))
	t.Logf("tiny: %d cards, %d executed sales (%.0f per card), %d feed rows, %.1f%% without listings",
		len(m.cards), executed, perCard, feed, 100*float64(noListings)/float64(len(m.cards)))
	if perCard < 100 || perCard > 300 {
		t.Errorf("%.0f sales per card, want 100-300", perCard)
	}
	share := func(n int) float64 { return float64(n) / float64(executed) }
	for _, tc := range []struct {
		name     string
		got      float64
		min, max float64
	}{
		{"flagged", share(flagged), 0.02, 0.04},
		{"untrusted", share(untrusted), 0.012, 0.03},
		{"feed rows / executed", float64(feed) / float64(executed), 0.05, 1},
		{"on-chain sales graded", float64(onChainGraded) / float64(onChain), 0.8, 1},
		{"ja sales at yahoo_auctions or mercari", float64(byLang["ja"].jpShops) / float64(byLang["ja"].all), 0.4, 0.8},
		{"en sales at yahoo_auctions or mercari", float64(byLang["en"].jpShops) / float64(byLang["en"].all), 0, 0.15},
		{"en sales at cardmarket", float64(byLang["en"].cardmarket) / float64(byLang["en"].all), 0.07, 0.2},
		{"ja sales at cardmarket", float64(byLang["ja"].cardmarket) / float64(byLang["ja"].all), 0, 0.07},
		{"cards without listings", float64(noListings) / float64(len(m.cards)), 0.1, 0.6},
	} {
		if tc.got < tc.min || tc.got > tc.max {
			t.Errorf("%s: %.4f, want %.3f..%.3f", tc.name, tc.got, tc.min, tc.max)
		}
	}
	for _, mk := range snapshots.AllMarketplaces() {
		if markets[mk] == 0 {
			t.Errorf("no sales at %v", mk)
		}
	}
	for _, name := range snapshots.TradeTypeNames() {
		tt, _ := snapshots.ParseTradeType(name)
		if trades[tt] == 0 {
			t.Errorf("no %v sales", tt)
		}
	}
	for c := snapshots.ConfExact; c <= snapshots.ConfDisagreeHigh; c++ {
		if confs[c] == 0 {
			t.Errorf("no sales with confidence %v", c)
		}
	}
}

// medianRaw returns the median price of verified raw near-mint sales of the
// card's first finish within (from, to], and their count.
func medianRaw(sales []snapshots.Sale, grade snapshots.Grade, from, to snapshots.Day) (int64, int) {
	var ps []int64
	for _, s := range sales {
		if s.Hidden() || s.Grade != grade || s.Finish != 0 || s.Day <= from || s.Day > to {
			continue
		}
		ps = append(ps, s.PriceCents)
	}
	if len(ps) == 0 {
		return 0, 0
	}
	slices.Sort(ps)
	return ps[len(ps)/2], len(ps)
}

func TestGenerator_CardMarket_Realism(t *testing.T) {
	m := MustTinyMarket(t)
	byID := map[string]int{}
	for i, c := range m.cards {
		byID[c.ID] = i
	}
	premium := func(id string) (float64, float64) {
		sales := m.sales[byID[id]]
		raw, n1 := medianRaw(sales, snapshots.RawNearMint, 0, testAsOf)
		ten, n2 := medianRaw(sales, snapshots.GradedGrade(0, 10), 0, testAsOf)
		if n1 < 5 || n2 < 3 {
			t.Fatalf("%s: %d raw and %d slab 10 sales: too few to compare", id, n1, n2)
		}
		return float64(ten) / float64(raw), float64(raw) / 100
	}
	// Vintage holo: a slab 10 is worth many times a raw copy.
	if x, raw := premium("en:base1-4"); x < 5 || x > 25 || raw < 50 {
		t.Errorf("Base Set Charizard: slab 10 = %.1fx raw ($%.2f), want 5-20x of a valuable card", x, raw)
	}
	// A modern card: a small premium.
	if x, raw := premium("en:sv3pt5-199"); x < 1.3 || x > 4 {
		t.Errorf("151 Charizard ex SIR: slab 10 = %.1fx raw ($%.2f), want 1.5-3x", x, raw)
	}
	// Sales counts are heavy-tailed and movers go both ways over 30 days.
	counts := make([]int, len(m.cards))
	up, down := 0, 0
	for i := range m.cards {
		counts[i] = len(m.sales[i])
		now, n1 := medianRaw(m.sales[i], snapshots.RawNearMint, testAsOf-30, testAsOf)
		then, n2 := medianRaw(m.sales[i], snapshots.RawNearMint, testAsOf-60, testAsOf-30)
		if n1 < 6 || n2 < 6 { // raw near-mint only: popular cards sell many copies graded

			continue
		}
		switch ch := float64(now)/float64(then) - 1; {
		case ch > 0.15:
			up++
		case ch < -0.15:
			down++
		}
	}
	slices.Sort(counts)
	if counts[len(counts)-1] < 20*max(1, counts[len(counts)/2]) {
		t.Errorf("top card has %d rows, median %d: not heavy-tailed", counts[len(counts)-1], counts[len(counts)/2])
	}
	if up < 3 || down < 3 {
		t.Errorf("30-day movers: %d up and %d down more than 15%%, want some of both", up, down)
	}
	t.Logf("30-day movers beyond 15%%: %d up, %d down", up, down)
}

// TestGenerator_Budget checks the default preset's volumes on a sample of the
// catalog (every 10th card), extrapolated.
func TestGenerator_Budget(t *testing.T) {
	if testing.Short() {
		t.Skip("budget in -short mode")
	}
	cards, sets := catalogFor(t, "default", 1)
	g := synth.New(MustPreset(t, "default"), 1, testAsOf)
	var executed, feed, zero, few int
	for i := 0; i < len(cards); i += 10 {
		c := cards[i]
		sales, _ := g.CardMarket(synth.GameIndex(c.Game), c, setOf(sets, c))
		n := 0
		for _, s := range sales {
			if s.Flags&snapshots.SalePriceFeed != 0 {
				feed++
			} else {
				n++
			}
		}
		executed += n
		if n == 0 {
			zero++
		}
		if n <= 3 {
			few++
		}
	}
	executed *= 10
	feed *= 10
	t.Logf("default (extrapolated from every 10th card): %d executed sales, %d feed rows, %d%% of cards with 0-3 sales",
		executed, feed, few*1000/len(cards))
	if executed < 1_300_000 || executed > 2_000_000 {
		t.Errorf("default: about %d executed sales, want about 1.6 M", executed)
	}
	if feed > 1_500_000 || feed < 500_000 {
		t.Errorf("default: about %d price-feed rows, want at most 1.5 M (and a real feed)", feed)
	}
	if zero == 0 || few*10 < len(cards)/10 {
		t.Errorf("default: %d cards of the sample without sales, %d with 0-3: want a real tail", zero, few)
	}
}

// TestGenerator_Chases: on the default preset each set's chase card
// (synth.Chases) is among the five dearest cards of its set (Base Set
// Charizard the dearest of Base Set), by the median
// of its base printing's raw near-mint sales (over the two years: some chase
// cards sell mostly graded), with histories ending a season apart.
func TestGenerator_Chases(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes the chase cards' sets")
	}
	cards, sets := catalogFor(t, "default", 1)
	all := make([]*snapshots.Set, 0, len(sets))
	for _, s := range sets {
		all = append(all, s)
	}
	for _, asOf := range []snapshots.Day{mustDay("2026-07-15"), mustDay("2026-11-25")} {
		g := synth.New(MustPreset(t, "default"), 1, asOf).WithCatalog(cards, all)
		for _, ch := range synth.Chases {
			type priced struct {
				id    string
				cents int64
			}
			var ps []priced
			for _, c := range cards {
				if c.Game != ch.Game || c.SetID != ch.SetID {
					continue
				}
				sales, _ := g.CardMarket(synth.GameIndex(c.Game), c, setOf(sets, c))
				base := snapshots.BasePrinting(c)
				var xs []int64
				for _, s := range sales {
					if !s.Hidden() && s.Grade == snapshots.RawNearMint && int(s.Finish) == base {
						xs = append(xs, s.PriceCents)
					}
				}
				if len(xs) >= 3 {
					slices.Sort(xs)
					ps = append(ps, priced{c.ID, xs[len(xs)/2]})
				}
			}
			slices.SortStableFunc(ps, func(a, b priced) int { return int(b.cents - a.cents) })
			rank := slices.IndexFunc(ps, func(p priced) bool { return p.id == ch.CardID }) + 1
			if rank < 1 || rank > 5 || (ch.CardID == "en:base1-4" && rank != 1) {
				t.Errorf("as of %s, %s (%s) ranks %d of %d in %s (top: %v)", asOf, ch.CardID, ch.Why, rank, len(ps), ch.SetID, ps[:min(3, len(ps))])
			}
		}
	}
}
