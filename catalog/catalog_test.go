package catalog_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// tiny is a real tiny snapshot, opened once for the package's tests.
var tiny snapshots.Reader

func TestMain(m *testing.M) {
	os.Exit(snapshotstest.RunTiny(m, func(t *snapshotstest.Tiny) { tiny = t.Reader }))
}

// shownPrices returns the price each card shows, by ordinal.
func shownPrices(tb testing.TB, r snapshots.Reader, cards []*snapshots.Card) []int64 {
	tb.Helper()
	n := 0
	for _, c := range cards {
		n = max(n, int(c.Ordinal)+1)
	}
	prices := make([]int64, n)
	for _, c := range cards {
		prices[c.Ordinal] = c.PriceCents
		if r != nil {
			var err error
			if prices[c.Ordinal], err = snapshots.ShownPrice(r, c); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return prices
}

// referenceSort sorts cards by key as the card list does, folding names on
// every comparison, with prices by ordinal.
func referenceSort(cards []*snapshots.Card, key string, asc bool, prices []int64) {
	sort.SliceStable(cards, func(i, j int) bool {
		a, b := cards[i], cards[j]
		c := 0
		switch key {
		case "name":
			c = strings.Compare(index.Fold(a.Name), index.Fold(b.Name))
		case "price":
			c = cmp.Compare(prices[a.Ordinal], prices[b.Ordinal])
		default:
			if c = cmp.Compare(a.Volume30dCents, b.Volume30dCents); c == 0 {
				c = cmp.Compare(a.SalesAll, b.SalesAll)
			}
		}
		if !asc {
			c = -c
		}
		if c == 0 {
			return a.Ordinal < b.Ordinal
		}
		return c < 0
	})
}

// referenceList is the card list as a plain scan: every card through each
// filter, then sorted and cut.
func referenceList(cards []*snapshots.Card, prices []int64, f catalog.Filter, key string, asc bool, offset, limit int) ([]*snapshots.Card, int) {
	q := index.Fold(f.Q)
	var matches []*snapshots.Card
	for _, c := range cards {
		sources := append(append([]string{}, c.MarketSources...), c.Venues...)
		wanted := func(s string) bool {
			m, ok := snapshots.ParseMarketplace(s)
			return ok && m.String() == s && f.Markets.Has(m)
		}
		switch {
		case f.HasSet && !strings.EqualFold(c.SetID, f.SetID),
			f.HasLanguage && c.Language != f.Language,
			f.HasRarity && !strings.EqualFold(c.Rarity, f.Rarity),
			f.HasVariant && !slices.ContainsFunc(c.Variants, func(v string) bool { return strings.EqualFold(v, f.Variant) }),
			f.HasNumber && resolve.NormalizeNumber(c.Number) != resolve.NormalizeNumber(f.Number),
			q != "" && !strings.Contains(index.Fold(c.Name), q) && !strings.Contains(strings.ToLower(c.ID), q),
			f.Markets != 0 && f.Only && (len(sources) == 0 || !allOf(sources, wanted)),
			f.Markets != 0 && !f.Only && !slices.ContainsFunc(sources, wanted):
			continue
		}
		matches = append(matches, c)
	}
	referenceSort(matches, key, asc, prices)
	if offset >= len(matches) {
		return nil, len(matches)
	}
	return matches[offset:min(len(matches), offset+limit)], len(matches)
}

func allOf(list []string, ok func(string) bool) bool {
	for _, s := range list {
		if !ok(s) {
			return false
		}
	}
	return true
}

// filterValues are the values the test draws each filter from: the
// snapshot's own in their stored, other-case and other forms, and some that
// match nothing.
type filterValues struct {
	sets, qs, numbers, rarities, variants []string
}

func newFilterValues(cards []*snapshots.Card) filterValues {
	seen := map[string]bool{}
	add := func(list *[]string, values ...string) {
		for _, v := range values {
			if !seen[v] {
				seen[v] = true
				*list = append(*list, v)
			}
		}
	}
	var v filterValues
	add(&v.sets, "nope", "", "EN:BASE1", " en:base1")
	add(&v.qs, "a", "zz", "char", "zardchar", "mon ex", "CHARIZARD", "pokémon", "é", "-4", "base1-4", "pika", "op01", "of ", "ex", "1")
	add(&v.numbers, "0", "", "004", "4/102", "04/102", "OP01-001", "op01-001", "001", "999", " 4 ")
	add(&v.rarities, "nope", "", "RARE HOLO", "rare holo", "common")
	add(&v.variants, "nope", "", "HOLOFOIL", "reverse holofoil")
	for i, c := range cards {
		add(&v.sets, c.SetID, strings.ToUpper(c.SetID))
		add(&v.numbers, c.Number, "0"+c.Number)
		add(&v.rarities, c.Rarity, strings.ToLower(c.Rarity))
		add(&v.variants, c.Variants...)
		if i%7 == 0 {
			add(&v.qs, strings.Fields(c.Name)[0], strings.ToUpper(c.Name), c.ID)
			if r := []rune(c.Name); len(r) > 4 {
				add(&v.qs, string(r[1:4]))
			}
		}
	}
	return v
}

var (
	marketLists = []string{"ebay", "partner_feed,ebay", "partner", "courtyard", "collector_crypt,courtyard",
		"partner,ebay,cardmarket,mercari,yahoo_auctions", "cardmarket, mercari", "ebay,ebay"}
	pages = [][2]int{{0, 50}, {0, 200}, {3, 5}, {10, 1}, {1, 2}, {1000, 50}}
	sorts = []string{"volume", "name", "price"}
)

// TestCards_List compares the card list with referenceList for every single
// filter value in every order and for random combinations of filters,
// orders and pages, in every game of the tiny snapshot.
func TestCards_List(t *testing.T) {
	cat := catalog.New(tiny)
	queries := 0
	for _, game := range tiny.Manifest().Games {
		cards, err := tiny.Cards(game)
		if err != nil {
			t.Fatal(err)
		}
		views, err := cat.Cards(game)
		if err != nil {
			t.Fatal(err)
		}
		prices := shownPrices(t, tiny, cards)
		check := func(t *testing.T, f catalog.Filter, key string, asc bool, pg [2]int) {
			t.Helper()
			got, gotTotal := views.List(&f, catalog.OrderOf(key, asc), pg[0], pg[1])
			want, wantTotal := referenceList(cards, prices, f, key, asc, pg[0], pg[1])
			if !slices.Equal(got, want) || gotTotal != wantTotal {
				t.Fatalf("%+v %s asc=%v page %v: %d cards of %d, want %d of %d", f, key, asc, pg, len(got), gotTotal, len(want), wantTotal)
			}
			queries++
		}
		v := newFilterValues(cards)
		t.Run(game+"/single", func(t *testing.T) {
			set := map[string]func(f *catalog.Filter, v string){
				"set_id":      func(f *catalog.Filter, v string) { f.HasSet, f.SetID = true, v },
				"q":           func(f *catalog.Filter, v string) { f.Q = strings.TrimSpace(v) },
				"card_number": func(f *catalog.Filter, v string) { f.HasNumber, f.Number = true, v },
				"rarity":      func(f *catalog.Filter, v string) { f.HasRarity, f.Rarity = true, v },
				"variant":     func(f *catalog.Filter, v string) { f.HasVariant, f.Variant = true, v },
				"language":    func(f *catalog.Filter, v string) { f.HasLanguage, f.Language = true, v },
			}
			values := map[string][]string{"set_id": v.sets, "q": v.qs, "card_number": v.numbers, "rarity": v.rarities,
				"variant": v.variants, "language": {"en", "ja", "zh-cn", "zh-tw"}}
			for name, list := range values {
				for _, value := range list {
					for i := range 6 {
						var f catalog.Filter
						set[name](&f, value)
						check(t, f, sorts[i/2], i%2 == 1, pages[i%len(pages)])
					}
				}
			}
			for _, only := range []bool{false, true} {
				for _, m := range marketLists {
					mks, err := snapshots.ParseMarketplaces(m)
					if err != nil {
						t.Fatal(err)
					}
					check(t, catalog.Filter{Markets: mks, Only: only}, "volume", false, pages[0])
					check(t, catalog.Filter{Markets: mks, Only: only}, "name", true, [2]int{0, 200})
				}
			}
			check(t, catalog.Filter{}, "volume", false, pages[0])
		})
		t.Run(game+"/combinations", func(t *testing.T) {
			r := rand.New(rand.NewPCG(8, uint64(len(game))))
			pick := func(list []string) string { return list[r.IntN(len(list))] }
			for range 4000 {
				var f catalog.Filter
				if r.IntN(3) == 0 {
					f.HasSet, f.SetID = true, pick(v.sets)
				}
				if r.IntN(3) == 0 {
					f.Q = strings.TrimSpace(pick(v.qs))
				}
				if r.IntN(4) == 0 {
					f.HasNumber, f.Number = true, pick(v.numbers)
				}
				if r.IntN(4) == 0 {
					f.HasRarity, f.Rarity = true, pick(v.rarities)
				}
				if r.IntN(5) == 0 {
					f.HasVariant, f.Variant = true, pick(v.variants)
				}
				if r.IntN(5) == 0 {
					f.HasLanguage, f.Language = true, pick([]string{"en", "ja", "zh-cn", "zh-tw"})
				}
				if r.IntN(4) == 0 {
					f.Markets, _ = snapshots.ParseMarketplaces(pick(marketLists))
					f.Only = r.IntN(2) == 0
				}
				check(t, f, pick(sorts), r.IntN(2) == 0, pages[r.IntN(len(pages))])
			}
		})
	}
	t.Logf("%d queries", queries)
}

// referenceSortSets sorts a copy of sets by key, folding names on every
// comparison.
func referenceSortSets(sets []*snapshots.Set, key string) []*snapshots.Set {
	sorted := append([]*snapshots.Set{}, sets...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		switch key {
		case "release_date", "release_date_asc":
			if (a.ReleaseDate == "") != (b.ReleaseDate == "") {
				return b.ReleaseDate == ""
			}
			if a.ReleaseDate != b.ReleaseDate {
				if key == "release_date" {
					return a.ReleaseDate > b.ReleaseDate
				}
				return a.ReleaseDate < b.ReleaseDate
			}
		case "name":
			if c := strings.Compare(index.Fold(a.Name), index.Fold(b.Name)); c != 0 {
				return c < 0
			}
		case "volume":
			if a.Volume30dCents != b.Volume30dCents {
				return a.Volume30dCents > b.Volume30dCents
			}
		case "card_count":
			if a.CardCount != b.CardCount {
				return a.CardCount > b.CardCount
			}
		}
		return a.ID < b.ID
	})
	return sorted
}

// TestSets_Ties compares the set list's orders with referenceSortSets over
// made-up directories full of what the tiny snapshot lacks: set names equal
// but for case and accents, equal and unknown dates, equal volumes and card
// counts, repeated ids.
func TestSets_Ties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	names := []string{"Base", "base", "BASE", "Bäse", "Éclat", "eclat", "Eclat", "151", "Romance Dawn", "ROMANCE DAWN", "zeta", "Ωmega", "ωmega", ""}
	dates := []string{"", "", "1999-01-09", "1999-01-09", "2023-06-16", "2001-01-01"}
	for round := range 300 {
		sets := make([]*snapshots.Set, 1+r.IntN(30))
		for i := range sets {
			sets[i] = &snapshots.Set{ID: fmt.Sprintf("en:s%d", r.IntN(40)), Game: "pokemon", Name: pick(names), Language: "en",
				ReleaseDate: pick(dates), CardCount: r.IntN(3), Volume30dCents: int64(r.IntN(3)) * 150, Sales30d: r.IntN(4)}
		}
		views := catalog.NewSets(sets)
		for _, key := range catalog.SetSortKeys {
			if got, want := views.Sorted(catalog.SetOrderOf(key)), referenceSortSets(sets, key); !slices.Equal(got, want) {
				t.Fatalf("round %d, sort %s: %v, want %v", round, key, got, want)
			}
		}
	}
}

// referenceTopCards sorts a copy of cards by price and keeps the priced ones
// of the first ten.
func referenceTopCards(cards []*snapshots.Card, prices []int64) []*snapshots.Card {
	top := append([]*snapshots.Card{}, cards...)
	referenceSort(top, "price", false, prices)
	var out []*snapshots.Card
	for _, c := range top[:min(catalog.TopCardsPerSet, len(top))] {
		if prices[c.Ordinal] > 0 {
			out = append(out, c)
		}
	}
	return out
}

// TestCatalog_Sets compares the set views with plain scans of the tiny
// snapshot: the set list in every order, every set's top cards (by its id
// and in other case), and its trending rows in every metric and window,
// under the default liquidity rule and another (catalog.SetRows is the
// reference of both).
func TestCatalog_Sets(t *testing.T) {
	cat := catalog.New(tiny)
	compared, empty := 0, 0
	for _, game := range tiny.Manifest().Games {
		sets, err := tiny.Sets(game)
		if err != nil {
			t.Fatal(err)
		}
		views, err := cat.Sets(game)
		if err != nil {
			t.Fatal(err)
		}
		for o, key := range catalog.SetSortKeys {
			if got, want := views.Sorted(catalog.SetOrderOf(key)), referenceSortSets(sets, key); !slices.Equal(got, want) {
				t.Fatalf("%s sorted by %s (order %d): %v, want %v", game, key, o, got, want)
			}
		}
		cards, err := tiny.Cards(game)
		if err != nil {
			t.Fatal(err)
		}
		prices := shownPrices(t, tiny, cards)
		for _, s := range sets {
			setCards, err := tiny.SetCards(game, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cat.TopCards(game, s)
			if err != nil {
				t.Fatal(err)
			}
			if want := referenceTopCards(setCards, prices); !slices.Equal(got, want) {
				t.Fatalf("top cards of %s: %d, want %d", s.ID, len(got), len(want))
			}
			for _, id := range []string{s.ID, strings.ToUpper(s.ID)} {
				for _, metric := range snapshots.TrendingMetrics {
					for _, window := range pricing.TrendingWindowNames() {
						for _, l := range []pricing.Liquidity{pricing.DefaultLiquidity(), {MinSales: 1}} {
							got, err := cat.SetTrending(game, id, metric, window, l)
							if err != nil {
								t.Fatal(err)
							}
							lb, err := pricing.Trending(tiny, game, metric, window, "all", l)
							if err != nil {
								t.Fatal(err)
							}
							want := catalog.SetRows(lb.Rows, cards, id)
							if !slices.Equal(got, want) {
								t.Fatalf("%s %s %s %+v: %d rows, want %d", id, metric, window, l, len(got), len(want))
							}
							compared++
							if len(want) == 0 {
								empty++
							}
						}
					}
				}
			}
		}
		if rows, err := cat.SetTrending(game, "nope", "composite", "30d", pricing.DefaultLiquidity()); err != nil || rows != nil {
			t.Fatalf("unknown set: %v, %v", rows, err)
		}
	}
	if empty > compared*3/4 {
		t.Fatalf("%d of %d rankings empty: the tiny snapshot is smaller than expected", empty, compared)
	}
	t.Logf("%d rankings compared, %d empty", compared, empty)
}

func TestCounterpart(t *testing.T) {
	cards, err := tiny.Cards("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	linked := 0
	for _, c := range cards {
		if c.Language == "en" || c.ENCardID == "" {
			continue
		}
		if _, err := tiny.Card(c.Game, c.ENCardID); err != nil {
			continue // links to an English card the tiny catalog has not
		}
		en, err := catalog.Counterpart(tiny, c, "en")
		if err != nil || en.ID != c.ENCardID {
			t.Fatalf("%s in en: %v, %v; want %s", c.ID, en, err, c.ENCardID)
		}
		back, err := catalog.Counterpart(tiny, en, c.Language)
		if err != nil || back.Language != c.Language || !strings.EqualFold(back.ENCardID, en.ID) {
			t.Fatalf("%s in %s: %v, %v", en.ID, c.Language, back, err)
		}
		linked++
	}
	if linked == 0 {
		t.Fatal("no card of the tiny snapshot links to an English card")
	}
	_, err = catalog.Counterpart(tiny, cards[0], "xx")
	if got, want := apperr.ErrorCode(err), apperr.ENOTFOUND; got != want {
		t.Fatalf("unknown language: %v, want %s", err, want)
	}
}

func TestCardsByID(t *testing.T) {
	c, err := tiny.Card("pokemon", "en:base1-4")
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"en:base1-4", "nope", "EN:BASE1-4", "en:base1-2", strconv.FormatInt(c.PartnerProductID, 10), "nope2"}
	cards, notFound, err := catalog.CardsByID(tiny, "pokemon", ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 2 || cards[0].ID != "en:base1-4" || cards[1].ID != "en:base1-2" || !slices.Equal(notFound, []string{"nope", "nope2"}) {
		t.Fatalf("cards %v, not found %v", cards, notFound)
	}
}

// TestCatalog_Concurrent builds every view of a fresh Catalog from many
// goroutines at once (run it with -race): each view is built once and every
// caller sees the same.
func TestCatalog_Concurrent(t *testing.T) {
	cat := catalog.New(tiny)
	sets, err := tiny.Sets("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	type views struct {
		cards *catalog.Cards
		sets  *catalog.Sets
		top   []*snapshots.Card
		rows  []snapshots.TrendingRow
	}
	got := make([]views, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			v := &got[i]
			var err error
			if v.cards, err = cat.Cards("pokemon"); err != nil {
				t.Error(err)
			}
			if v.sets, err = cat.Sets("pokemon"); err != nil {
				t.Error(err)
			}
			if v.top, err = cat.TopCards("pokemon", sets[0]); err != nil {
				t.Error(err)
			}
			if v.rows, err = cat.SetTrending("pokemon", sets[0].ID, "composite", "30d", pricing.DefaultLiquidity()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, v := range got[1:] {
		if v.cards != got[0].cards || v.sets != got[0].sets || !slices.Equal(v.top, got[0].top) || !slices.Equal(v.rows, got[0].rows) {
			t.Fatal("two callers got different views")
		}
	}
}
